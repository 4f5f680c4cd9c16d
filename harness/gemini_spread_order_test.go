package harness

import "testing"

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
