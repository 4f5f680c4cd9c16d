package agenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestGeminiSequentialChain: with "sequential": true on a matcher group,
// Gemini CLI 0.61 runs the event's hooks in turn and gives each later
// hook the input as the earlier ones changed it: on BeforeModel the
// request with an earlier hook's llm_request keys set over it, on
// BeforeAgent the prompt with an earlier hook's additionalContext added.
// A guard after a rewriter therefore judges the rewritten input. Without
// "sequential" it sees the original (the control case, direct only).
//
// bundlectl gave every hook the original input under setup gemini (hooks
// run --host gemini), and its exec view dropped "sequential" (Gemini CLI
// then ran the hooks in parallel): either way the guard approved what
// Gemini CLI's own guard refuses, and the rewritten input went out.
func TestGeminiSequentialChain(t *testing.T) {
	t.Parallel()
	const mark = "agenttest-chained-change"
	answer := func(v any) map[string]any {
		b, _ := json.Marshal(v)
		return map[string]any{"type": "command", "command": "cat >/dev/null; echo '" + string(b) + "'"}
	}
	events := []struct {
		event   string
		rewrite map[string]any
	}{
		{"BeforeModel", answer(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "BeforeModel",
			"llm_request": map[string]any{"config": map[string]any{"temperature": 0.321}, "x-agenttest": mark}}})},
		{"BeforeAgent", answer(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "BeforeAgent", "additionalContext": mark}})},
	}
	cases := []struct {
		mode       string
		sequential bool
	}{{"direct", false}, {"direct", true}, {"setup", true}, {"exec", true}}
	for _, e := range events {
		for _, c := range cases {
			name := e.event + "-" + c.mode
			if !c.sequential {
				name += "-parallel"
			}
			t.Run(name, func(t *testing.T) {
				saw := filepath.Join(t.TempDir(), "guard-saw-the-change")
				guard := map[string]any{"type": "command", "command": "in=$(cat); case \"$in\" in *" + mark + "*) : >" + saw +
					"; echo '{\"decision\":\"deny\",\"reason\":\"agenttest guard refused the change\"}';; esac"}
				group := map[string]any{"hooks": []any{e.rewrite, guard}}
				if c.sequential {
					group["sequential"] = true
				}
				hooks := map[string]any{"hooks": map[string]any{e.event: []any{group}}}
				a := New(t, GeminiCLI, Say("the model answered"))
				installGeminiHooks(t, a, c.mode, pluginName, hooks)
				res := a.Run(t, "hello")
				_, err := os.Stat(saw)
				judged, called := err == nil, len(a.Model.ModelCalls()) > 0
				if c.sequential && (!judged || called) {
					t.Fatalf("%s: the guard after the rewriter saw the change: %v, the model was called: %v; Gemini CLI 0.61 chains a sequential group's input, so the guard refuses it\n%s", c.mode, judged, called, res)
				}
				if !c.sequential && (judged || !called) {
					t.Fatalf("without sequential the guard saw the change: %v, the model was called: %v; Gemini CLI 0.61 gives each hook the original input\n%s", judged, called, res)
				}
			})
		}
	}
}
