package harness

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzGeminiChainSpread: jsSpreadOver, which builds the input a
// "sequential" Gemini CLI hook is shown from any JSON value an earlier
// hook answered, never panics, answers a JSON object, keeps every key
// of the input an answer does not set, and sets every key of an object
// answer to its value.
func FuzzGeminiChainSpread(f *testing.F) {
	for _, s := range [][2]string{
		{`{"command":"ls","dir_path":"sub"}`, `{"command":"touch one"}`},
		{`{"model":"m"}`, `"ab"`},
		{`{"model":"m"}`, `["x",{"y":1}]`},
		{`{"model":"m"}`, `"\ud83d\ude00\ud800"`},
		{`{"0":"keep"}`, `5`},
		{`{}`, `null`},
		{`{"a":1}`, `true`},
		{`{"a":1}`, `{}`},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, base, over string) {
		var bm map[string]json.RawMessage
		if json.Unmarshal([]byte(base), &bm) != nil || !json.Valid([]byte(over)) {
			return
		}
		out, ok := jsSpreadOver(json.RawMessage(base), json.RawMessage(over))
		if !ok {
			t.Fatalf("jsSpreadOver(%s, %s) refused valid JSON", base, over)
		}
		var om map[string]json.RawMessage
		if err := json.Unmarshal(out, &om); err != nil {
			t.Fatalf("jsSpreadOver(%s, %s) = %s, not a JSON object: %v", base, over, out, err)
		}
		var overObj map[string]json.RawMessage
		isObj := json.Unmarshal([]byte(over), &overObj) == nil && overObj != nil
		for k, v := range bm {
			if _, set := overObj[k]; set {
				continue
			}
			if isObj || !isIndex(k) {
				if !sameJSON(om[k], v) {
					t.Fatalf("jsSpreadOver(%s, %s) = %s lost key %q", base, over, out, k)
				}
			}
		}
		for k, v := range overObj {
			if !bytes.Equal(bytes.TrimSpace(om[k]), bytes.TrimSpace(v)) && !sameJSON(om[k], v) {
				t.Fatalf("jsSpreadOver(%s, %s) = %s: key %q is %s, want %s", base, over, out, k, om[k], v)
			}
		}
	})
}

// isIndex reports whether k is a key an array or a string spreads.
func isIndex(k string) bool {
	if k == "" || len(k) > 1 && k[0] == '0' {
		return false
	}
	for _, c := range k {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
