package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
)

// MaxFileSize bounds state.json. With the audit bounded, the file grows only
// with the number of bundles; anything larger is refused as malformed
// rather than read into memory.
const MaxFileSize = 64 << 20

// file is the on-disk shape of state.json (docs/state.md).
type file struct {
	SchemaVersion int                `json:"schema_version"`
	Generation    uint64             `json:"generation"`
	Bundles       map[string]*Record `json:"bundles"`
}

// currentFile is file with each bundle's audit trail left undecoded: what
// LoadCurrent reads.
type currentFile struct {
	SchemaVersion int                       `json:"schema_version"`
	Generation    uint64                    `json:"generation"`
	Bundles       map[string]*currentRecord `json:"bundles"`
}

// currentRecord is a Record whose audit trail is kept as raw JSON (the
// outer field shadows Record.Audit); the decoder still checks its syntax.
type currentRecord struct {
	Record
	Audit json.RawMessage `json:"audit"`
}

// header is decoded leniently when the strict decoding fails, so that a
// file from a newer bundlectl is reported as an unsupported version, not
// as unknown fields.
type header struct {
	SchemaVersion *json.RawMessage `json:"schema_version"`
}

// checkVersion returns a reason when data is JSON with a missing or
// unsupported schema_version, and nil otherwise.
func checkVersion(data []byte) error {
	var h header
	if err := json.Unmarshal(data, &h); err != nil {
		return errors.New(jsonReason(data, err))
	}
	if h.SchemaVersion == nil {
		return errors.New("schema_version is missing")
	}
	var v int
	if err := json.Unmarshal(*h.SchemaVersion, &v); err != nil || v != SchemaVersion && v != 1 {
		return errUnsupported{}
	}
	return nil
}

// errUnsupported is parse's reason for a schema_version other than
// SchemaVersion; its hint differs from other malformed state.
type errUnsupported struct{}

func (errUnsupported) Error() string {
	return fmt.Sprintf("unsupported schema_version (this bundlectl reads 1 and %d)", SchemaVersion)
}

var errTrailing = errors.New("trailing data after the JSON object")

// parse decodes and validates state.json bytes. The returned error is a
// reason (no path, no stored value) for a *MalformedError. With audit
// false each bundle's audit trail is checked to be a JSON array and not
// decoded (LoadCurrent).
func parse(data []byte, audit bool) (*State, error) {
	var f file
	var cf currentFile
	var dst any = &f
	if !audit {
		dst = &cf
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(dst)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			err = errTrailing
		}
	}
	if !audit {
		f = file{SchemaVersion: cf.SchemaVersion, Generation: cf.Generation, Bundles: make(map[string]*Record, len(cf.Bundles))}
		for id, cr := range cf.Bundles {
			if cr == nil {
				f.Bundles[id] = nil
				continue
			}
			if err == nil && (len(cr.Audit) == 0 || cr.Audit[0] != '[') {
				return nil, fmt.Errorf("bundles[%s].audit is not an array", quote(id))
			}
			r := cr.Record
			r.Audit = []Event{} // not decoded; checkRecord skips it
			f.Bundles[id] = &r
		}
	}
	if err != nil || f.SchemaVersion != SchemaVersion && f.SchemaVersion != 1 {
		// A file from another version is reported as such, not by the
		// fields this version does not know.
		if verr := checkVersion(data); verr != nil {
			return nil, verr
		}
	}
	if err != nil {
		if err == errTrailing {
			return nil, err
		}
		return nil, errors.New(jsonReason(data, err))
	}
	s := &State{generation: f.Generation, bundles: make(map[string]*Record, len(f.Bundles))}
	for id, b := range f.Bundles {
		if err := checkRecord(id, b, f.Generation, audit); err != nil {
			return nil, err
		}
		var inv bytes.Buffer
		if b.Receipt != nil {
			// Stored indented; the compact form is the exact bytes the
			// capability hash was computed over.
			if err := json.Compact(&inv, b.Receipt.Inventory); err != nil {
				return nil, fmt.Errorf("bundles[%s].receipt.inventory is not valid JSON", quote(id))
			}
			b.Receipt.Inventory = inv.Bytes()
		}
		b.ID = id
		s.bundles[id] = b
	}
	return s, nil
}

