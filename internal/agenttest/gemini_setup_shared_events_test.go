package agenttest

import (
	"testing"
)

// TestSetupGeminiSharedEvents: Gemini CLI 0.61 runs every SessionStart
// hook and reads each one's output whatever its exit status; no hook
// blocks SessionStart, and its additionalContext reaches the model in the
// first user message. A hook that exits 2 beside one that gives context:
// the context reaches the model, directly and under setup gemini, where
// hooks run --host gemini once read the exit 2 as Claude Code does (a
// block that stops the chain), so the reviewed context was lost.
func TestSetupGeminiSharedEvents(t *testing.T) {
	t.Parallel()
	const ctx = "bundlectl-shared-event-context"
	hooks := map[string]any{"hooks": map[string]any{"SessionStart": []any{map[string]any{
		"hooks": []any{
			map[string]any{"type": "command", "command": "cat >/dev/null; echo nope >&2; exit 2"},
			map[string]any{"type": "command", "command": `cat >/dev/null; echo '{"hookSpecificOutput":{"additionalContext":"` + ctx + `"}}'`},
		}}}}}
	for _, mode := range []string{"direct", "setup"} {
		t.Run(mode, func(t *testing.T) {
			a := New(t, GeminiCLI, Say("done"))
			installGeminiHooks(t, a, mode, pluginName, hooks)
			res := a.Run(t, "hello")
			reached := false
			for _, r := range res.Requests {
				reached = reached || r.Contains(ctx)
			}
			if !reached {
				t.Fatalf("%s: the SessionStart hook's context did not reach the model beside another hook's exit 2 (Gemini CLI 0.61 runs both and keeps it)\n%s", mode, res)
			}
		})
	}
}
