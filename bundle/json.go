package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// The order-preserving JSON reader every JSON manifest reader uses.
//
// encoding/json into maps loses member order (hooks run in manifest order)
// and silently keeps the last of duplicate keys, which two parsers may
// resolve differently; this reader keeps order and refuses duplicates,
// except where a host's reader is known to keep the last (hostJSON).

type jsonKind uint8

const (
	jsonNull jsonKind = iota
	jsonBool
	jsonNumber
	jsonString
	jsonArray
	jsonObject
)

func (k jsonKind) String() string {
	return [...]string{"null", "a boolean", "a number", "a string", "an array", "an object"}[k]
}

type jsonValue struct {
	kind jsonKind
	b    bool
	str  string // string value, or the literal text of a number
	arr  []*jsonValue
	keys []string // object member names in document order
	obj  map[string]*jsonValue
}

// maxJSONDepth bounds nesting so that hostile input cannot exhaust the stack.
const maxJSONDepth = 64

// jsonSyntaxError reports malformed JSON by position only: the offending
// text is never echoed.
type jsonSyntaxError struct {
	Line, Col int
	Reason    string
}

func (e *jsonSyntaxError) Error() string {
	return fmt.Sprintf("not valid JSON at line %d, column %d: %s", e.Line, e.Col, e.Reason)
}

// jsonDuplicateError reports an object member name that occurs twice.
type jsonDuplicateError struct {
	Parent string // field path of the object, "" for the top level
	Key    string
}

func (e *jsonDuplicateError) Error() string {
	return fmt.Sprintf("member %s occurs more than once", Quote(e.Key))
}

// hostJSON says how a host's JSON reader takes a file, where it is more
// lenient than strict JSON with unique names.
type hostJSON struct {
	// skipBOM: the host drops a leading UTF-8 byte-order mark (Claude Code,
	// for .claude-plugin/plugin.json only). Everywhere else every host
	// refuses the file, and so does bundlectl.
	skipBOM bool
	// lastServer: a server name repeated in an MCP server map (mcpServers,
	// or mcpServers.mcpServers) takes the last definition, as the JSON
	// readers of Claude Code, Codex and Gemini CLI do
	// (internal/agenttest TestClaudeBOMAndDuplicateServer and its Codex and
	// Gemini CLI siblings). The name keeps its
	// first place in member order, as in JavaScript.
	lastServer bool
	// flatServers: the top-level object may itself be the server map
	// (an MCP file without mcpServers); its repeated names are accepted
	// as lastServer, and refused after the parse when the object has an
	// mcpServers member after all (hostMCPFile).
	flatServers bool
}

// jsonBOM is the UTF-8 byte-order mark.
const jsonBOM = "\uFEFF"

func parseJSONValue(data []byte) (*jsonValue, error) {
	v, _, err := parseHostJSON(data, hostJSON{})
	return v, err
}

// parseHostJSON parses data as a host reads it (h); dups are the server
// names it took the last definition of.
func parseHostJSON(data []byte, h hostJSON) (v *jsonValue, dups []*jsonDuplicateError, err error) {
	if bytes.HasPrefix(data, []byte(jsonBOM)) {
		if !h.skipBOM {
			// JSON forbids the mark (RFC 8259, 8.1); Codex and Gemini CLI
			// refuse every manifest so marked, Claude Code every file but
			// plugin.json: say so rather than "syntax error".
			return nil, nil, &jsonSyntaxError{1, 1, "the file starts with a UTF-8 byte-order mark, which JSON does not allow and the hosts do not read here: save it without the mark"}
		}
		data = data[len(jsonBOM):]
	}
	d := jsonDecoder{h: h}
	v, err = d.parse(data)
	return v, d.dups, err
}

// jsonDecoder is one parse: the host's leniency and what it let through.
type jsonDecoder struct {
	dec  *json.Decoder
	h    hostJSON
	dups []*jsonDuplicateError
}

