package hosts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/bundlectl/bundlectl/internal/jsonobj"
)

// JSON is a JSON value that keeps the order of object keys, so that
// bundlectl can add its entries to a user's configuration file without
// reordering what the user wrote. Numbers keep their text.
type JSON struct {
	Kind   JSONKind
	Keys   []string
	Fields map[string]*JSON
	Items  []*JSON
	Scalar json.RawMessage // string, number, true, false, null as written
}

// JSONKind is the kind of a JSON value.
type JSONKind int

const (
	JSONScalar JSONKind = iota
	JSONObject
	JSONArray
)

// ParseJSON reads one JSON document. An empty document (a file of white
// space) is an empty object.
func ParseJSON(data []byte) (*JSON, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return NewObject(), nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseValue(dec, data)
	if err != nil {
		return nil, syntaxAt(data, dec.InputOffset(), err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, syntaxAt(data, dec.InputOffset(), errors.New("data after the JSON document (comments are not supported)"))
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

func parseValue(dec *json.Decoder, data []byte) (*JSON, error) {
	start := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := NewObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k := kt.(string)
				v, err := parseValue(dec, data)
				if err != nil {
					return nil, err
				}
				if _, dup := o.Fields[k]; dup {
					return nil, fmt.Errorf("duplicate key %q", k)
				}
				o.Set(k, v)
			}
			_, err := dec.Token()
			return o, err
		case '[':
			a := &JSON{Kind: JSONArray}
			for dec.More() {
				v, err := parseValue(dec, data)
				if err != nil {
					return nil, err
				}
				a.Items = append(a.Items, v)
			}
			_, err := dec.Token()
			return a, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		var raw []byte
		switch t := t.(type) {
		case json.Number:
			raw = []byte(t.String())
		case string:
			// As written: what lies between the offsets, less the white
			// space and separator the decoder reads before the token.
			raw = bytes.TrimLeft(data[start:dec.InputOffset()], " \t\r\n,:")
		default:
			raw, err = json.Marshal(t)
		}
		if err != nil {
			return nil, err
		}
		return &JSON{Kind: JSONScalar, Scalar: raw}, nil
	}
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
	j, err := ParseJSON(raw)
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

// Marshal writes j indented by two spaces, with a final newline.
func (j *JSON) Marshal() []byte {
	var b strings.Builder
	j.write(&b, "")
	b.WriteByte('\n')
	return []byte(b.String())
}

func (j *JSON) write(b *strings.Builder, indent string) {
	switch j.Kind {
	case JSONScalar:
		b.Write(j.Scalar)
	case JSONObject:
		if len(j.Keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, k := range j.Keys {
			b.WriteString(indent + "  ")
			kj, _ := jsonobj.MarshalNoEscape(k)
			b.Write(kj)
			b.WriteString(": ")
			j.Fields[k].write(b, indent+"  ")
			if i < len(j.Keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case JSONArray:
		if len(j.Items) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, v := range j.Items {
			b.WriteString(indent + "  ")
			v.write(b, indent+"  ")
			if i < len(j.Items)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	}
}
