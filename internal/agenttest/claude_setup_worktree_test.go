package agenttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetupClaudeWorktree: `claude --worktree` under setup's lines. A
// WorktreeCreate hook creates the worktree in Claude Code's place and
// prints its path, so setup, which once wired every event, made every
// such session fail: hooks run answered "{}", and Claude Code 2.1.332
// said "worktree directory …/{} does not exist" and started none. Setup
// now wires neither WorktreeCreate nor WorktreeRemove (hosts/claude
// SetupEvents); the session starts in its worktree, below the workspace,
// and the workspace's guard still blocks the command there.
func TestSetupClaudeWorktree(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), markerName)
	a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
	f := newTrustedFixture(t, a, marker)
	f.runSetup(t, a, "hello")
	gitCommitIn(t, a.Workdir, "HEAD", "-A")
	if hooks, _ := a.Settings["hooks"].(map[string]any); hooks["WorktreeCreate"] != nil || hooks["WorktreeRemove"] != nil {
		t.Fatalf("setup wired WorktreeCreate or WorktreeRemove: %v", hooks)
	}
	a.Args = append(a.Args, "--worktree", "wt")
	res := a.Run(t, "touch the marker")
	if res.Exit != 0 || !strings.Contains(res.Stdout, "done") {
		t.Fatalf("claude --worktree did not run its session under setup's lines\n%s", res)
	}
	if _, err := os.Stat(filepath.Join(a.Workdir, ".claude", "worktrees", "wt")); err != nil {
		t.Fatalf("no worktree .claude/worktrees/wt: this test's premise (Claude Code 2.1.332) no longer holds: %v\n%s", err, res)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the guarded command ran in the --worktree session\n%s", res)
	}
}
