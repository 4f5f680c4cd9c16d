package agenttest

import (
	"path/filepath"
	"testing"
)

// TestSetupGeminiDecisionDeny: Gemini CLI 0.61 reads a BeforeTool hook's
// {"decision":"deny"} as a block (its documented spelling; "block" is the
// alias): the shell command does not run. Under bundlectl setup gemini the
// same reviewed hook, run by hooks run --host gemini, must block it too;
// bundlectl once read "deny" as malformed output, a non-blocking failure,
// and the command ran.
func TestSetupGeminiDecisionDeny(t *testing.T) {
	t.Parallel()
	deny := map[string]any{"hooks": map[string]any{"BeforeTool": []any{map[string]any{"matcher": "run_shell_command",
		"hooks": []any{map[string]any{"type": "command", "command": `cat >/dev/null; echo '{"decision":"deny","reason":"no shell here"}'`}}}}}}

	// Gemini CLI itself, the hook in an installed extension.
	marker := filepath.Join(t.TempDir(), markerName)
	direct := New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+marker), Say("done"))
	installGeminiHooks(t, direct, "direct", pluginName, deny)
	res := direct.Run(t, "make the marker")
	if exists(marker) {
		t.Fatalf("Gemini CLI ran the shell command a BeforeTool hook denied; found by trying that it does not\n%s", res)
	}

	// The same hook in a reviewed bundle, under setup gemini.
	guarded := filepath.Join(t.TempDir(), markerName)
	a := New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+guarded), Say("done"))
	installGeminiHooks(t, a, "setup", pluginName, deny)
	res = a.Run(t, "make the marker")
	if exists(guarded) {
		t.Fatalf("under setup gemini the shell command ran past the reviewed hook's deny\n%s", res)
	}
}
