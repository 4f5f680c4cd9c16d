package agenttest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSetupCodexWorktreeLinked: a .codex that HEAD commits as a
// symbolic link, into the tree (.codex -> conf) or to an absolute path,
// is checked out as one in the worktree a `codex exec --worktree`
// session runs in, and Codex 0.171 reads config.toml through it: its
// features.hooks = false
// keeps setup's hook lines from running there, though the working
// copy's .codex/config.toml turns hooks on, so the guarded command runs.
// bundlectl setup and list, which read HEAD's file with git cat-file
// and once did not follow the link, said the lines were wired; they now
// follow it (hosts/codex gitHead) and warn.
func TestSetupCodexWorktreeLinked(t *testing.T) {
	t.Parallel()
	for _, absolute := range []bool{false, true} {
		t.Run(map[bool]string{false: "into the tree", true: "absolute"}[absolute], func(t *testing.T) {
			t.Parallel()
			marker := filepath.Join(t.TempDir(), markerName)
			a := New(t, Codex, ShellCall(Codex, "touch "+marker), Say("done"))
			f := newTrustedFixture(t, a, marker)
			f.runSetup(t, a, "hello")
			target, add := "conf", []string{"add", ".codex", "conf"}
			if absolute {
				target, add = t.TempDir(), []string{"add", ".codex"}
			} else {
				target = "conf"
			}
			dir := target
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(f.ws, dir)
			}
			writeFile(t, dir, "config.toml", "[features]\nhooks = false\n", 0o644)
			if err := os.Symlink(target, filepath.Join(f.ws, ".codex")); err != nil {
				t.Fatal(err)
			}
			gitCommitIn(t, f.ws, "HEAD links .codex", add[1:]...)
			if err := os.Remove(filepath.Join(f.ws, ".codex")); err != nil {
				t.Fatal(err)
			}
			writeFile(t, f.ws, ".codex/config.toml", "[features]\nhooks = true\n", 0o644)
			res := runCodexWorktree(t, a, f)
			if res.Exit != 0 {
				t.Fatalf("codex failed\n%s", res)
			}
			if _, err := os.Stat(marker); err != nil {
				t.Fatalf("the guard ran (the marker is missing): this test's premise (Codex 0.171 reads the false through the committed link) no longer holds\n%s", res)
			}
			checkVerdict(t, a, f, nil, setupEnv(a), "linked", verdict{caveat: "setup's hook lines do not run in a codex session started with --worktree", listOff: true})
		})
	}
}
