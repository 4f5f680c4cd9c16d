package agenttest

import (
	"path/filepath"
	"testing"
)

// onFailureHooks is a PreToolUse guard on Bash that exits 1 after reading
// its input, with onFailure set when it is not "".
func onFailureHooks(onFailure string) map[string]any {
	h := map[string]any{"type": "command", "command": "cat >/dev/null; exit 1"}
	if onFailure != "" {
		h["onFailure"] = onFailure
	}
	return map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
		"matcher": "Bash", "hooks": []any{h}}}}}
}

// TestClaudeOnFailureBlock: Claude Code 2.1.332 takes a PreToolUse hook
// that exits 1 as a failure that lets the tool run, unless the hook's
// "onFailure" is "block": then the failure counts as exit 2 and the shell
// command does not run (its hook schema: a hook that could not start,
// timed out, exited with a code other than 0 or 2 or printed JSON that
// fails; ignored for async hooks and on Stop, SubagentStop, TaskCompleted
// and TeammateIdle). Under bundlectl setup claude the same guard in a
// trusted bundle blocks too; hooks run once reported the failure and let
// the command run. Under bundlectl exec the view keeps the field and
// hooks exec passes the status through, so Claude Code blocks.
func TestClaudeOnFailureBlock(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		onFailure string
		ran       bool
	}{{"", true}, {"continue", true}, {"block", false}} {
		t.Run("plugin-dir/"+tc.onFailure, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			marker := filepath.Join(tmp, markerName)
			dir := filepath.Join(tmp, "grd")
			writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": "grd", "version": "1.0.0"})
			writeJSONFile(t, dir, "hooks/hooks.json", onFailureHooks(tc.onFailure))
			a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
			a.Args = []string{"--plugin-dir", dir, "--allowedTools", "Bash"}
			res := a.Run(t, "make the marker")
			if exists(marker) != tc.ran {
				t.Fatalf("onFailure %q: the command ran = %v, want %v\n%s", tc.onFailure, exists(marker), tc.ran, res)
			}
		})
	}
	t.Run("setup", func(t *testing.T) {
		t.Parallel()
		marker := filepath.Join(t.TempDir(), markerName)
		a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
		f := newExecFixture(t, a)
		writeJSONFile(t, f.src, "hooks/hooks.json", onFailureHooks("block"))
		f.trust(t)
		f.runSetup(t, a, "")
		a.Args = []string{"--allowedTools", "Bash"}
		res := a.Run(t, "make the marker")
		if exists(marker) {
			t.Fatalf("the shell command ran past a failed guard whose onFailure is \"block\"\n%s", res)
		}
	})
	t.Run("exec", func(t *testing.T) {
		t.Parallel()
		// The view's entry keeps onFailure and calls bundlectl hooks
		// exec, which passes the exit status 1 through: Claude Code's
		// own onFailure then blocks.
		marker := filepath.Join(t.TempDir(), markerName)
		a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
		f := newExecFixture(t, a)
		writeJSONFile(t, f.src, "hooks/hooks.json", onFailureHooks("block"))
		f.trust(t)
		a.Launcher = f.launcher(t)
		a.Args = []string{"--allowedTools", "Bash"}
		res := a.Run(t, "make the marker")
		if exists(marker) {
			t.Fatalf("under exec the shell command ran past a failed guard whose onFailure is \"block\"\n%s", res)
		}
	})
}
