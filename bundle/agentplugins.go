package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Agent Plugins v1.0.0 (agent-plugins.org) identifiers. No schema is ever
// fetched: these strings only select the rules built into this package.
const (
	PluginSchemaV1 = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"
	MCPSchemaV1    = "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json"
	// ManifestMCP is the fixed location of MCP server configuration.
	ManifestMCP = "mcp.json"
	// Namespace is bundlectl's extension namespace: manifest data under
	// extensions["dev.bundlectl"], files under the directory dev.bundlectl/.
	Namespace = "dev.bundlectl"
)

// pluginFields are the only top-level fields of plugin.json (§5.2).
var pluginFields = map[string]bool{
	"$schema": true, "name": true, "version": true, "description": true,
	"author": true, "homepage": true, "repository": true, "license": true,
	"keywords": true, "extensions": true,
}

// parseAgentPlugins fills b from a plugin.json and then reads mcp.json and
// the dev.bundlectl extension. Violations of the closed manifest schema are
// Error findings (§5.2: the plugin is rejected); an unknown top-level field
// and a non-object extensions are Warnings and are ignored.
func parseAgentPlugins(b *Bundle, data []byte) {
	root, err := parseJSONValue(data)
	if err != nil {
		reportJSONError(b, ManifestJSON, err, Error, "manifest.json")
		return
	}
	if root.kind != jsonObject {
		b.Report.Errorf(ManifestJSON, "manifest.not-object", "the manifest must be a JSON object, not %s", root.kind)
		return
	}
	if !checkPluginSchema(b, root) {
		// Without a supported $schema no other rule applies (§5.2).
		return
	}
	checkPluginName(b, root)
	for _, k := range root.keys {
		if !pluginFields[k] {
			b.Report.Warnf(fieldPath(ManifestJSON+":", k), "manifest.unknown-field", "unknown top-level field %s is ignored", Quote(k))
			b.Ignored = append(b.Ignored, EscapePath(k)) // safe to print as is
		}
	}
	readMetadata(b, root)
	ext, hasExt := root.obj["extensions"]
	var ours *jsonValue
	if hasExt {
		ours = readExtensions(b, ext)
	}
	if b.Rejected() {
		// A rejected plugin's components are never discovered (§5.2).
		return
	}
	mcp := loadMCPJSON(b)
	if ours != nil {
		parseExtension(b, ours, mcp)
	}
}

func checkPluginSchema(b *Bundle, root *jsonValue) bool {
	v, ok := root.obj["$schema"]
	path := ManifestJSON + ": $schema"
	switch {
	case !ok:
		b.Report.Errorf(path, "manifest.schema", "required field $schema is missing")
	case v.kind != jsonString:
		b.Report.Errorf(path, "manifest.schema", "$schema must be a string, not %s", v.kind)
	case v.str == "":
		b.Report.Errorf(path, "manifest.schema", "required field $schema is empty")
	case v.str != PluginSchemaV1:
		b.Report.Errorf(path, "manifest.unsupported-version", "unsupported agent plugins version %s; bundlectl supports %s", Quote(v.str), Quote(PluginSchemaV1))
	default:
		return true
	}
	return false
}

func checkPluginName(b *Bundle, root *jsonValue) {
	v, ok := root.obj["name"]
	path := ManifestJSON + ": name"
	switch {
	case !ok:
		b.Report.Errorf(path, "manifest.name", "required field name is missing")
	case v.kind != jsonString:
		b.Report.Errorf(path, "manifest.name", "name must be a string, not %s", v.kind)
	case v.str == "":
		b.Report.Errorf(path, "manifest.name", "required field name is empty")
	default:
		if msg := pluginNameProblem(v.str); msg != "" {
			b.Report.Errorf(path, "manifest.name", "name %s %s", Quote(v.str), msg)
		} else if v.str != b.Name {
			b.Report.Errorf(path, "manifest.name-mismatch", "name %s does not equal the bundle directory name %s", Quote(v.str), Quote(b.Name))
		}
	}
}

// pluginNameProblem applies the Agent Plugins name rule (§5.5): 1–64 of
// a-z 0-9 - . , alphanumeric at both ends, no "--" and no "..".
func pluginNameProblem(s string) string {
	if s == "" || len(s) > 64 {
		return "must be 1 to 64 characters long"
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return "may contain only a-z, 0-9, \"-\" and \".\""
		}
	}
	if !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return "must start and end with a letter or digit"
	}
	if strings.Contains(s, "--") || strings.Contains(s, "..") {
		return "must not contain \"--\" or \"..\""
	}
	return ""
}

