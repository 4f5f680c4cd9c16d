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

// MarshalNoEscape is json.Marshal without its HTML escaping: "&", "<"
// and ">" are written as they are, as the hosts write JSON
// (JSON.stringify, serde_json). A hook's input must read as the host
// would give it — a guard searching its input's text for "&&" or
// "> /etc" must find them, not \u0026\u0026 or \u003e — and a settings
// file bundlectl edits keeps the host's spelling.
func MarshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
