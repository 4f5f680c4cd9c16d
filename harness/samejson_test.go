package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
)

// TestSameJSONNumbers: a rewrite is a change whenever a host could read
// it as one. sameJSON compared numbers as float64, so a hook rewriting
// 9007199254740992 to 9007199254740993 (two numbers to Codex's
// serde_json) was taken as no rewrite, and the arguments it rewrote
// would run; keys in another order are still the same document.
func TestSameJSONNumbers(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{`{"n":9007199254740993}`, `{"n":9007199254740992}`, false},
		{`{"n":-0}`, `{"n":0}`, false},
		{`{"n":1.0}`, `{"n":1}`, false},
		{`{"a":1,"b":[2,{"c":3}]}`, ` {"b":[2,{"c":3}],"a":1}`, true},
		{`{"n":9007199254740993}`, `{"n":9007199254740993}`, true},
		{`{}`, `{} {}`, false},
	} {
		if got := sameJSON([]byte(c.a), []byte(c.b)); got != c.same {
			t.Errorf("sameJSON(%s, %s) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
	h := newHookEnv(t)
	rewrite := h.hook("rewrite", "", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"n":9007199254740993}}}'`+"\n")
	ev, err := ParseHookEvent([]byte(`{"tool_name":"T","tool_input":{"n":9007199254740992}}`), "PreToolUse")
	if err != nil {
		t.Fatal(err)
	}
	o, err := FireChain(context.Background(), []RunnableHook{rewrite}, ev)
	if err != nil || o.Blocked {
		t.Fatalf("outcome %+v %v", o, err)
	}
	if string(o.UpdatedInput) != `{"n":9007199254740993}` {
		t.Errorf("relayed updatedInput %s, want the hook's rewrite", o.UpdatedInput)
	}
}

// TestSameJSONLoneSurrogates: a JavaScript host reads "\ud800" and
// "\ufffd" as two strings, while Go's decoder turns a lone surrogate into
// U+FFFD, so a hook rewriting a lone surrogate into U+FFFD (a sanitizer
// of broken text) was taken as no rewrite, and the model's string it
// rewrote would run under Claude Code.
func TestSameJSONLoneSurrogates(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{`{"s":"\ud800"}`, `{"s":"\ufffd"}`, false},
		{`{"s":"\ud800"}`, `{"s":"\udc00"}`, false},
		{`{"s":"\ud800"}`, "{\"s\":\"\uFFFD\"}", false},
		{`{"s":"\ud83d\ude00"}`, "{\"s\":\"\U0001F600\"}", true},
		{`{"s":"\ud800","t":1}`, `{"t":1,"s":"\ud800"}`, true},
	} {
		if got := sameJSON([]byte(c.a), []byte(c.b)); got != c.same {
			t.Errorf("sameJSON(%s, %s) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
	h := newHookEnv(t)
	rewrite := h.hook("rewrite", "", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo \ufffd"}}}'`+"\n")
	ev, err := ParseHookEvent([]byte(`{"tool_name":"Bash","tool_input":{"command":"echo \ud800"}}`), "PreToolUse")
	if err != nil {
		t.Fatal(err)
	}
	o, err := FireChain(context.Background(), []RunnableHook{rewrite}, ev)
	if err != nil || o.Blocked {
		t.Fatalf("outcome %+v %v", o, err)
	}
	if string(o.UpdatedInput) != `{"command":"echo \ufffd"}` {
		t.Errorf("relayed updatedInput %s, want the hook's rewrite", o.UpdatedInput)
	}
}

// FuzzSameJSON: no input panics decodeExact, and every document is the
// same as itself, and as itself re-indented.
func FuzzSameJSON(f *testing.F) {
	for _, s := range []string{`{"s":"\ud800","n":-0.5e3,"a":[true,false,null,{}],"k\u00e9":"\\\/\b\f\n\r\t\""}`, `"\ud83d\ude00"`, `[]`, `1`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !sameJSON(b, b) {
			t.Fatalf("%q is not the same as itself", b)
		}
		var ind bytes.Buffer
		if json.Indent(&ind, b, "", "  ") == nil && !sameJSON(b, ind.Bytes()) {
			t.Fatalf("%q is not the same as itself indented", b)
		}
	})
}
