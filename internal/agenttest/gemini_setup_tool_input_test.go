package agenttest

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestSetupGeminiToolInput: Gemini CLI 0.61 runs a shell call with the
// arguments a BeforeTool hook rewrote (hookSpecificOutput.tool_input, its
// keys set over the model's). Under bundlectl setup gemini the same
// reviewed hook, run by hooks run --host gemini, must rewrite it too;
// bundlectl once dropped tool_input, and the model's command ran.
func TestSetupGeminiToolInput(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"direct", "setup"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			evil, safe := filepath.Join(dir, "evil"), filepath.Join(dir, "safe")
			answer, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "BeforeTool",
				"tool_input": map[string]any{"command": "touch " + safe}}})
			hooks := map[string]any{"hooks": map[string]any{"BeforeTool": []any{map[string]any{"matcher": "run_shell_command",
				"hooks": []any{map[string]any{"type": "command", "command": "cat >/dev/null; echo '" + string(answer) + "'"}}}}}}
			a := New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+evil), Say("done"))
			installGeminiHooks(t, a, mode, pluginName, hooks)
			res := a.Run(t, "make the marker")
			if exists(evil) || !exists(safe) {
				t.Fatalf("%s: the model's command ran (%v) or the hook's rewrite did not (%v); Gemini CLI 0.61 runs the rewrite\n%s", mode, exists(evil), !exists(safe), res)
			}
		})
	}
}
