package harness

import (
	"encoding/json"
	"os"
	"testing"
)

// TestJSSpreadOverKeyOrder: Gemini CLI 0.61 gives the next hook of a
// sequential group {...input, ...answer}, whose keys JSON.stringify
// writes in JavaScript's order: array indexes first, ascending, then the
// other keys in the order first set (a repeated name keeps its first
// place and its last value). The expected bytes are node's for the same
// spread. bundlectl wrote the keys sorted, so a hook that compares or
// hashes its input's text saw another text than under Gemini CLI.
func TestJSSpreadOverKeyOrder(t *testing.T) {
	for _, c := range []struct{ base, over, want string }{
		{`{"command":"touch orig","dir_path":"sub"}`, `{"z":1,"command":"touch one","10":1,"2":0,"4294967295":3,"01":4}`,
			`{"2":0,"10":1,"command":"touch one","dir_path":"sub","z":1,"4294967295":3,"01":4}`},
		{`{"b":1,"a":2,"b":3}`, `"xy"`, `{"0":"x","1":"y","b":3,"a":2}`},
		{"{\"x\":\"a\u2028b\"}", `{"y":[1, 2 ,{"k" : true}]}`, "{\"x\":\"a\u2028b\",\"y\":[1,2,{\"k\":true}]}"},
	} {
		got, ok := jsSpreadOver([]byte(c.base), []byte(c.over))
		if !ok || string(got) != c.want {
			t.Errorf("{...%s, ...%s} = %s (%v), want %s", c.base, c.over, got, ok, c.want)
		}
	}
}

// TestJSSpreadOverValueBytes: Gemini CLI 0.61 parses a hook's answer with
// JSON.parse and writes the next hook's input with JSON.stringify, so the
// values an answer adds are given on in JavaScript's spelling (1.0 is 1,
// 1e2 is 100, 1e21 is 1e+21, "\u0041" is "A"), and a lone surrogate, in
// a string spread or a key, stays that escape. bundlectl passed on the
// hook's own spelling, and read a lone surrogate as U+FFFD. The expected
// bytes are node 20's (internal/jsjson/testdata/vectors.json, its
// "base"/"over" cases).
func TestJSSpreadOverValueBytes(t *testing.T) {
	data, err := os.ReadFile("../internal/jsjson/testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vs []struct{ Base, Over, Out string }
	if err := json.Unmarshal(data, &vs); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range vs {
		if v.Base == "" {
			continue
		}
		n++
		got, ok := jsSpreadOver([]byte(v.Base), []byte(v.Over))
		if !ok || string(got) != v.Out {
			t.Errorf("{...%s, ...%s} = %s (%v), node writes %s", v.Base, v.Over, got, ok, v.Out)
		}
	}
	if n < 10 {
		t.Fatalf("only %d spread vectors", n)
	}
}
