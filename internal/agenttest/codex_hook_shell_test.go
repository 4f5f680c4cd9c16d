package agenttest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCodexHookShellIgnored: Codex 0.171 does not read a hook's "shell":
// a PreToolUse hook with "shell": "fish" runs as any other (a shell
// string), beside its sibling, and the tool runs. Claude Code refuses a
// whole plugin for such a guard (TestClaudeHookShellField); bundlectl
// refuses it for Claude Code alone: the bundle, both a Claude Code and a
// Codex plugin reading the same hooks file, is reviewed for Codex only,
// with both hooks (docs/validation.md hook.shell).
func TestCodexHookShellIgnored(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "ran")
	rec := t.TempDir()
	a := New(t, Codex, ShellCall(Codex, "touch "+marker), Say("done"))
	root := versionDir(filepath.Join(a.ConfigDir(), "plugins", "cache"))
	// A Claude Code manifest, which Codex falls back to: the bundle is
	// both hosts' plugin.
	writeJSONFile(t, root, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
	writeJSONFile(t, root, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
		"hooks": []any{
			map[string]any{"type": "command", "command": "cat > " + filepath.Join(rec, "fish"), "shell": "fish"},
			map[string]any{"type": "command", "command": "cat > " + filepath.Join(rec, "plain")},
		}}}}})
	a.CodexConfig = "[plugins.\"" + codexPluginID + "\"]\nenabled = true\n"
	a.Args = []string{"-c", "features.plugins=true", "--dangerously-bypass-hook-trust"}
	res := a.Run(t, "hello")
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the tool did not run: %v\n%s", err, res)
	}
	if got := recorded(t, rec); !slices.Equal(got, []string{"fish", "plain"}) {
		t.Fatalf("Codex ran the hooks %q, want both (found by trying Codex 0.171)\n%s", got, res)
	}
	warned, review := warnedPaths(t, root, "hook.shell")
	if want := []string{"hooks/hooks.json: hooks.PreToolUse[0].hooks[0].shell"}; !slices.Equal(warned, want) ||
		!strings.Contains(review, filepath.Join(rec, "fish")) || !strings.Contains(review, filepath.Join(rec, "plain")) {
		t.Errorf("review warned of %q, want %q, and should show both hooks for Codex\n%s", warned, want, review)
	}
}
