package jsonobj

import (
	"bytes"
	"encoding/json"
	"io"
)

// Member is one name/value pair of a JSON object.
type Member struct {
	Key string
	Val json.RawMessage
}

// Members splits the valid JSON object raw into its members; ok is false
// for anything else.
func Members(raw []byte) (ms []Member, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, ok := t.(string)
		if !ok {
			return nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		ms = append(ms, Member{Key: key, Val: v})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF { // nothing after it
		return nil, false
	}
	return ms, true
}
