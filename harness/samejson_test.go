package harness

import (
	"context"
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
