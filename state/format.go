package state

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/internal/jsonobj"
	"github.com/bundlectl/bundlectl/receipts"
)

// MaxFileSize bounds state.json. With the audit bounded, the file grows only
// with the number of bundles; anything larger is refused as malformed
// rather than read into memory.
const MaxFileSize = 64 << 20

// file is the on-disk shape of state.json, schema 3 (docs/state.md): the
// records, then every bundle's audit trail, so that a reader of the
// current decisions (LoadCurrent) stops before the trails.
type file struct {
	SchemaVersion int                    `json:"schema_version"`
	Generation    uint64                 `json:"generation"`
	Bundles       map[string]*diskRecord `json:"bundles"`
	Audit         map[string][]Event     `json:"audit"`
}

// diskRecord is a Record as schema 3 stores it: without its audit trail.
type diskRecord struct {
	Enabled    bool              `json:"enabled"`
	Receipt    *receipts.Receipt `json:"receipt"`
	Generation uint64            `json:"generation"`
	Off        []Switch          `json:"off,omitempty"`
	Source     json.RawMessage   `json:"source,omitempty"`
}

func (d *diskRecord) record(audit []Event) *Record {
	return &Record{Enabled: d.Enabled, Receipt: d.Receipt, Generation: d.Generation, Audit: audit, Off: d.Off, Source: d.Source}
}

// fileV2 is the shape of schemas 1 and 2: each record holds its trail.
type fileV2 struct {
	SchemaVersion int                `json:"schema_version"`
	Generation    uint64             `json:"generation"`
	Bundles       map[string]*Record `json:"bundles"`
}

