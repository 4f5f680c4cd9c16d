package agenttest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGeminiBeforeToolSelectionNone: what a BeforeToolSelection answer
// that offers no tools does in Gemini CLI 0.61. It sends the model request
// with toolConfig.functionCallingConfig.mode "NONE" (the tools still
// listed: the model is told not to call any), and NONE wins over every
// other hook's answer (its merge: another hook's "ANY" with an allowed
// name does not bring the tool back). Gemini CLI itself does not refuse a
// call the model makes anyway: the stand-in ignores the mode, and its
// shell call runs. So such an answer restricts as much as any
// BeforeToolSelection hook can, and no more.
func TestGeminiBeforeToolSelectionNone(t *testing.T) {
	t.Parallel()
	rec := t.TempDir()
	marker := filepath.Join(t.TempDir(), markerName)
	a := New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+marker), Say("done"))
	hook := func(name, answer string) map[string]any {
		return map[string]any{"hooks": []any{map[string]any{"type": "command", "name": name,
			"command": "cat > " + filepath.Join(rec, name) + "; echo '" + answer + "'"}}}
	}
	installGeminiHooks(t, a, "direct", pluginName, map[string]any{"hooks": map[string]any{"BeforeToolSelection": []any{
		hook("none", `{"hookSpecificOutput":{"hookEventName":"BeforeToolSelection","toolConfig":{"mode":"NONE"}}}`),
		hook("any", `{"hookSpecificOutput":{"hookEventName":"BeforeToolSelection","toolConfig":{"mode":"ANY","allowedFunctionNames":["run_shell_command"]}}}`),
	}}})
	res := a.Run(t, "make the marker")
	for _, n := range []string{"none", "any"} {
		if _, err := os.Stat(filepath.Join(rec, n)); err != nil {
			t.Fatalf("Gemini CLI did not run the BeforeToolSelection hook %q\n%s", n, res)
		}
	}
	modes := offeredToolModes(a)
	for _, m := range modes {
		if m != "NONE" {
			t.Fatalf("a model request offering tools was sent without mode NONE (and no allowed names) after a BeforeToolSelection hook answered it: modes %q\n%s", modes, a.Model.Dump())
		}
	}
	if len(modes) == 0 {
		t.Fatalf("no model request offering tools was seen\n%s", res)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("Gemini CLI refused the shell call the model made despite mode NONE; the docs say it does not\n%s", res)
	}
}
