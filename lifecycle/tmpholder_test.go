package lifecycle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/sources"
)

// holderFixture makes a workspace tmp holder for a home, and returns it
// with the workspace's tmp and a victim directory elsewhere.
func holderFixture(t *testing.T) (h *tmpHolder, tmp, victim string) {
	t.Helper()
	testOnlyWorkspaceTmp = true
	t.Cleanup(func() { testOnlyWorkspaceTmp = false })
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	victim = filepath.Join(dir, "victim")
	for _, d := range []string{filepath.Join(ws, ".bundlectl", "bundles"), victim} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	m := New(bundle.Roots{Home: filepath.Join(dir, "home"), Workspace: ws}, bundle.Limits{})
	h, err := m.fetchHolder(filepath.Join(ws, ".bundlectl", "bundles"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.close)
	return h, filepath.Join(ws, ".bundlectl", "tmp"), victim
}

// swapTmp renames the workspace's tmp away and puts a link to victim in
// its place, as a user who may write .bundlectl could; the returned func
// swaps it back.
func swapTmp(t *testing.T, tmp, victim string) (back func()) {
	t.Helper()
	if err := os.Rename(tmp, tmp+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, tmp); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := os.Remove(tmp); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp+".moved", tmp); err != nil {
			t.Fatal(err)
		}
	}
}

// A fetch that a swap redirected elsewhere is refused, whether the swap
// is still in place after it or was undone: the tree is taken only from
// the held directory.
func TestHolderRefusesRedirectedFetch(t *testing.T) {
	for _, undone := range []bool{false, true} {
		t.Run(map[bool]string{false: "left", true: "undone"}[undone], func(t *testing.T) {
			h, tmp, victim := holderFixture(t)
			res, err := h.fetch(func(parent string, held *os.Root) (*sources.Result, error) {
				back := swapTmp(t, tmp, victim)
				if undone {
					defer back()
				}
				// Where the path leads now: victim/<home key>/<holder>.
				if err := os.MkdirAll(parent, 0o700); err != nil {
					t.Fatal(err)
				}
				out, err := os.MkdirTemp(parent, sources.TempPrefix+"*")
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(out, "planted"), nil, 0o644); err != nil {
					t.Fatal(err)
				}
				return &sources.Result{Dir: out, Name: "good"}, nil
			})
			if err == nil {
				t.Fatalf("a fetch redirected by a swap was used: %s", res.Dir)
			}
			if !strings.Contains(err.Error(), "was replaced") {
				t.Fatalf("the refusal does not say the directory was replaced: %v", err)
			}
		})
	}
}

// The holder is removed where it is, by descriptor: a link put in place
// of the workspace's tmp after the check does not redirect the removal to
// what it points to.
func TestHolderRemovalIsNotRedirected(t *testing.T) {
	h, tmp, victim := holderFixture(t)
	if err := os.WriteFile(filepath.Join(h.path, "fetched"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	decoy := filepath.Join(victim, filepath.Base(h.dir), h.name)
	if err := os.MkdirAll(decoy, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(decoy, "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	swapTmp(t, tmp, victim)
	h.remove()
	if _, err := os.Stat(filepath.Join(decoy, "keep")); err != nil {
		t.Fatalf("the removal followed the link swapped in for tmp: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(tmp+".moved", filepath.Base(h.dir), h.name)); !os.IsNotExist(err) {
		t.Fatalf("the held directory was not removed: %v", err)
	}
}
