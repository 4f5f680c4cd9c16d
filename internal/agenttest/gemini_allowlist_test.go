package agenttest

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestGeminiAllowListStopsOnViews: with security.allowedExtensions set,
// Gemini CLI stops at startup on an extension that has no install record
// (.gemini-extension-install.json), whatever the patterns say. A bundle
// view is such an extension, so bundlectl exec refuses such a launch itself
// (hosts/gemini AllowListError, TestLaunchAllowListRefused) rather than
// leave the user with Gemini CLI's error. If a Gemini CLI version stops
// doing this, the refusal must be revisited.
func TestGeminiAllowListStopsOnViews(t *testing.T) {
	t.Parallel()
	rec := t.TempDir()
	a := New(t, GeminiCLI, Say("done"))
	a.Settings = map[string]any{"security": map[string]any{"allowedExtensions": []string{".*"}}}
	dir := filepath.Join(a.ConfigDir(), "extensions", "view-like")
	writeJSONFile(t, dir, "gemini-extension.json", map[string]any{"name": "view-like", "version": "1.0.0"})
	writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"BeforeAgent": []any{map[string]any{
		"hooks": []any{map[string]any{"type": "command", "command": "touch " + filepath.Join(rec, "view-like")}}}}}})
	res := a.Run(t, "hello")
	if res.Exit == 0 || !strings.Contains(res.Stdout+res.Stderr, ".gemini-extension-install.json") {
		t.Errorf("Gemini CLI started with allowedExtensions and an extension without an install record (exit %d)\n%s", res.Exit, res)
	}
	if got := ranOwn(t, rec); len(got) != 0 {
		t.Errorf("the extension's hook ran: %q", got)
	}
}
