package params

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// AnyObject is the schema of a tool without params.
var AnyObject = json.RawMessage(`{"type":"object"}`)

// Drafts the schema may name in $schema ("" means 2020-12).
var drafts = map[string]bool{
	"": true,
	"https://json-schema.org/draft/2020-12/schema": true,
	"http://json-schema.org/draft-07/schema#":      true,
	"http://json-schema.org/draft-07/schema":       true,
}

var typeNames = map[string]bool{
	"null": true, "boolean": true, "object": true, "array": true, "number": true, "string": true, "integer": true,
}

// Error is a params schema that is not usable.
type Error struct{ Reason string }

func (e *Error) Error() string { return e.Reason }

// Check decodes raw as a params schema and returns its canonical JSON
// (keys sorted, numbers as written). It refuses what would not compile or
// could reach outside the schema, without compiling any pattern.
func Check(raw json.RawMessage) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, &Error{"not valid JSON"}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &Error{"more than one JSON value"}
	}
	root, ok := doc.(map[string]any)
	if !ok {
		return nil, &Error{"must be a JSON object"}
	}
	if s, _ := root["$schema"].(string); !drafts[s] {
		return nil, &Error{fmt.Sprintf("$schema %q refused: a params schema is draft 2020-12 or draft-07, and no other metaschema is ever loaded", s)}
	}
	if err := walk(root, "", 0); err != nil {
		return nil, err
	}
	if err := checkCycles(root); err != nil {
		return nil, err
	}
	var sch jsonschema.Schema
	if err := json.Unmarshal(raw, &sch); err != nil {
		return nil, &Error{"a keyword has the wrong type: " + unmarshalText(err)}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, &Error{err.Error()}
	}
	return json.RawMessage(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}

const maxDepth = 200

// position says what the keys of a JSON object in the schema are.
type position int

const (
	schemaKeys position = iota // keywords of a subschema
	nameKeys                   // names (of properties, definitions) whose values are subschemas
	dataKeys                   // a value (const, enum, default, examples), not a schema
)

// namesOf are the keywords whose value maps names to subschemas, and
// dataOf those whose value is data, not a schema.
var (
	namesOf = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "definitions": true, "dependentSchemas": true, "dependencies": true}
	dataOf  = map[string]bool{"const": true, "enum": true, "default": true, "examples": true, "dependentRequired": true, "$vocabulary": true}
)

// keywords are the names the validator reads, so that a key that is one
// of them in another letter case can be refused: Go's decoder matches
// them case-insensitively where checkCycles and the review do not, and a
// "$REF" or "AnyOF" would slip a loop past the cycle check.
var keywords = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, k := range strings.Fields(`$anchor $comment $defs $dynamicAnchor $dynamicRef $id $ref $schema $vocabulary
		additionalItems additionalProperties allOf anyOf const contains contentEncoding contentMediaType contentSchema
		default definitions dependencies dependentRequired dependentSchemas deprecated description else enum examples
		exclusiveMaximum exclusiveMinimum format if items maxContains maxItems maxLength maxProperties maximum minContains
		minItems minLength minProperties minimum multipleOf not oneOf pattern patternProperties prefixItems properties
		propertyNames readOnly required then title type unevaluatedItems unevaluatedProperties uniqueItems writeOnly`) {
		m[strings.ToLower(k)] = k
	}
	return m
})

// walk checks every subschema: type names, parseable patterns, local
// references only, keywords in their own letter case.
func walk(v any, at string, depth int) error {
	return walkAt(v, at, depth, schemaKeys)
}