// componentNameProblem applies the Agent Skills name rule, which bundlectl
// also uses for tools, commands, agents and lsp servers: 1–64 of a-z 0-9
// and "-", no hyphen at either end, no "--".
func componentNameProblem(s string) string {
	if s == "" || len(s) > 64 {
		return "must be 1 to 64 characters long"
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return "may contain only a-z, 0-9 and \"-\""
		}
	}
	if s[0] == '-' || s[len(s)-1] == '-' {
		return "must not start or end with \"-\""
	}
	if strings.Contains(s, "--") {
		return "must not contain \"--\""
	}
	return ""
}

func isAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

func readMetadata(b *Bundle, root *jsonValue) {
	str := func(field string, dst *string) {
		v, ok := root.obj[field]
		if !ok {
			return
		}
		if v.kind != jsonString {
			b.Report.Errorf(ManifestJSON+": "+field, "manifest.field-type", "%s must be a string, not %s", field, v.kind)
			return
		}
		*dst = v.str
	}
	str("version", &b.Meta.Version)
	str("description", &b.Meta.Description)
	str("homepage", &b.Meta.Homepage)
	str("repository", &b.Meta.Repository)
	str("license", &b.Meta.License)
	if v, ok := root.obj["keywords"]; ok {
		if kw, ok := stringArray(v); ok {
			b.Meta.Keywords = kw
		} else {
			b.Report.Errorf(ManifestJSON+": keywords", "manifest.field-type", "keywords must be an array of strings")
		}
	}
	if v, ok := root.obj["author"]; ok {
		readAuthor(b, v)
	}
}

func readAuthor(b *Bundle, v *jsonValue) {
	path := ManifestJSON + ": author"
	if v.kind != jsonObject {
		b.Report.Errorf(path, "manifest.author", "author must be an object, not %s", v.kind)
		return
	}
	a := &Author{}
	for _, k := range v.keys {
		f := v.obj[k]
		var dst *string
		switch k {
		case "name":
			dst = &a.Name
		case "email":
			dst = &a.Email
		case "url":
			dst = &a.URL
		default:
			b.Report.Errorf(fieldPath(path, k), "manifest.author", "author may contain only name, email and url; %s is not allowed", Quote(k))
			continue
		}
		if f.kind != jsonString {
			b.Report.Errorf(fieldPath(path, k), "manifest.author", "author.%s must be a string, not %s", k, f.kind)
			continue
		}
		*dst = f.str
	}
	b.Meta.Author = a
}

// readExtensions applies §8.1: a non-object extensions is reported and
// ignored; every namespace value must be an object; namespaces other than
// dev.bundlectl are ignored without looking inside them. It returns the
// dev.bundlectl object, if any.
func readExtensions(b *Bundle, ext *jsonValue) *jsonValue {
	path := ManifestJSON + ": extensions"
	if ext.kind != jsonObject {
		b.Report.Warnf(path, "manifest.extensions-type", "extensions must be an object, not %s; it is ignored", ext.kind)
		b.Ignored = append(b.Ignored, "extensions")
		return nil
	}
	var ours *jsonValue
	for _, ns := range ext.keys {
		v := ext.obj[ns]
		if v.kind != jsonObject {
			b.Report.Errorf(fieldPath(path, ns), "manifest.extension-type", "the value of extension namespace %s must be an object, not %s", Quote(ns), v.kind)
			continue
		}
		if ns == Namespace {
			ours = v
		}
	}
	return ours
}

// ---- an order-preserving JSON reader ----
//
// encoding/json into maps loses member order (hooks run in manifest order)
// and silently keeps the last of duplicate keys, which two parsers may
// resolve differently; this reader keeps order and refuses duplicates.

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

func parseJSONValue(data []byte) (*jsonValue, error) {
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
	v, err := decodeJSON(dec, make([]jsonPathElem, 0, 16), 0)
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
			p = fieldPath(p, e.key)
		}
	}
	return p
}

func decodeJSON(dec *json.Decoder, stack []jsonPathElem, depth int) (*jsonValue, error) {
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
				if _, dup := v.obj[k]; dup {
					return nil, &jsonDuplicateError{Parent: spellPath(stack), Key: k}
				}
				child, err := decodeJSON(dec, append(stack, jsonPathElem{key: k, index: -1}), depth+1)
				if err != nil {
					return nil, err
				}
				v.keys = append(v.keys, k)
				v.obj[k] = child
			}
			if _, err := dec.Token(); err != nil { // '}'
				return nil, err
			}
			return v, nil
		case '[':
			v := &jsonValue{kind: jsonArray}
			for dec.More() {
				child, err := decodeJSON(dec, append(stack, jsonPathElem{index: len(v.arr)}), depth+1)
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
		b.Report.Errorf(fieldPath(parent, dup.Key), r, "%v", err)
		return true
	}
	b.Report.Add(sev, file, rule, "%v", err)
	return false
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

// fieldPath appends a member name to a finding path: ".name" for plain
// names, `["odd name"]` (escaped) for any other.
func fieldPath(parent, key string) string {
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

func indexPath(parent string, i int) string { return fmt.Sprintf("%s[%d]", parent, i) }