func (d *jsonDecoder) parse(data []byte) (*jsonValue, error) {
	if !utf8.Valid(data) {
		off := 0
		for off < len(data) {
			r, n := utf8.DecodeRune(data[off:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			off += n
		}
		l, c := lineCol(data, off)
		return nil, &jsonSyntaxError{l, c, "invalid UTF-8"}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	d.dec = dec
	v, err := d.decode(make([]jsonPathElem, 0, 16), 0)
	if err == nil {
		if _, err2 := dec.Token(); err2 != io.EOF {
			err = errors.New("unexpected data after the top-level value")
		}
	}
	if err != nil {
		var dup *jsonDuplicateError
		if errors.As(err, &dup) {
			return nil, err
		}
		reason := "syntax error"
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			reason = "unexpected end of input"
		} else if err.Error() == "unexpected data after the top-level value" || err.Error() == "nesting is too deep" {
			reason = err.Error()
		}
		var se *json.SyntaxError
		off := int(dec.InputOffset())
		if errors.As(err, &se) {
			off = int(se.Offset)
		}
		l, c := lineCol(data, off)
		return nil, &jsonSyntaxError{l, c, reason}
	}
	return v, nil
}

// jsonPathElem is one step of the path to the value being decoded; the
// path is spelled out only for an error.
type jsonPathElem struct {
	key   string
	index int // -1 for an object member
}

func spellPath(stack []jsonPathElem) string {
	p := ""
	for _, e := range stack {
		if e.index >= 0 {
			p = indexPath(p, e.index)
		} else {
			p = FieldPath(p, e.key)
		}
	}
	return p
}

// serverMap reports whether the object at stack is an MCP server map
// whose repeated names the host resolves to the last.
func (d *jsonDecoder) serverMap(stack []jsonPathElem) bool {
	if !d.h.lastServer {
		return false
	}
	for _, e := range stack {
		if e.index >= 0 || e.key != "mcpServers" {
			return false
		}
	}
	return len(stack) == 1 || len(stack) == 2 || (len(stack) == 0 && d.h.flatServers)
}

func (d *jsonDecoder) decode(stack []jsonPathElem, depth int) (*jsonValue, error) {
	dec := d.dec
	if depth > maxJSONDepth {
		return nil, errors.New("nesting is too deep")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			v := &jsonValue{kind: jsonObject, obj: map[string]*jsonValue{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, errors.New("object key is not a string")
				}
				_, dup := v.obj[k]
				if dup && !d.serverMap(stack) {
					return nil, &jsonDuplicateError{Parent: spellPath(stack), Key: k}
				}
				child, err := d.decode(append(stack, jsonPathElem{key: k, index: -1}), depth+1)
				if err != nil {
					return nil, err
				}
				if dup {
					d.dups = append(d.dups, &jsonDuplicateError{Parent: spellPath(stack), Key: k})
				} else {
					v.keys = append(v.keys, k)
				}
				v.obj[k] = child
			}
			if _, err := dec.Token(); err != nil { // '}'
				return nil, err
			}
			return v, nil
		case '[':
			v := &jsonValue{kind: jsonArray}
			for dec.More() {
				child, err := d.decode(append(stack, jsonPathElem{index: len(v.arr)}), depth+1)
				if err != nil {
					return nil, err
				}
				v.arr = append(v.arr, child)
			}
			if _, err := dec.Token(); err != nil { // ']'
				return nil, err
			}
			return v, nil
		}
		return nil, errors.New("unexpected delimiter")
	case string:
		return &jsonValue{kind: jsonString, str: t}, nil
	case json.Number:
		return &jsonValue{kind: jsonNumber, str: string(t)}, nil
	case bool:
		return &jsonValue{kind: jsonBool, b: t}, nil
	case nil:
		return &jsonValue{kind: jsonNull}, nil
	}
	return nil, errors.New("unexpected token")
}

func lineCol(data []byte, off int) (line, col int) {
	if off > len(data) {
		off = len(data)
	}
	line = 1 + bytes.Count(data[:off], []byte{'\n'})
	col = off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

// reportJSONError records a parse failure of file with the given severity.
// A duplicate member is always an Error: JSON that two readers may resolve
// differently must never be trusted.
func reportJSONError(b *Bundle, file string, err error, sev Severity, rule string) bool {
	var dup *jsonDuplicateError
	if errors.As(err, &dup) {
		r := "json.duplicate-key"
		if file == ManifestMCP && dup.Parent == "mcpServers" {
			r = "mcp.duplicate-server"
		}
		parent := file + ":"
		if dup.Parent != "" {
			parent = file + ": " + dup.Parent
		}
		b.Report.Errorf(FieldPath(parent, dup.Key), r, "%v", err)
		return true
	}
	b.Report.Add(sev, file, rule, "%v", err)
	return false
}

// reportLastServers warns of each server name whose last definition the
// hosts take (hostJSON.lastServer), once per place.
func reportLastServers(b *Bundle, file string, dups []*jsonDuplicateError) {
	for _, d := range dups {
		parent := file + ":"
		if d.Parent != "" {
			parent = file + ": " + d.Parent
		}
		path := FieldPath(parent, d.Key)
		if slices.ContainsFunc(b.Report.Findings, func(f Finding) bool { return f.Path == path && f.Rule == "mcp.last-definition" }) {
			continue
		}
		b.Report.Warnf(path, "mcp.last-definition", "server %s is defined more than once; Claude Code, Codex and Gemini CLI start only the last definition, which is the one reviewed: delete the others", Quote(d.Key))
	}
}

// any returns v as the generic value encoding/json would produce with
// UseNumber, for the JSON Schema compiler and for canonical encoding.
func (v *jsonValue) any() any {
	switch v.kind {
	case jsonBool:
		return v.b
	case jsonNumber:
		return json.Number(v.str)
	case jsonString:
		return v.str
	case jsonArray:
		out := make([]any, len(v.arr))
		for i, e := range v.arr {
			out[i] = e.any()
		}
		return out
	case jsonObject:
		out := make(map[string]any, len(v.obj))
		for k, e := range v.obj {
			out[k] = e.any()
		}
		return out
	}
	return nil
}

// canonicalJSON encodes v compactly with sorted keys (struct fields too)
// and without HTML escaping, so equal declarations always hash equally.
func canonicalJSON(v any) json.RawMessage {
	switch v.(type) {
	case map[string]any, []any, string, json.Number, bool, nil:
	default:
		// Round-trip through the generic form so struct fields are sorted.
		raw, err := json.Marshal(v)
		if err != nil {
			return nil
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var generic any
		if err := dec.Decode(&generic); err != nil {
			return nil
		}
		v = generic
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil
	}
	return json.RawMessage(bytes.TrimRight(buf.Bytes(), "\n"))
}

func stringArray(v *jsonValue) ([]string, bool) {
	if v.kind != jsonArray {
		return nil, false
	}
	out := make([]string, 0, len(v.arr))
	for _, e := range v.arr {
		if e.kind != jsonString {
			return nil, false
		}
		out = append(out, e.str)
	}
	return out, true
}

// FieldPath appends a member name to a finding path: ".name" for plain
// names, `["odd name"]` (escaped) for any other.
func FieldPath(parent, key string) string {
	plain := key != ""
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == '$') {
			plain = false
			break
		}
	}
	if !plain {
		return parent + "[" + Quote(key) + "]"
	}
	switch {
	case parent == "":
		return key
	case strings.HasSuffix(parent, ":"):
		return parent + " " + key
	}
	return parent + "." + key
}

func indexPath(parent string, i int) string {
	if strings.HasSuffix(parent, ":") {
		return fmt.Sprintf("%s [%d]", parent, i) // "file: [0]", like "file: key"
	}
	return fmt.Sprintf("%s[%d]", parent, i)
}