// currentFileV2 is fileV2 with each audit trail left undecoded (for
// LoadCurrent of a file an earlier bundlectl wrote).
type currentFileV2 struct {
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

// readsVersion reports whether this bundlectl reads schema_version v.
func readsVersion(v int) bool { return v >= 1 && v <= SchemaVersion }

// fileVersion returns data's schema_version, or a reason when data is not
// a JSON object with a supported one.
func fileVersion(data []byte) (int, error) {
	var h header
	if err := json.Unmarshal(data, &h); err != nil {
		return 0, errors.New(jsonReason(data, err, func(b []byte) error { return json.Unmarshal(b, &header{}) }))
	}
	if h.SchemaVersion == nil {
		return 0, errors.New("schema_version is missing")
	}
	var v int
	if err := json.Unmarshal(*h.SchemaVersion, &v); err != nil || !readsVersion(v) {
		return 0, errUnsupported{}
	}
	return v, nil
}

// errUnsupported is parse's reason for a schema_version this bundlectl
// does not read; its hint differs from other malformed state.
type errUnsupported struct{}

func (errUnsupported) Error() string {
	return fmt.Sprintf("unsupported schema_version (this bundlectl reads 1 to %d)", SchemaVersion)
}

var errTrailing = errors.New("trailing data after the JSON object")

// parse decodes and validates state.json bytes. The returned error is a
// reason (no path, no stored value) for a *MalformedError. With audit
// false (LoadCurrent) the audit trails are not decoded or checked: in a
// schema 3 file the reader stops before them; in an older one each must
// be a JSON array. A schema 3 file is read in one strict pass (parseV3);
// anything that pass does not accept is decoded whole, by its version,
// for the verdict and a message with a line and column.
func parse(data []byte, audit bool) (*State, error) {
	if s, ok := parseV3(data, audit); ok {
		return s, nil
	}
	// The strict decoding of the whole file, by its version. Schema 3
	// comes first: it is what this bundlectl writes.
	var (
		f3  file
		f2  fileV2
		cf2 currentFileV2
	)
	err := decodeStrict(data, &f3)
	version := 3
	if err != nil || f3.SchemaVersion != 3 {
		v, verr := fileVersion(data)
		if verr != nil {
			return nil, verr
		}
		version = v
	}
	if version != 3 {
		if audit {
			err = decodeStrict(data, &f2)
		} else {
			err = decodeStrict(data, &cf2)
		}
	}
	if err != nil {
		if err == errTrailing {
			return nil, err
		}
		decode := func(b []byte) error { return decodeStrict(b, &file{}) }
		switch {
		case version != 3 && audit:
			decode = func(b []byte) error { return decodeStrict(b, &fileV2{}) }
		case version != 3:
			decode = func(b []byte) error { return decodeStrict(b, &currentFileV2{}) }
		}
		return nil, errors.New(jsonReason(data, err, decode))
	}
	var (
		generation uint64
		records    map[string]*Record
	)
	switch {
	case version == 3:
		generation, records = f3.Generation, make(map[string]*Record, len(f3.Bundles))
		for id, d := range f3.Bundles {
			if d == nil {
				records[id] = nil
				continue
			}
			trail := f3.Audit[id] // nil when missing or null: checkRecord says so
			if !audit {
				trail = []Event{} // not checked; checkRecord skips it
			}
			records[id] = d.record(trail)
		}
		if audit {
			for id := range f3.Audit {
				if _, ok := f3.Bundles[id]; !ok {
					return nil, fmt.Errorf("audit[%s] is the trail of no bundle in bundles", quote(id))
				}
			}
		}
		// The decoder keeps the last of two equal keys, parseV3 stops at
		// the first: a key given twice is malformed, for both readers.
		if err := topLevelOnce(data); err != nil {
			return nil, err
		}
	case audit:
		generation, records = f2.Generation, f2.Bundles
	default:
		generation, records = cf2.Generation, make(map[string]*Record, len(cf2.Bundles))
		for id, cr := range cf2.Bundles {
			if cr == nil {
				records[id] = nil
				continue
			}
			if len(cr.Audit) == 0 || cr.Audit[0] != '[' {
				return nil, fmt.Errorf("bundles[%s].audit is not an array", quote(id))
			}
			r := cr.Record
			r.Audit = []Event{} // not decoded; checkRecord skips it
			records[id] = &r
		}
	}
	return build(generation, records, audit)
}

// topLevelOnce checks that no key of the top-level object of data (one
// valid JSON object) appears twice.
func topLevelOnce(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return err
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := t.(string)
		if seen[key] {
			return fmt.Errorf("the key %s appears twice", quote(key))
		}
		seen[key] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	return nil
}

// decodeStrict decodes data, one JSON value with nothing after it, into v
// refusing unknown fields.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errTrailing
	}
	return nil
}

// build checks the records and makes the State.
func build(generation uint64, records map[string]*Record, audit bool) (*State, error) {
	s := &State{generation: generation, bundles: make(map[string]*Record, len(records))}
	for id, b := range records {
		if err := checkRecord(id, b, generation, audit); err != nil {
			return nil, err
		}
		if b.Receipt != nil {
			// The compact form is the exact bytes the capability hash was
			// computed over (an earlier bundlectl stored it indented).
			var inv bytes.Buffer
			if err := json.Compact(&inv, b.Receipt.Inventory); err != nil {
				return nil, fmt.Errorf("bundles[%s].receipt: receipt inventory is not valid JSON", quote(id))
			}
			b.Receipt.Inventory = inv.Bytes()
		}
		b.ID = id
		s.bundles[id] = b
	}
	return s, nil
}

