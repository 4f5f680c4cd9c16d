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
