package agenttest

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeminiToolInputReset: Gemini CLI 0.61 keeps the last BeforeTool
// hook's tool_input of any type (hookAggregator spreads each answer's
// hookSpecificOutput over the last) but builds the call only from an
// object (getModifiedToolInput), so a later hook answering
// "tool_input": null after an earlier hook's rewrite has the model's
// arguments run: the rewrite is undone, though the hook that made it
// never let those arguments through as they were. bundlectl kept the
// earlier rewrite instead (a call Gemini CLI never runs); now hooks run
// --host gemini refuses the call, naming both hooks, as no version of
// the arguments Gemini CLI would run was judged by every hook.
func TestGeminiToolInputReset(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"direct", "setup", "exec"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			model, rewrite := filepath.Join(dir, "model"), filepath.Join(dir, "rewrite")
			rewriter, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "BeforeTool",
				"tool_input": map[string]any{"command": "touch " + rewrite}}})
			resetter := `{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":null}}`
			group := map[string]any{"matcher": "run_shell_command", "sequential": true, "hooks": []any{
				map[string]any{"type": "command", "command": "cat >/dev/null; echo '" + string(rewriter) + "'"},
				map[string]any{"type": "command", "command": "cat >/dev/null; echo '" + resetter + "'"}}}
			a := New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+model), Say("done"))
			installGeminiHooks(t, a, mode, pluginName, map[string]any{"hooks": map[string]any{"BeforeTool": []any{group}}})
			res := a.Run(t, "make the marker")
			ranModel, ranRewrite := exists(model), exists(rewrite)
			t.Logf("%s: the model's command ran: %v, the rewrite ran: %v", mode, ranModel, ranRewrite)
			switch mode {
			case "direct":
				if !ranModel || ranRewrite {
					t.Fatalf("Gemini CLI 0.61 no longer runs the model's arguments after a later null tool_input (model %v, rewrite %v)\n%s", ranModel, ranRewrite, res)
				}
			default:
				if ranModel || ranRewrite {
					t.Fatalf("%s: a command ran (model %v, rewrite %v); the arguments Gemini CLI would run were not judged by every hook, so the call must be refused\n%s", mode, ranModel, ranRewrite, res)
				}
				if !strings.Contains(res.String(), "not an object") {
					t.Errorf("%s: the refusal does not say why\n%s", mode, res)
				}
			}
		})
	}
}