// parseV3 reads a schema 3 file in one strict pass over its top-level
// keys, in any order: schema_version, generation, bundles and, with
// audit, the trails, then nothing but the end of input. Without audit
// (LoadCurrent) it stops at the key "audit" once the other three are
// read: the trails are not decoded, but the file must end as marshal ends
// it (endsObject), so that a truncated file is refused. What lies between
// the key and the end is Load's to check. ok is false when the file is
// anything else — another schema, a key given twice or unknown, an error
// of any kind — and parse then decodes it whole, for the verdict and its
// message.
func parseV3(data []byte, audit bool) (*State, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	var (
		version    int
		generation uint64
		bundles    map[string]*diskRecord
		trails     map[string][]Event
		seen       = map[string]bool{}
	)
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, _ := t.(string)
		if seen[key] {
			return nil, false
		}
		seen[key] = true
		switch key {
		case "schema_version":
			err = dec.Decode(&version)
		case "generation":
			err = dec.Decode(&generation)
		case "bundles":
			err = dec.Decode(&bundles)
		case "audit":
			if !audit {
				if len(seen) != 4 || !endsObject(data) {
					// The trails before what they follow, or an end
					// marshal does not write (a truncated file): read
					// whole, which refuses what Load refuses.
					return nil, false
				}
				return v3State(version, generation, bundles, nil, false)
			}
			err = dec.Decode(&trails)
		default:
			return nil, false
		}
		if err != nil {
			return nil, false
		}
	}
	if len(seen) != 4 {
		return nil, false
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return v3State(version, generation, bundles, trails, audit)
}

// endsObject reports whether data ends as marshal ends a file: the last
// trail's "]" (or an empty audit's "{"), then "}}" and white space. An
// event holds no array, so a cut inside the trails ends so only just
// after "]}}" inside a string (a snapshot path holding those characters);
// a file laid out another way is read whole.
func endsObject(data []byte) bool {
	d := bytes.TrimRight(data, " \t\r\n")
	return bytes.HasSuffix(d, []byte("]}}")) || bytes.HasSuffix(d, []byte("{}}"))
}

// v3State checks and builds what parseV3 read; ok is false on any fault.
func v3State(version int, generation uint64, bundles map[string]*diskRecord, trails map[string][]Event, audit bool) (*State, bool) {
	if version != 3 {
		return nil, false
	}
	records := make(map[string]*Record, len(bundles))
	for id, d := range bundles {
		if d == nil {
			return nil, false
		}
		trail := []Event{} // not read; checkRecord skips it
		if audit {
			trail = trails[id]
		}
		records[id] = d.record(trail)
	}
	if audit {
		for id := range trails {
			if _, ok := bundles[id]; !ok {
				return nil, false
			}
		}
	}
	s, err := build(generation, records, audit)
	return s, err == nil
}

// checkRecord enforces the invariants of docs/state.md on one bundle; with
// audit false, those of everything but its audit trail.
func checkRecord(id string, b *Record, global uint64, audit bool) error {
	at := func() string { return "bundles[" + quote(id) + "]" } // only on error: this runs before every hook
	if err := checkID(id); err != nil {
		return fmt.Errorf("%s: key is not a bundle id", at())
	}
	if b == nil {
		return fmt.Errorf("%s is null", at())
	}
	if b.Generation == 0 {
		return fmt.Errorf("%s.generation is 0 (a recorded bundle has at least one transition)", at())
	}
	if b.Generation > global {
		return fmt.Errorf("%s.generation exceeds the global generation", at())
	}
	if r := b.Receipt; r != nil {
		if err := checkReceipt(id, r); err != nil {
			return fmt.Errorf("%s.receipt: %s", at(), err.(*InvalidError).Reason)
		}
		if r.Generation == 0 || r.Generation > b.Generation {
			return fmt.Errorf("%s.receipt.generation is outside 1..%d", at(), b.Generation)
		}
	}
	if b.Audit == nil {
		return fmt.Errorf("%s.audit is missing", at())
	}
	for i, sw := range b.Off {
		if !validSwitch(sw.Kind, sw.Name) {
			return fmt.Errorf("%s.off[%d] is not a component switch", at(), i)
		}
	}
	if b.Source != nil && !json.Valid(b.Source) {
		return fmt.Errorf("%s.source is not valid JSON", at())
	}
	if !audit {
		return nil
	}
	if len(b.Audit) > AuditLimit {
		return fmt.Errorf("%s.audit has %d events, more than %d", at(), len(b.Audit), AuditLimit)
	}
	var prev uint64
	for i, e := range b.Audit {
		ea := func() string { return fmt.Sprintf("%s.audit[%d]", at(), i) } // only on error: this loop runs before every hook
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
		return fmt.Errorf("%s: the last audit event is not at the bundle's generation", at())
	}
	return nil
}

