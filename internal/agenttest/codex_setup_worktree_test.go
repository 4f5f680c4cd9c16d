package agenttest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSetupCodexWorktree: a `codex exec --worktree` session runs in a
// new git worktree made from HEAD and reads the .codex/config.toml
// committed there, not the working copy's: with HEAD's file setting
// features.hooks = false and the working copy's true, Codex 0.171 runs
// none of setup's hook lines there, so the guarded command runs. bundlectl
// setup and list once said the lines were wired; setup now writes them
// and warns of such sessions, and list names them (hosts/codex
// worktreeHooksOff).
func TestSetupCodexWorktree(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), markerName)
	a := New(t, Codex, ShellCall(Codex, "touch "+marker), Say("done"))
	f := newTrustedFixture(t, a, marker)
	f.runSetup(t, a, "hello")
	writeFile(t, f.ws, ".codex/config.toml", "[features]\nhooks = false\n", 0o644)
	gitCommitIn(t, f.ws, "HEAD turns hooks off", ".codex")
	writeFile(t, f.ws, ".codex/config.toml", "[features]\nhooks = true\n", 0o644)
	res := runCodexWorktree(t, a, f)
	if res.Exit != 0 {
		t.Fatalf("codex failed\n%s", res)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the guard ran (the marker is missing): this test's premise (Codex 0.171 reads HEAD's features.hooks = false) no longer holds\n%s", res)
	}
	checkVerdict(t, a, f, nil, setupEnv(a), "worktree", verdict{caveat: "setup's hook lines do not run in a codex session started with --worktree", listOff: true})
}
