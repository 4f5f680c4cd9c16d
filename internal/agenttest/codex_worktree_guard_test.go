package agenttest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCodexWorktreeGuard: a `codex exec --worktree` session runs in a new
// git worktree under $CODEX_HOME/worktrees, outside the main checkout, and
// Codex 0.171 runs setup's hook lines there with the worktree as the
// event's cwd. No ancestor of that cwd is the trusted workspace, and the
// worktree's committed .bundlectl holds bundles nobody trusted there, so
// hooks run once found no guard and the guarded command ran while setup
// and list said wired. hooks run now takes a linked worktree's main
// checkout as the workspace when it is a trusted one (harness
// linkedWorktreeMain), so the checkout's guard blocks the command.
func TestCodexWorktreeGuard(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), markerName)
	a := New(t, Codex, ShellCall(Codex, "touch "+marker), Say("done"))
	f := newTrustedFixture(t, a, marker)
	f.runSetup(t, a, "hello")
	writeFile(t, f.ws, ".codex/config.toml", "[features]\nhooks = true\n", 0o644)
	gitCommitIn(t, f.ws, "HEAD holds the workspace and its bundles", "-A")
	res := runCodexWorktree(t, a, f)
	wts, _ := filepath.Glob(filepath.Join(a.ConfigDir(), "worktrees", "*", "*", ".bundlectl"))
	if len(wts) == 0 {
		t.Fatalf("the worktree holds no committed .bundlectl under $CODEX_HOME/worktrees/<id>/: this test's premise no longer holds\n%s", res)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the guarded command ran in the --worktree session: the main checkout's trusted guard did not run there\n%s", res)
	}
}
