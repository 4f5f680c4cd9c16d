package agenttest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGeminiBeforeToolSelectionCannotBlock: Gemini CLI 0.61 runs an
// extension's BeforeToolSelection hook before each model request and
// reads from it only a replacement tool configuration; a hook that exits
// 2, or answers {"decision":"deny"}, stops nothing: the request is sent
// with its tools and the shell command of the model's answer runs.
func TestGeminiBeforeToolSelectionCannotBlock(t *testing.T) {
	t.Parallel()
	for name, cmd := range map[string]string{
		"exit2": "echo no tools for you >&2; exit 2",
		"deny":  `echo '{"decision":"deny","reason":"no tools for you"}'`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rec := t.TempDir()
			marker := filepath.Join(t.TempDir(), markerName)
			a := New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+marker), Say("done"))
			installGeminiHooks(t, a, "direct", pluginName, map[string]any{"hooks": map[string]any{"BeforeToolSelection": []any{
				map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "cat > " + filepath.Join(rec, "selection") + "; " + cmd}}}}}})
			res := a.Run(t, "make the marker")
			if _, err := os.Stat(filepath.Join(rec, "selection")); err != nil {
				t.Fatalf("Gemini CLI did not run the BeforeToolSelection hook\n%s", res)
			}
			if _, err := os.Stat(marker); err != nil {
				t.Fatalf("a BeforeToolSelection hook that answers %s stopped the shell command, which Gemini CLI 0.61 did not do when tried\n%s", name, res)
			}
		})
	}
}
