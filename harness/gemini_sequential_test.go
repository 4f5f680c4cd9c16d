package harness

import (
	"context"
	"encoding/json"
	"testing"
)

// TestFireChainGeminiSequential: when a hook's Gemini CLI matcher group
// says "sequential": true, Gemini CLI 0.61 gives each later hook of the
// event the input the earlier ones changed (internal/agenttest
// TestGeminiSequentialChain): a BeforeModel hook's llm_request keys set
// over the request, a BeforeAgent hook's additionalContext added to the
// prompt, and only after a hook that exited 0. hooks run --host gemini
// gave every hook the original input, so a guard after a rewriter
// approved what Gemini CLI's own guard refuses. Without "sequential" each
// hook still sees the original, as in Gemini CLI.
func TestFireChainGeminiSequential(t *testing.T) {
	cases := []struct {
		event, input, rewrite, field, want string
	}{
		{"BeforeModel", `{"llm_request":{"model":"m","config":{"temperature":1},"messages":[]}}`,
			`echo '{"hookSpecificOutput":{"llm_request":{"config":{"temperature":0.5},"x":"changed"}}}'`,
			"llm_request", `{"config":{"temperature":0.5},"messages":[],"model":"m","x":"changed"}`},
		{"BeforeAgent", `{"prompt":"hello"}`,
			`echo '{"hookSpecificOutput":{"additionalContext":"changed"}}'`,
			"prompt", `"hello\n\nchanged"`},
	}
	for _, c := range cases {
		for _, sequential := range []bool{false, true} {
			h := newHookEnv(t)
			rewrite := h.hook("rewrite", "", c.rewrite+"\n")
			failed := h.hook("failed", "", `echo '{"hookSpecificOutput":{"llm_request":{"x":"failed"},"additionalContext":"failed"}}'; exit 1`+"\n")
			guard := h.hook("guard", "", "echo '{}'\n")
			for _, hk := range []*RunnableHook{&rewrite, &failed, &guard} {
				hk.geminiSequential = sequential && hk == &guard // any hook of the event makes the plan sequential
			}
			ev, err := ParseHookEvent([]byte(c.input), c.event)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := FireChain(context.Background(), []RunnableHook{rewrite, failed, guard}, ev); err != nil {
				t.Fatal(err)
			}
			want := c.want
			if !sequential {
				var orig map[string]json.RawMessage
				_ = json.Unmarshal([]byte(c.input), &orig)
				want = string(orig[c.field])
			}
			if got := string(h.stdin("guard")[c.field]); !sameJSON(json.RawMessage(got), json.RawMessage(want)) {
				t.Errorf("%s sequential=%v: the guard was given %s %s, want %s", c.event, sequential, c.field, got, want)
			}
			if got := string(h.stdin("failed")[c.field]); !sameJSON(json.RawMessage(got), json.RawMessage(want)) {
				t.Errorf("%s sequential=%v: the hook after the rewriter was given %s %s, want %s", c.event, sequential, c.field, got, want)
			}
		}
	}
}