// marshal encodes s as state.json: compact (the file is read before
// every hook and tool call, and the decoder's cost is per byte; an
// indented file is a third whitespace), keys in a fixed order, no HTML
// escaping (receipt inventories must keep their exact bytes), one
// newline at the end.
func (s *State) marshal() ([]byte, error) {
	f := file{SchemaVersion: SchemaVersion, Generation: s.generation,
		Bundles: make(map[string]*diskRecord, len(s.bundles)), Audit: make(map[string][]Event, len(s.bundles))}
	for id, r := range s.bundles {
		f.Bundles[id] = &diskRecord{Enabled: r.Enabled, Receipt: r.Receipt, Generation: r.Generation, Off: r.Off, Source: r.Source}
		if f.Audit[id] = r.Audit; r.Audit == nil {
			f.Audit[id] = []Event{}
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// jsonValueKind is the kind of value an UnmarshalTypeError describes,
// without the value encoding/json adds for a number that does not fit
// ("number 99999999999999999999"): errors never echo stored values.
func jsonValueKind(v string) string {
	kind, _, _ := strings.Cut(v, " ")
	return kind
}

// jsonReason turns a decoding error into a message with a line and column
// and without echoing stored values.
func jsonReason(data []byte, err error, decode func([]byte) error) string {
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
		return fmt.Sprintf("the file holds a JSON %s, want an object", jsonValueKind(typ.Value))
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "truncated JSON"
	}
	// encoding/json names a field without the map keys on its way (which
	// bundle), and a value's own decoder (a digest, a time) names none:
	// find the member that fails alone.
	field := failingMember(data, decode)
	if errors.As(err, &typ) {
		if field == "" {
			field = bundle.Sanitize(typ.Field)
		}
		return fmt.Sprintf("field %s at %s: got a JSON %s, want %s", field, position(data, typ.Offset), jsonValueKind(typ.Value), jsonKind(typ.Type))
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		if i := strings.LastIndexAny(field, ".["); i > 0 {
			return "unknown field " + bundle.Sanitize(f) + " in " + field[:i]
		}
		return "unknown field " + bundle.Sanitize(f)
	}
	// Errors from the digest and token parsers name the problem, not the
	// value; a time's would quote it.
	var te *time.ParseError
	if errors.As(err, &te) {
		msg = "not an RFC 3339 time"
	}
	msg = bundle.Sanitize(strings.TrimPrefix(msg, "json: "))
	if field != "" {
		return "field " + field + ": " + msg
	}
	return msg
}

// failingMember returns the path (bundles["id"].receipt.content_hash) of
// the innermost member of the JSON object data that decode refuses when
// it is the only member on its way, or "" when none is refused alone.
// Only an error path calls it: it decodes once per member it tries.
func failingMember(data []byte, decode func([]byte) error) string {
	return memberPath("", data, decode)
}

func memberPath(parent string, data []byte, decode func([]byte) error) string {
	ms, ok := jsonobj.Members(data)
	if !ok {
		return ""
	}
	for _, m := range ms {
		key, _ := json.Marshal(m.Key)
		wrap := func(v []byte) []byte {
			return append(append(append(append([]byte{'{'}, key...), ':'), v...), '}')
		}
		if decode(wrap(m.Val)) == nil {
			continue
		}
		path := bundle.FieldPath(parent, m.Key)
		if inner := memberPath(path, m.Val, func(v []byte) error { return decode(wrap(v)) }); inner != "" {
			return inner
		}
		return path
	}
	return ""
}

func jsonKind(t reflect.Type) string {
	if reflect.PointerTo(t).Implements(reflect.TypeFor[encoding.TextUnmarshaler]()) {
		return "a string" // a digest, a token, a time
	}
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
