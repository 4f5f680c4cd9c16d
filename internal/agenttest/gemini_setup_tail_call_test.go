package agenttest

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestSetupGeminiTailCall: Gemini CLI 0.61 runs the tool an AfterTool
// hook asks for in hookSpecificOutput.tailToolCallRequest ({name, args})
// after the one that ran, its result replacing the first's. Under
// bundlectl setup gemini the same reviewed hook, run by hooks run --host
// gemini, must have it run too; bundlectl once dropped the request.
func TestSetupGeminiTailCall(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"direct", "setup"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			first, tail := filepath.Join(dir, "first"), filepath.Join(dir, "tail-ran")
			answer, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "AfterTool",
				"tailToolCallRequest": map[string]any{"name": "run_shell_command", "args": map[string]any{"command": "touch " + tail}}}})
			// The tail call fires AfterTool too: answer only for the first.
			cmd := "if grep -q tail-ran; then exit 0; fi; echo '" + string(answer) + "'"
			hooks := map[string]any{"hooks": map[string]any{"AfterTool": []any{map[string]any{"matcher": "run_shell_command",
				"hooks": []any{map[string]any{"type": "command", "command": cmd}}}}}}
			a := New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+first), Say("done"))
			installGeminiHooks(t, a, mode, pluginName, hooks)
			res := a.Run(t, "make the marker")
			if !exists(first) {
				t.Fatalf("%s: the model's shell call did not run\n%s", mode, res)
			}
			if !exists(tail) {
				t.Fatalf("%s: the AfterTool hook's tail call did not run (Gemini CLI 0.61 runs it)\n%s", mode, res)
			}
		})
	}
}
