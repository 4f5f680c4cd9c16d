package hosts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/bundlectl/bundlectl/internal/jsonobj"
)

// JSON is a JSON value that keeps the order of object keys, so that
// bundlectl can add its entries to a user's configuration file without
// reordering what the user wrote. Numbers and strings keep their text. A
// document parsed from a file also keeps how it was written there, white
// space and comments, which Marshal writes back around what changed.
type JSON struct {
	Kind   JSONKind
	Keys   []string
	Fields map[string]*JSON
	Items  []*JSON
	Scalar json.RawMessage // string, number, true, false, null as written

	// lay is how a parsed object or array was written; doc, on the
	// document's value, what surrounds it in its file.
	lay *layout
	doc *document
}

// JSONKind is the kind of a JSON value.
type JSONKind int

const (
	JSONScalar JSONKind = iota
	JSONObject
	JSONArray
)

// JSONSyntax is what a host's own reader takes in a JSON settings file:
// setup edits what the host reads, and refuses what it does not.
type JSONSyntax int

const (
	// PlainJSON is what JSON.parse alone takes.
	PlainJSON JSONSyntax = iota
	// CommentedJSON is JSON with // and /* */ comments, which the host
	// blanks (strip-json-comments 3.1.1) before JSON.parse: so no trailing
	// comma, no byte order mark, and no character in a comment that
	// JavaScript takes for white space and JSON does not (commentSpace).
	CommentedJSON
)

// ParseJSON reads one plain JSON document (ParseJSONAs).
func ParseJSON(data []byte) (*JSON, error) { return ParseJSONAs(data, PlainJSON) }

// ParseJSONAs reads one JSON document written in syntax. An empty
// document (a file of white space, or of comments) is an empty object.
func ParseJSONAs(data []byte, syntax JSONSyntax) (*JSON, error) {
	return parseJSON(data, syntax, true)
}

func parseJSON(data []byte, syntax JSONSyntax, keepLayout bool) (*JSON, error) {
	text := data
	var comments []comment
	if syntax == CommentedJSON {
		comments = jsonComments(data)
		if err := commentSpace(data, comments); err != nil {
			return nil, err
		}
		text = blankComments(data, comments)
	}
	if len(bytes.Trim(text, " \t\r\n")) == 0 { // JSON's white space
		o := NewObject()
		if len(comments) > 0 && keepLayout {
			// Comments alone: kept above the object setup writes, which
			// an unclosed /* comment would swallow.
			if last := comments[len(comments)-1]; !last.line && !closed(data[last.start:last.end]) {
				return nil, &SyntaxError{Line: 1 + bytes.Count(data[:last.start], []byte("\n")), Err: errors.New("a /* comment that is not closed, and no JSON value before it")}
			}
			nl := newlineOf(data)
			o.doc = &document{lead: data, trail: []byte(nl), nl: nl, unit: "  ", indent: lineIndent(data, "")}
		}
		return o, nil
	}
	p := &parser{dec: json.NewDecoder(bytes.NewReader(text)), text: text, src: data, keep: keepLayout}
	p.dec.UseNumber()
	v, start, end, err := p.value()
	if err != nil {
		return nil, syntaxAt(data, p.dec.InputOffset(), err)
	}
	if _, err := p.dec.Token(); err != io.EOF {
		why := "data after the JSON document"
		if syntax == PlainJSON {
			why += " (comments are not supported)"
		}
		// At the line of what follows the document.
		next := len(text) - len(bytes.TrimLeft(text[end:], " \t\r\n"))
		return nil, syntaxAt(data, int64(next)+1, errors.New(why))
	}
	if keepLayout {
		v.doc = &document{lead: data[:start], trail: data[end:], nl: newlineOf(data)}
		v.doc.indent = lineIndent(v.doc.lead, "")
		v.doc.unit = unitOf(v, v.doc.indent)
	}
	return v, nil
}

// SyntaxError is a configuration file that does not parse, with the line
// where its reader stopped (1 for the first).
type SyntaxError struct {
	Line int
	Err  error
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *SyntaxError) Unwrap() error { return e.Err }

// syntaxAt is err at offset of data; a byte order mark, which
// JSON.parse refuses too, is named.
func syntaxAt(data []byte, offset int64, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		offset = se.Offset
	}
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return &SyntaxError{Line: 1, Err: errors.New("the file starts with a byte order mark (EF BB BF)")}
	}
	offset = min(max(offset, 1), int64(len(data)))
	// The line of the last byte read: a decoder's offset is past it.
	return &SyntaxError{Line: 1 + bytes.Count(data[:offset-1], []byte("\n")), Err: err}
}

// parser reads a document with a json.Decoder over text (the file, its
// comments blanked), and takes how each part was written from src, the
// file itself: offsets are the same in both.
type parser struct {
	dec       *json.Decoder
	text, src []byte
	keep      bool // record layouts
	depth     int  // containers open
}

// maxJSONDepth bounds how deep a settings file nests, as encoding/json
// bounds it (ReadSettings): the parser recurses once a level, and a
// file of some million "[" ran out of stack and crashed bundlectl
// (setup, and list reading a workspace's settings), where the hosts
// refuse such a file too.
const maxJSONDepth = 10000

// ErrDuplicateKey and ErrNestedDeep are what bundlectl's JSON reader
// refuses and the hosts' JSON.parse reads (the last of a key written
// twice; any depth): a file holding one is not one the host cannot read.
var (
	ErrDuplicateKey = errors.New("duplicate key")
	ErrNestedDeep   = errors.New("nested more than")
)

