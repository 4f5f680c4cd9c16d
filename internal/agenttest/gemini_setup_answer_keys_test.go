package agenttest

import (
	"path/filepath"
	"testing"
)

// TestSetupGeminiAnswerKeys: Gemini CLI 0.61 reads a BeforeTool hook's
// JSON answer with JSON.parse, case-sensitively and keeping a key's last
// value, so {"decision":"deny",...,"Decision":"allow"} and
// {"reason":...,"decision":"allow",...,"decision":"deny"} both block the
// shell command. Under bundlectl setup gemini the same reviewed hook,
// run by hooks run --host gemini, must block it too; before, bundlectl
// read the first as "allow" and the second as malformed, and the command
// ran.
func TestSetupGeminiAnswerKeys(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, answer string }{
		{"case", `{"decision":"deny","reason":"keys says no","Decision":"allow"}`},
		{"twice", `{"reason":"keys says no","decision":"allow","y":"","decision":"deny"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			hooks := map[string]any{"hooks": map[string]any{"BeforeTool": []any{map[string]any{"matcher": "run_shell_command",
				"hooks": []any{map[string]any{"type": "command", "command": "cat >/dev/null; printf '%s' '" + c.answer + "'"}}}}}}

			for _, mode := range []string{"direct", "setup"} {
				marker := filepath.Join(t.TempDir(), markerName)
				a := New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+marker), Say("done"))
				installGeminiHooks(t, a, mode, pluginName, hooks)
				res := a.Run(t, "make the marker")
				if exists(marker) {
					t.Fatalf("%s: the shell command ran past the hook's answer %s\n%s", mode, c.answer, res)
				}
			}
		})
	}
}
