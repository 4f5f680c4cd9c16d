package jsonobj

import (
	"bytes"
	"encoding/json"
	"errors"
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
// (JSON.stringify, serde_json), and so are U+2028 and U+2029, which
// encoding/json escapes in every string. A hook's input must read as the
// host would give it — a guard searching its input's text for "&&" or
// "> /etc" must find them, not \u0026\u0026 or \u003e — and a settings
// file bundlectl edits keeps the host's spelling.
func MarshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return unescapeLineSeparators(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), nil
}

// unescapeLineSeparators writes the escapes \u2028 and \u2029 of
// encoding/json's output b as the characters they stand for. Outside a
// string b has no backslash, and inside one a backslash always starts an
// escape, so an escaped backslash followed by "u2028" stays as it is.
func unescapeLineSeparators(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u202`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		if rest := b[i+1:]; bytes.HasPrefix(rest, []byte("u2028")) || bytes.HasPrefix(rest, []byte("u2029")) {
			out = append(out, 0xE2, 0x80, 0xA8+rest[4]-'8')
			i += 5
			continue
		}
		out = append(out, b[i], b[i+1])
		i++
	}
	return out
}

// AppendCompact appends the JSON value src to dst as MarshalNoEscape
// would write it: without the whitespace outside its strings, and with
// the escapes \u2028 and \u2029 written as the characters. It is
// json.Compact (no HTML escaping) followed by MarshalNoEscape's
// unescaping, in one pass after Scan's, where encoding/json's scanner
// took 20 ms for a 1 MB hook event. An src Scan refuses is an error and
// dst is returned as it was.
func AppendCompact(dst, src []byte) ([]byte, error) {
	if !valid(src, AnyKeys) { // no members: a name is only copied here
		err := json.Compact(new(bytes.Buffer), src) // says why
		if err == nil {
			err = errors.New("jsonobj: not one JSON value")
		}
		return dst, err
	}
	start := 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case ' ', '\t', '\n', '\r':
			dst = append(dst, src[start:i]...)
			start = i + 1
		case '"':
			for i++; src[i] != '"'; i++ {
				if src[i] != '\\' {
					continue
				}
				if rest := src[i+1:]; bytes.HasPrefix(rest, []byte("u2028")) || bytes.HasPrefix(rest, []byte("u2029")) {
					dst = append(append(dst, src[start:i]...), 0xE2, 0x80, 0xA8+rest[4]-'8')
					i += 5
					start = i + 1
					continue
				}
				i++ // the escaped byte
			}
		}
	}
	return append(dst, src[start:]...), nil
}