// tokenStart is where the token the decoder reads after offset from
// begins: past white space (and blanked comments) and a separator.
func (p *parser) tokenStart(from int) int {
	for from < len(p.text) && bytes.IndexByte([]byte(" \t\r\n,:"), p.text[from]) >= 0 {
		from++
	}
	return from
}

// value reads one value, and returns it with where it starts and ends.
func (p *parser) value() (v *JSON, start, end int, err error) {
	from := int(p.dec.InputOffset())
	tok, err := p.dec.Token()
	if err != nil {
		return nil, 0, 0, err
	}
	start, end = p.tokenStart(from), int(p.dec.InputOffset())
	switch t := tok.(type) {
	case json.Delim:
		if t != '{' && t != '[' {
			return nil, 0, 0, fmt.Errorf("unexpected %v", t)
		}
		v, end, err = p.container(t == '{', end)
		return v, start, end, err
	case json.Number:
		return &JSON{Kind: JSONScalar, Scalar: []byte(t.String())}, start, end, nil
	case string:
		// As written, escapes kept.
		return &JSON{Kind: JSONScalar, Scalar: bytes.Clone(p.text[start:end])}, start, end, nil
	default:
		raw, err := json.Marshal(t)
		return &JSON{Kind: JSONScalar, Scalar: raw}, start, end, err
	}
}

// container reads the members of an object or array whose opening
// bracket ends at open, through its closing bracket, and returns it with
// the offset past that bracket.
func (p *parser) container(object bool, open int) (*JSON, int, error) {
	if p.depth++; p.depth > maxJSONDepth {
		return nil, 0, fmt.Errorf("%w %d deep", ErrNestedDeep, maxJSONDepth)
	}
	defer func() { p.depth-- }()
	c := &JSON{Kind: JSONArray}
	if object {
		c = NewObject()
	}
	lay := &layout{}
	prev := open // past the previous member's value, or the bracket
	for p.dec.More() {
		from := int(p.dec.InputOffset())
		leadStart := open
		if prev != open {
			// Past the comma the decoder reads with the next token.
			leadStart = prev + bytes.IndexByte(p.text[prev:], ',') + 1
		}
		m := &member{}
		valueFrom := leadStart
		if object {
			kt, err := p.dec.Token()
			if err != nil {
				return nil, 0, err
			}
			m.key = kt.(string)
			keyStart, keyEnd := p.tokenStart(from), int(p.dec.InputOffset())
			m.lead, m.keyText = p.src[leadStart:keyStart], p.src[keyStart:keyEnd]
			valueFrom = keyEnd
		}
		v, start, end, err := p.value()
		if err != nil {
			return nil, 0, err
		}
		if object {
			if _, dup := c.Fields[m.key]; dup {
				return nil, 0, fmt.Errorf("%w %q", ErrDuplicateKey, m.key)
			}
			c.Set(m.key, v)
			m.colon = p.src[valueFrom:start]
		} else {
			c.Items = append(c.Items, v)
			m.lead = p.src[leadStart:start]
		}
		if n := len(lay.members); n > 0 {
			// The member before ends at the comma before this one.
			before := lay.members[n-1]
			before.after = p.src[before.valueEnd : leadStart-1]
			before.text = p.src[before.textStart : leadStart-1]
		}
		m.node, m.value = v, p.src[start:end]
		m.textStart, m.valueEnd, m.text = leadStart, end, p.src[leadStart:end]
		lay.members = append(lay.members, m)
		prev = end
	}
	if _, err := p.dec.Token(); err != nil {
		return nil, 0, err
	}
	end := int(p.dec.InputOffset())
	lay.end = p.src[prev : end-1]
	if p.keep {
		c.lay = lay
	}
	return c, end, nil
}

// NewObject returns an empty object.
func NewObject() *JSON { return &JSON{Kind: JSONObject, Fields: map[string]*JSON{}} }

// ValueOf converts a Go value (maps, slices, strings, numbers, bools)
// into a JSON value; map keys are sorted.
func ValueOf(v any) *JSON {
	raw, err := jsonobj.MarshalNoEscape(v) // ParseJSON keeps strings as written
	if err != nil {
		panic(err)
	}
	j, err := parseJSON(raw, PlainJSON, false) // written as setup writes new values
	if err != nil {
		panic(err)
	}
	return j
}

// Get returns the field k of an object.
func (j *JSON) Get(k string) (*JSON, bool) {
	if j == nil || j.Kind != JSONObject {
		return nil, false
	}
	v, ok := j.Fields[k]
	return v, ok
}

// Set sets the field k of an object, keeping its place if it exists.
func (j *JSON) Set(k string, v *JSON) {
	if _, ok := j.Fields[k]; !ok {
		j.Keys = append(j.Keys, k)
	}
	j.Fields[k] = v
}

// Delete removes the field k of an object.
func (j *JSON) Delete(k string) {
	if _, ok := j.Fields[k]; !ok {
		return
	}
	delete(j.Fields, k)
	for i, key := range j.Keys {
		if key == k {
			j.Keys = append(j.Keys[:i], j.Keys[i+1:]...)
			break
		}
	}
}

// String returns a scalar's string value ("" for any other value).
func (j *JSON) String() string {
	if j == nil || j.Kind != JSONScalar {
		return ""
	}
	var s string
	if json.Unmarshal(j.Scalar, &s) != nil {
		return ""
	}
	return s
}
