package agenttest

import (
	"path/filepath"
	"testing"
)

// TestClaudeSpawnFailure: without "onFailure", Claude Code 2.1.332 lets
// the tool run when a PreToolUse guard cannot start, in exec form (no such
// program) as in shell form (the shell exits 127); so it did when tried on
// UserPromptSubmit, PostToolUse, Stop and SessionStart. bundlectl fails
// closed on the exec form instead — a guard that cannot start guards
// nothing — and the same under exec -- claude (hooks exec exits 2) as under
// hooks run --host claude (script hooks_guard_spawn_timeout; before, hooks
// run let the tool run and hooks exec blocked). The shell form's status
// 127 is a hook's failure like any other, which passes in both.
func TestClaudeSpawnFailure(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name        string
		hook        map[string]any
		execBlocked bool
	}{
		{"exec-form", map[string]any{"type": "command", "command": "/nonexistent/of-hook", "args": []any{}}, true},
		{"shell-form", map[string]any{"type": "command", "command": "/nonexistent/of-hook"}, false},
	} {
		hooks := map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{c.hook}}}}}
		t.Run(c.name+"/in-place", func(t *testing.T) {
			tmp := t.TempDir()
			marker := filepath.Join(tmp, markerName)
			dir := filepath.Join(tmp, "sp")
			writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": "sp", "version": "1.0.0"})
			writeJSONFile(t, dir, "hooks/hooks.json", hooks)
			a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
			a.Args = []string{"--plugin-dir", dir, "--allowedTools", "Bash"}
			res := a.Run(t, "make the marker")
			if !exists(marker) {
				t.Fatalf("Claude Code blocked the tool on a guard that cannot start, which 2.1.332 did not\n%s", res)
			}
		})
		t.Run(c.name+"/exec", func(t *testing.T) {
			marker := filepath.Join(t.TempDir(), markerName)
			a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
			f := newExecFixture(t, a)
			writeJSONFile(t, f.src, "hooks/hooks.json", hooks)
			f.trust(t)
			a.Launcher = f.launcher(t)
			a.Args = []string{"--allowedTools", "Bash"}
			res := a.Run(t, "make the marker")
			if blocked := !exists(marker); blocked != c.execBlocked {
				t.Fatalf("under exec the tool was blocked = %v, want %v\n%s", blocked, c.execBlocked, res)
			}
		})
	}
}
