package agenttest

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestClaudePreCompactBlocks: a PreCompact hook that exits 2 stops the
// compaction in Claude Code 2.1.332 (its hook help says "Exit code 2 -
// block compaction"): after `/compact` the PreCompact guard ran and
// PostCompact, which a compaction fires (TestClaudeHookMatcherMoreEvents),
// did not. bundle.BlockingEvent must say so, so that bundlectl fails
// closed when such a guard cannot run.
func TestClaudePreCompactBlocks(t *testing.T) {
	t.Parallel()
	rec := t.TempDir()
	a := New(t, Claude, Say("done"))
	src := filepath.Join(a.Workdir, ".bundlectl", "bundles", pluginName)
	writeJSONFile(t, src, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
	writeJSONFile(t, src, "hooks/hooks.json", map[string]any{"hooks": map[string]any{
		"PreCompact": []any{map[string]any{"hooks": []any{map[string]any{"type": "command",
			"command": "cat > " + filepath.Join(rec, "precompact") + "; echo no compaction here >&2; exit 2"}}}},
		"PostCompact": []any{map[string]any{"hooks": []any{map[string]any{"type": "command",
			"command": "cat > " + filepath.Join(rec, "postcompact")}}}},
	}})
	ran, _ := runSession(t, a, rec, []string{"--plugin-dir", src}, []string{"hello", "/compact"})
	if want := []string{"precompact"}; !slices.Equal(ran, want) {
		t.Fatalf("with a PreCompact guard that exits 2, Claude Code ran the hooks %q, want %q: the compaction was not blocked (found by trying Claude Code 2.1.332)", ran, want)
	}
}

// TestCodexPreCompactCannotBlock: in Codex 0.171 a PreCompact hook that
// exits 2 does not stop the compaction (PostCompact runs after it), unlike
// Claude Code's (TestClaudePreCompactBlocks). bundle.BlockingEvent is one
// list for every host: under --host codex a PreCompact guard that cannot
// run still answers exit 2, which Codex reads as a failed hook.
func TestCodexPreCompactCannotBlock(t *testing.T) {
	t.Parallel()
	rec := t.TempDir()
	a := New(t, Codex, ShellCall(Codex, "true"), Say("done"))
	a.Model.FirstTokens = 1000 // more than the limit below: Codex compacts
	root := versionDir(filepath.Join(a.ConfigDir(), "plugins", "cache"))
	writeJSONFile(t, root, ".codex-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
	writeJSONFile(t, root, "hooks/hooks.json", map[string]any{"hooks": map[string]any{
		"PreCompact": []any{map[string]any{"hooks": []any{map[string]any{"type": "command",
			"command": "cat > " + filepath.Join(rec, "precompact") + "; echo no compaction here >&2; exit 2"}}}},
		"PostCompact": []any{map[string]any{"hooks": []any{map[string]any{"type": "command",
			"command": "cat > " + filepath.Join(rec, "postcompact")}}}},
	}})
	a.CodexConfig = "[plugins.\"" + codexPluginID + "\"]\nenabled = true\n"
	ran, _ := runSession(t, a, rec, []string{"-c", "features.plugins=true", "--dangerously-bypass-hook-trust", "-c", "model_auto_compact_token_limit=500"}, []string{"hello"})
	if want := []string{"postcompact", "precompact"}; !slices.Equal(ran, want) {
		t.Fatalf("with a PreCompact hook that exits 2, Codex ran the hooks %q, want %q (found by trying Codex 0.171)", ran, want)
	}
}
