package agenttest

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestGeminiToolInputLone: a BeforeTool hook that is the session's only
// one and answers a tool_input that is not an object (null, a string) is
// ignored by Gemini CLI 0.61: the model's arguments, which that hook was
// given, run. Under exec the view's hooks exec line blocks the call all
// the same, and that is kept: the line sees its own hook's answer alone,
// not whether another hook of the session (the user's own extensions or
// settings, another bundle's line) rewrote the arguments before it, where
// the same answer has Gemini CLI undo the rewrite (TestGeminiToolInputReset).
// Stricter costs the call, never a guard.
func TestGeminiToolInputLone(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"direct", "exec"} {
		for _, answer := range []string{"null", `"x"`} {
			t.Run(mode+"-"+strings.Trim(answer, `"`), func(t *testing.T) {
				t.Parallel()
				model := filepath.Join(t.TempDir(), "model")
				hook := `{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":` + answer + `}}`
				group := map[string]any{"matcher": "run_shell_command", "hooks": []any{
					map[string]any{"type": "command", "command": "cat >/dev/null; echo '" + hook + "'"}}}
				a := New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+model), Say("done"))
				installGeminiHooks(t, a, mode, pluginName, map[string]any{"hooks": map[string]any{"BeforeTool": []any{group}}})
				res := a.Run(t, "make the marker")
				switch ran := exists(model); {
				case mode == "direct" && !ran:
					t.Fatalf("Gemini CLI 0.61 no longer runs the model's arguments after a lone %s tool_input\n%s", answer, res)
				case mode == "exec" && ran:
					t.Fatalf("exec ran the call after a %s tool_input it cannot place among the session's hooks\n%s", answer, res)
				case mode == "exec" && !strings.Contains(res.String(), "not an object"):
					t.Errorf("exec's refusal does not say why\n%s", res)
				}
			})
		}
	}
}
