package harness_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/state"
)

func gitIn(tb testing.TB, args ...string) {
	tb.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("git %q: %v %s", args, err, out)
	}
}

func trustKitIn(tb testing.TB, home, ws string) {
	tb.Helper()
	m := lifecycle.New(bundle.Roots{Home: home, Workspace: ws}, bundle.Limits{})
	b, err := m.Find(m.Discover(), "kit")
	if err != nil {
		tb.Fatal(err)
	}
	h, err := lifecycle.Compute(b)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := m.Trust("kit", h.Token()); err != nil {
		tb.Fatal(err)
	}
	if _, err := m.Enable("kit"); err != nil {
		tb.Fatal(err)
	}
}

func currentState(tb testing.TB, home string) *state.State {
	tb.Helper()
	s, err := lifecycle.New(bundle.Roots{Home: home}, bundle.Limits{}).LoadCurrentState()
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// TestChooseWorkspaceLinkedWorktree: the order hooks run takes the
// workspace in. Of the cwd and its ancestors the nearest trusted
// workspace wins; else, in a linked git worktree made outside the trusted
// checkout (its committed .bundlectl untrusted there), the checkout
// wins over that .bundlectl; a worktree trusted as a workspace of its own
// is nearer and wins; a workspace below the git top is found through
// its counterpart in the worktree, and no other directory of the
// worktree takes it; and a .git file planted in a trusted workspace
// never moves the choice out of it.
func TestChooseWorkspaceLinkedWorktree(t *testing.T) {
	f := newFixture(t)
	root := filepath.Dir(f.ws)
	gitIn(t, "init", "-q", f.ws)
	gitIn(t, "-C", f.ws, "add", "-A")
	gitIn(t, "-C", f.ws, "commit", "-q", "-m", "one")
	wt := filepath.Join(root, "wt")
	gitIn(t, "-C", f.ws, "worktree", "add", "-q", wt)
	must(t, os.MkdirAll(filepath.Join(wt, "sub"), 0o755))
	if _, err := os.Stat(filepath.Join(wt, ".bundlectl", "bundles", "kit")); err != nil {
		t.Fatalf("the worktree holds no committed bundle: %v", err)
	}
	// a workspace trusted of its own, elsewhere, whose .git is planted
	// in the fixture's workspace below
	other := filepath.Join(root, "other")
	writeBundle(t, filepath.Join(other, ".bundlectl", "bundles", "kit"), toolManifest, toolScripts)
	trustKitIn(t, f.home, other)
	gitIn(t, "init", "-q", other)
	gitIn(t, "-C", other, "commit", "-q", "--allow-empty", "-m", "one")
	otherWT := filepath.Join(root, "otherwt")
	gitIn(t, "-C", other, "worktree", "add", "-q", otherWT)
	plantedSub := filepath.Join(f.ws, "planted")
	must(t, os.MkdirAll(plantedSub, 0o755))
	b, err := os.ReadFile(filepath.Join(otherWT, ".git"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(plantedSub, ".git"), b, 0o644))

	// a workspace below the git top: its counterpart in the worktree
	mono := filepath.Join(root, "mono")
	app := filepath.Join(mono, "app")
	writeBundle(t, filepath.Join(app, ".bundlectl", "bundles", "kit"), toolManifest, toolScripts)
	trustKitIn(t, f.home, app)
	gitIn(t, "init", "-q", mono)
	gitIn(t, "-C", mono, "add", "-A")
	gitIn(t, "-C", mono, "commit", "-q", "-m", "one")
	monoWT := filepath.Join(root, "monowt")
	gitIn(t, "-C", mono, "worktree", "add", "-q", monoWT)
	must(t, os.MkdirAll(filepath.Join(monoWT, "app", "x", "y"), 0o755))
	must(t, os.MkdirAll(filepath.Join(monoWT, "lib"), 0o755))

	s := currentState(t, f.home)
	for _, c := range []struct{ dir, want string }{
		{filepath.Join(monoWT, "app", "x", "y"), app},
		{filepath.Join(monoWT, "app"), app},
		{filepath.Join(monoWT, "lib"), filepath.Join(monoWT, "lib")},
		{monoWT, monoWT},
		{filepath.Join(f.ws, "x"), f.ws},
		{wt, f.ws},
		{filepath.Join(wt, "sub"), f.ws},
		{plantedSub, f.ws},
		{otherWT, other},
	} {
		if got := harness.ChooseWorkspace(c.dir, s); got != c.want {
			t.Errorf("chooseWorkspace(%s) = %s, want %s", c.dir, got, c.want)
		}
	}

	// the worktree trusted as a workspace of its own is nearer
	trustKitIn(t, f.home, wt)
	s = currentState(t, f.home)
	if got := harness.ChooseWorkspace(filepath.Join(wt, "sub"), s); got != wt {
		t.Errorf("trusted worktree: chooseWorkspace = %s, want %s", got, wt)
	}
}

// BenchmarkChooseWorkspaceTrustedAncestor: the common case, a cwd three
// levels below a trusted workspace, reads no git file.
func BenchmarkChooseWorkspaceTrustedAncestor(b *testing.B) {
	root := b.TempDir()
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	files := map[string]string{"plugin.json": toolManifest}
	for rel, body := range toolScripts {
		files[rel] = body
	}
	for rel, body := range files {
		p := filepath.Join(ws, ".bundlectl", "bundles", "kit", rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	trustKitIn(b, home, ws)
	s := currentState(b, home)
	dir := filepath.Join(ws, "a", "b", "c")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if harness.ChooseWorkspace(dir, s) != ws {
			b.Fatal("not the workspace")
		}
	}
}
