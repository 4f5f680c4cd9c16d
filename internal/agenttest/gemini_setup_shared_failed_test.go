package agenttest

import (
	"strings"
	"testing"
)

// TestSetupGeminiSharedEventsCutAnswer: on SessionStart Gemini CLI 0.61
// reads a hook's answer whole and shows systemMessage on stderr in -p
// mode. Under setup gemini a reviewed hook's answer past the 1 MiB
// bundlectl keeps is reported there, naming the bundle, while another
// hook's context still reaches the model and the session goes on
// (Gemini CLI takes the report in its stride). bundlectl once relayed the
// cut text as if whole, saying nothing.
func TestSetupGeminiSharedEventsCutAnswer(t *testing.T) {
	t.Parallel()
	const ctx = "bundlectl-shared-cut-context"
	hooks := map[string]any{"hooks": map[string]any{"SessionStart": []any{map[string]any{
		"hooks": []any{
			map[string]any{"type": "command", "command": "cat >/dev/null; head -c 2000000 /dev/zero | tr '\\0' a"},
			map[string]any{"type": "command", "command": `cat >/dev/null; echo '{"hookSpecificOutput":{"additionalContext":"` + ctx + `"}}'`},
		}}}}}
	a := New(t, GeminiCLI, Say("agenttest-session-done"))
	installGeminiHooks(t, a, "setup", pluginName, hooks)
	res := a.Run(t, "hello")
	reached := false
	for _, r := range res.Requests {
		reached = reached || r.Contains(ctx)
	}
	if !reached || !strings.Contains(res.Stdout, "agenttest-session-done") {
		t.Fatalf("the session did not go on with the other hook's context beside a cut answer\n%s", res)
	}
	if !strings.Contains(res.Stderr, `bundle \"`+pluginName+`\" hook 0 wrote more than`) && !strings.Contains(res.Stderr, `bundle "`+pluginName+`" hook 0 wrote more than`) {
		t.Fatalf("the cut answer was not reported to the user, naming the bundle\n%s", strings.ReplaceAll(res.String(), strings.Repeat("a", 100), ""))
	}
}