func walkAt(v any, at string, depth int, pos position) error {
	if depth > maxDepth {
		return &Error{"nested too deep"}
	}
	switch x := v.(type) {
	case []any:
		for i, e := range x {
			if err := walkAt(e, fmt.Sprintf("%s/%d", at, i), depth+1, pos); err != nil {
				return err
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			e := x[k]
			p := at + "/" + k
			inner := pos
			switch pos {
			case schemaKeys:
				if err := checkKeyword(k, e, p); err != nil {
					return err
				}
				switch {
				case namesOf[k]:
					inner = nameKeys
				case dataOf[k]:
					inner = dataKeys
				}
			case nameKeys:
				inner = schemaKeys
			}
			if err := walkAt(e, p, depth+1, inner); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkKeyword checks one keyword k of a subschema, its value e at p.
func checkKeyword(k string, e any, p string) error {
	if want, ok := keywords()[strings.ToLower(k)]; ok && want != k {
		return &Error{fmt.Sprintf("%s refused: the keyword is %q; written in another letter case it is read as %q by the validator but not by the review", p, want, want)}
	}
	switch k {
	case "type":
		return checkType(e, p)
	case "pattern":
		if s, ok := e.(string); ok {
			if _, err := syntax.Parse(s, syntax.Perl); err != nil {
				return &Error{fmt.Sprintf("%s is not a valid regular expression", p)}
			}
		}
	case "patternProperties":
		if m, ok := e.(map[string]any); ok {
			for re := range m {
				if _, err := syntax.Parse(re, syntax.Perl); err != nil {
					return &Error{fmt.Sprintf("a key of %s is not a valid regular expression", p)}
				}
			}
		}
	case "$ref", "$dynamicRef":
		if s, ok := e.(string); ok && !strings.HasPrefix(s, "#") {
			return &Error{fmt.Sprintf("%s refused: it refers outside the schema, and bundlectl never loads a schema from a URL or file", p)}
		}
	case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains":
		if n, ok := e.(json.Number); ok && strings.HasPrefix(n.String(), "-") {
			return &Error{fmt.Sprintf("%s must not be negative", p)}
		}
	case "$id":
		return &Error{fmt.Sprintf("%s: a params schema is anonymous; $id is not allowed", p)}
	}
	return nil
}

// inPlace are the keywords whose subschemas apply to the same instance as
// the schema holding them.
var inPlace = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true, "not": true, "if": true, "then": true, "else": true, "dependentSchemas": true}

// checkCycles refuses a schema in which references lead back to where they
// started without descending into the input (a "$ref" to itself, or a
// ring of them through allOf and the like): a validator would recurse
// forever on any input. Recursion through properties or items is fine:
// each step consumes part of the input.
func checkCycles(root map[string]any) error {
	anchors := map[string]string{}
	nodes := map[string]map[string]any{}
	var collect func(v any, at string)
	collect = func(v any, at string) {
		switch x := v.(type) {
		case map[string]any:
			nodes[at] = x
			if a, ok := x["$anchor"].(string); ok {
				anchors[a] = at
			}
			for k, e := range x {
				collect(e, at+"/"+escapePointer(k))
			}
		case []any:
			for i, e := range x {
				collect(e, fmt.Sprintf("%s/%d", at, i))
			}
		}
	}
	collect(root, "")
	// same lists, for each schema, the schemas it applies to the same
	// instance: its reference targets and its in-place subschemas.
	same := func(at string) []string {
		n := nodes[at]
		var out []string
		for _, k := range []string{"$ref", "$dynamicRef"} {
			if ref, ok := n[k].(string); ok {
				target := strings.TrimPrefix(ref, "#")
				if !strings.HasPrefix(target, "/") && target != "" {
					target = anchors[target]
				}
				out = append(out, unescapeRef(target))
			}
		}
		for k, e := range n {
			if !inPlace[k] {
				continue
			}
			switch x := e.(type) {
			case map[string]any:
				out = append(out, at+"/"+k)
			case []any:
				for i := range x {
					out = append(out, fmt.Sprintf("%s/%s/%d", at, k, i))
				}
			}
		}
		return out
	}
	const (
		unseen = iota
		onPath
		done
	)
	state := map[string]int{}
	var visit func(at string, depth int) error
	visit = func(at string, depth int) error {
		if depth > 10000 {
			return &Error{"references nest too deep"}
		}
		switch state[at] {
		case onPath:
			return &Error{"its references form a cycle that never descends into the input (" + at + "); a validator would loop forever"}
		case done:
			return nil
		}
		state[at] = onPath
		for _, next := range same(at) {
			if _, ok := nodes[next]; !ok {
				continue // a boolean schema, or a reference the resolver refuses
			}
			if err := visit(next, depth+1); err != nil {
				return err
			}
		}
		state[at] = done
		return nil
	}
	for at := range nodes {
		if err := visit(at, 0); err != nil {
			return err
		}
	}
	return nil
}

func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// unescapeRef turns a reference's JSON pointer into the form checkCycles
// keys nodes by (which keeps ~0 and ~1 escapes, and percent-decodes).
func unescapeRef(p string) string {
	if u, err := url.PathUnescape(p); err == nil {
		return u
	}
	return p
}

func checkType(v any, at string) error {
	switch t := v.(type) {
	case string:
		if typeNames[t] {
			return nil
		}
	case []any:
		ok := len(t) > 0
		for _, e := range t {
			s, isStr := e.(string)
			ok = ok && isStr && typeNames[s]
		}
		if ok {
			return nil
		}
	}
	return &Error{fmt.Sprintf("%s is not a JSON Schema type", at)}
}

func unmarshalText(err error) string {
	msg := err.Error()
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return te.Field
	}
	if i := strings.LastIndex(msg, "field "); i >= 0 {
		return msg[i:]
	}
	return "schema"
}

// Schema is a compiled params schema.
type Schema struct {
	rs *jsonschema.Resolved
	// doc is the schema decoded, to name what a failing rule allows.
	doc map[string]any
}

// Compile resolves a params schema for validation (empty params accept
// any JSON object). No reference outside the schema can be resolved.
func Compile(raw json.RawMessage) (*Schema, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = AnyObject
	}
	if _, err := Check(raw); err != nil {
		return nil, err
	}
	var sch jsonschema.Schema
	if err := json.Unmarshal(raw, &sch); err != nil {
		return nil, &Error{"a keyword has the wrong type: " + unmarshalText(err)}
	}
	rs, err := sch.Resolve(&jsonschema.ResolveOptions{BaseURI: "bundlectl:///params.json"})
	if err != nil {
		return nil, &Error{"does not resolve: " + sanitize(err.Error())}
	}
	var doc map[string]any
	_ = json.Unmarshal(raw, &doc) // Check decoded it already
	return &Schema{rs: rs, doc: doc}, nil
}

// Problem is where an input breaks the schema: the schema location and
// the rule, never the input's value.
type Problem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Validate applies s to the decoded input v. It returns nil or the first
// problem found.
func (s *Schema) Validate(v any) *Problem {
	err := s.rs.Validate(v)
	if err == nil {
		return nil
	}
	return s.describe(err.Error())
}

var (
	locationRE = lazyRegexp(`validating ([^:]*): `)
	typeWantRE = lazyRegexp(`has type "([a-z]+)", want (.+)$`)
	missingRE  = lazyRegexp(`^required: missing properties: (\[.*\])$`)
	patternRE  = lazyRegexp(`does not match regular expression ("(?:[^"\\]|\\.)*")$`)
)

// describe turns the library's message into a Problem that repeats no
// input value: it keeps the schema location, the keyword, and what the
// schema wants.
func (s *Schema) describe(msg string) *Problem {
	p := &Problem{}
	rest := msg
	var locations []string
	for {
		m := locationRE().FindStringSubmatchIndex(rest)
		if m == nil || m[0] != 0 {
			break
		}
		locations = append(locations, rest[m[2]:m[3]])
		rest = rest[m[1]:]
	}
	schemaPath := ""
	if len(locations) > 0 {
		schemaPath = locations[len(locations)-1]
	}
	p.Path = inputPath(locations)
	keyword, detail, _ := strings.Cut(rest, ": ")
	switch {
	case keyword == "type":
		if m := typeWantRE().FindStringSubmatch(detail); m != nil {
			p.Message = "got " + m[1] + ", want " + m[2]
		}
	case keyword == "required":
		if m := missingRE().FindStringSubmatch(rest); m != nil {
			p.Message = "missing required properties " + m[1]
		}
	case keyword == "pattern":
		if m := patternRE().FindStringSubmatch(detail); m != nil {
			p.Message = "does not match pattern " + m[1]
		}
	case strings.HasPrefix(keyword, "unexpected additional properties"):
		// The input's own names are not repeated (a key may be what
		// the user must not see echoed); the schema's are.
		p.Message = "has properties the schema does not allow"
		if names := s.allowedProperties(schemaPath); names != "" {
			p.Message += " (it allows " + names + ")"
		}
	}
	if p.Message == "" {
		p.Message = "breaks the schema's " + fmt.Sprintf("%q", firstWord(keyword)) + " rule"
	}
	p.Message = sanitize(p.Message)
	p.Path = sanitize(p.Path)
	return p
}

// allowedProperties lists the property names the schema declares at
// schemaPath, as `"a", "b"`, or "" where it declares none or the path
// does not lead to an object of the schema.
func (s *Schema) allowedProperties(schemaPath string) string {
	node := schemaAt(s.doc, schemaPath)
	props, _ := node["properties"].(map[string]any)
	if len(props) == 0 {
		return ""
	}
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, fmt.Sprintf("%q", name))
	}
	sort.Strings(names)
	if len(names) > maxAllowedNamed {
		names = append(names[:maxAllowedNamed], fmt.Sprintf("and %d more", len(names)-maxAllowedNamed))
	}
	return "only " + strings.Join(names, ", ")
}