// checkRecord enforces the invariants of docs/state.md on one bundle; with
// audit false, those of everything but its audit trail.
func checkRecord(id string, b *Record, global uint64, audit bool) error {
	at := "bundles[" + quote(id) + "]"
	if err := checkID(id); err != nil {
		return fmt.Errorf("%s: key is not a bundle id", at)
	}
	if b == nil {
		return fmt.Errorf("%s is null", at)
	}
	if b.Generation == 0 {
		return fmt.Errorf("%s.generation is 0 (a recorded bundle has at least one transition)", at)
	}
	if b.Generation > global {
		return fmt.Errorf("%s.generation exceeds the global generation", at)
	}
	if r := b.Receipt; r != nil {
		if err := checkReceipt(id, r); err != nil {
			return fmt.Errorf("%s.receipt: %s", at, err.(*InvalidError).Reason)
		}
		if r.Generation == 0 || r.Generation > b.Generation {
			return fmt.Errorf("%s.receipt.generation is outside 1..%d", at, b.Generation)
		}
	}
	if b.Audit == nil {
		return fmt.Errorf("%s.audit is missing", at)
	}
	for i, sw := range b.Off {
		if !validSwitch(sw.Kind, sw.Name) {
			return fmt.Errorf("%s.off[%d] is not a component switch", at, i)
		}
	}
	if b.Source != nil && !json.Valid(b.Source) {
		return fmt.Errorf("%s.source is not valid JSON", at)
	}
	if !audit {
		return nil
	}
	if len(b.Audit) > AuditLimit {
		return fmt.Errorf("%s.audit has %d events, more than %d", at, len(b.Audit), AuditLimit)
	}
	var prev uint64
	for i, e := range b.Audit {
		ea := func() string { return fmt.Sprintf("%s.audit[%d]", at, i) } // only on error: this loop runs before every hook
		if !e.Action.valid() {
			return fmt.Errorf("%s.action is not trust, enable, disable, revoke, switch or source", ea())
		}
		if e.Generation <= prev || e.Generation > b.Generation {
			return fmt.Errorf("%s.generation is not increasing within 1..%d", ea(), b.Generation)
		}
		prev = e.Generation
		if e.Receipt != nil && !unprintableFree(e.Receipt.Snapshot) {
			return fmt.Errorf("%s.receipt.snapshot contains control or bidirectional characters", ea())
		}
		if (e.Action == ActionTrust || e.Action == ActionRevoke) && e.Receipt == nil {
			return fmt.Errorf("%s.receipt is missing for a %s", ea(), e.Action)
		}
	}
	if len(b.Audit) > 0 && prev != b.Generation {
		return fmt.Errorf("%s: the last audit event is not at the bundle's generation", at)
	}
	return nil
}

// marshal encodes s as state.json: compact (the file is read before
// every hook and tool call, and the decoder's cost is per byte; an
// indented file is a third whitespace), keys in a fixed order, no HTML
// escaping (receipt inventories must keep their exact bytes), one
// newline at the end.
func (s *State) marshal() ([]byte, error) {
	f := file{SchemaVersion: SchemaVersion, Generation: s.generation, Bundles: s.bundles}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// jsonReason turns a decoding error into a message with a line and column
// and without echoing stored values.
func jsonReason(data []byte, err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn) && syn.Error() == "unexpected end of JSON input":
		return fmt.Sprintf("truncated JSON at %s", position(data, syn.Offset))
	case errors.As(err, &syn):
		// Offset is just past the offending byte; the message names at
		// most that one character.
		msg := strings.Replace(syn.Error(), "after top-level value", "after the JSON object (trailing data)", 1)
		return fmt.Sprintf("invalid JSON at %s: %s", position(data, syn.Offset-1), bundle.Sanitize(msg))
	case errors.As(err, &typ) && typ.Field == "":
		return fmt.Sprintf("the file holds a JSON %s, want an object", typ.Value)
	case errors.As(err, &typ):
		return fmt.Sprintf("field %s at %s: got a JSON %s, want %s", bundle.Sanitize(typ.Field), position(data, typ.Offset), typ.Value, jsonKind(typ.Type))
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "truncated JSON"
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return "unknown field " + bundle.Sanitize(f)
	}
	// Errors from the digest and token parsers name the problem, not the value.
	return bundle.Sanitize(strings.TrimPrefix(msg, "json: "))
}

func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Bool:
		return "a boolean"
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int64, reflect.Uint64:
		return "an integer"
	}
	return "another type"
}

// position renders a byte offset as "line L, column C".
func position(data []byte, off int64) string {
	if off < 0 {
		off = 0
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}

// checkID accepts exactly "<scope>/<12 lowercase hex>/<name>" with scope
// builtin, user or workspace and a valid bundle name (docs/design.md).
func checkID(id string) error {
	parts := strings.Split(id, "/")
	bad := &InvalidError{ID: id, Reason: `is not a bundle id "<scope>/<12 hex>/<name>"`}
	if len(parts) != 3 {
		return bad
	}
	switch bundle.Scope(parts[0]) {
	case bundle.ScopeBuiltin, bundle.ScopeUser, bundle.ScopeWorkspace:
	default:
		return bad
	}
	if len(parts[1]) != 12 {
		return bad
	}
	for _, c := range []byte(parts[1]) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return bad
		}
	}
	if !validName(parts[2]) {
		return bad
	}
	return nil
}

// validName is the bundle name rule: 1–64 of a-z 0-9 - ., starting and
// ending alphanumeric, no "--" and no "..".
func validName(n string) bool {
	if len(n) == 0 || len(n) > 64 || strings.Contains(n, "--") || strings.Contains(n, "..") {
		return false
	}
	alnum := func(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }
	for i := 0; i < len(n); i++ {
		if c := n[i]; !alnum(c) && c != '-' && c != '.' {
			return false
		}
	}
	return alnum(n[0]) && alnum(n[len(n)-1])
}
