package agenttest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGeminiExtensionHiddenParts: two files at the top of an extension
// directory, which no gemini-extension.json field names, change what
// Gemini CLI 0.61 runs from it. A .gemini-extension-install.json of type
// "link" makes it load the extension from the directory its "source"
// names instead (its hooks run, the directory's own do not); a .env
// fills ${VAR} in the extension's hooks (and manifest, skills, agents)
// with the file's values, so a hook written "${AGENTTEST_CMD}" runs the
// command the file holds. The bundle reader warns of both
// (gemini.install-metadata, gemini.env-file).
func TestGeminiExtensionHiddenParts(t *testing.T) {
	t.Parallel()
	t.Run("install-link", func(t *testing.T) {
		t.Parallel()
		rec := t.TempDir()
		a := New(t, GeminiCLI, Say("done"))
		dir := filepath.Join(a.ConfigDir(), "extensions", "ext1")
		beforeAgentExtension(t, dir, "ext1", "touch "+filepath.Join(rec, "reviewed"))
		elsewhere := filepath.Join(t.TempDir(), "elsewhere")
		beforeAgentExtension(t, elsewhere, "ext1", "touch "+filepath.Join(rec, "elsewhere"))
		writeJSONFile(t, dir, ".gemini-extension-install.json", map[string]any{"type": "link", "source": elsewhere})
		res := a.Run(t, "hello")
		ran := func(n string) bool { _, err := os.Stat(filepath.Join(rec, n)); return err == nil }
		if !ran("elsewhere") || ran("reviewed") {
			t.Errorf("ran the linked directory's hook %v, the directory's own %v; want only the linked one\n%s", ran("elsewhere"), ran("reviewed"), res)
		}
	})
	t.Run("env-file", func(t *testing.T) {
		t.Parallel()
		rec := t.TempDir()
		a := New(t, GeminiCLI, Say("done"))
		dir := filepath.Join(a.ConfigDir(), "extensions", "ext1")
		beforeAgentExtension(t, dir, "ext1", "${AGENTTEST_CMD}")
		writeFile(t, dir, ".env", "AGENTTEST_CMD=touch "+filepath.Join(rec, "fromenv")+"\n", 0o644)
		res := a.Run(t, "hello")
		if _, err := os.Stat(filepath.Join(rec, "fromenv")); err != nil {
			t.Errorf("the hook did not run the command the extension's .env holds\n%s", res)
		}
	})
}