// maxAllowedNamed bounds how many allowed names a problem lists.
const maxAllowedNamed = 8

// schemaAt follows a schema location ("root", "/properties/o/items") from
// doc, or returns nil where it leads nowhere.
func schemaAt(doc map[string]any, schemaPath string) map[string]any {
	var node any = doc
	if schemaPath != "root" && schemaPath != "" {
		for _, seg := range strings.Split(strings.TrimPrefix(schemaPath, "/"), "/") {
			seg = pointerToken.Replace(seg)
			switch n := node.(type) {
			case map[string]any:
				node = n[seg]
			case []any:
				i, err := strconv.Atoi(seg)
				if err != nil || i < 0 || i >= len(n) {
					return nil
				}
				node = n[i]
			default:
				return nil
			}
		}
	}
	m, _ := node.(map[string]any)
	return m
}

// pointerToken undoes a JSON pointer token's escapes.
var pointerToken = strings.NewReplacer("~1", "/", "~0", "~")

// inputPath turns the chain of schema locations the library reports, from
// the root to the failing keyword, into the input location: where a
// location does not extend the one before, the schema followed a $ref,
// and the input path so far is kept and the rest read from the target.
func inputPath(locations []string) string {
	path, frame, prev := "", "", ""
	for _, loc := range locations {
		if loc == "root" {
			loc = ""
		}
		if !strings.HasPrefix(loc, prev) {
			path += instancePath(strings.TrimPrefix(prev, frame))
			frame = loc
		}
		prev = loc
	}
	return path + instancePath(strings.TrimPrefix(prev, frame))
}

// instancePath turns the schema location of the failing keyword into the
// input location it applies to, as far as the schema says: "/properties/x"
// is the input's "/x"; an array item is "/*" (the library does not say
// which item).
func instancePath(schemaPath string) string {
	if schemaPath == "root" || schemaPath == "" {
		return ""
	}
	parts := strings.Split(strings.TrimPrefix(schemaPath, "/"), "/")
	var out []string
	for i := 0; i < len(parts); i++ {
		switch parts[i] {
		case "properties", "patternProperties":
			if i+1 < len(parts) {
				out = append(out, parts[i+1])
				i++
			}
		case "items", "prefixItems", "additionalProperties", "contains":
			out = append(out, "*")
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "/" + strings.Join(out, "/")
}

func firstWord(s string) string {
	if i := strings.IndexAny(s, " \n"); i >= 0 {
		return s[:i]
	}
	return s
}

// sanitize drops control and bidirectional characters and bounds length.
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c {
			b.WriteString(fmt.Sprintf("\\u%04x", r))
			continue
		}
		b.WriteRune(r)
	}
	out := b.String()
	if len(out) > 200 {
		out = out[:200] + "…"
	}
	return out
}
