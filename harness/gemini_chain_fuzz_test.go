package harness

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

// FuzzGeminiChainSpread: jsSpreadOver, which builds the input a
// "sequential" Gemini CLI hook is shown from any JSON value an earlier
// hook answered, never panics, answers a JSON object, keeps the value of
// every key of the input an answer does not set, and sets every key of an
// object answer to its value — values as JavaScript holds them (1.0 and 1
// are one number; JSON.stringify writes the one spelling).
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
		{`{"a":1.0,"b":"\u0041"}`, `{"c":1e2,"d":[1.50,-0]}`},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, base, over string) {
		var bm map[string]any
		if json.Unmarshal([]byte(base), &bm) != nil || bm == nil || !json.Valid([]byte(over)) {
			return
		}
		out, ok := jsSpreadOver(json.RawMessage(base), json.RawMessage(over))
		if !ok {
			t.Fatalf("jsSpreadOver(%s, %s) refused valid JSON", base, over)
		}
		var om map[string]any
		if err := json.Unmarshal(out, &om); err != nil || om == nil {
			t.Fatalf("jsSpreadOver(%s, %s) = %s, not a JSON object: %v", base, over, out, err)
		}
		var ov any
		if json.Unmarshal([]byte(over), &ov) != nil {
			return // a number past the double range: encoding/json cannot compare it
		}
		if bytes.Contains([]byte(base+over), []byte(`\u`)) || !utf8.ValidString(base+over) {
			// A lone surrogate, or bytes that are not UTF-8, which
			// Node.js and encoding/json decode to other counts of U+FFFD,
			// may make two keys one to encoding/json.
			return
		}
		overObj, isObj := ov.(map[string]any)
		for k, v := range bm {
			if _, set := overObj[k]; set || !isObj && isIndex(k) {
				continue
			}
			if !reflect.DeepEqual(om[k], v) {
				t.Fatalf("jsSpreadOver(%s, %s) = %s lost key %q", base, over, out, k)
			}
		}
		for k, v := range overObj {
			if !reflect.DeepEqual(om[k], v) {
				t.Fatalf("jsSpreadOver(%s, %s) = %s: key %q is %v, want %v", base, over, out, k, om[k], v)
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
