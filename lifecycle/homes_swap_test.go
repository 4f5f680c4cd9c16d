package lifecycle_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/sources"
)

// A user who may write the workspace's .bundlectl (one shared through a
// group) renames its homes directory away once a command opened it, and
// puts a symbolic link to a directory outside the workspace in its place.
// No marker may be written or removed through the link, nor read from
// it: mark (install) writes none in the link's target and refuses, unmark
// (uninstall --force, which removes every marker of the bundle) removes
// nothing there, and read (update) still finds the other home's marker
// and refuses to replace the tree it shares. (Before the markers were
// used by descriptor, all three failed: install wrote its marker in the
// target, uninstall removed the target's files, and update read the
// target's empty directory and replaced the shared tree.)
//
// name: the same with the bundle's directory in homes (homes/good)
// swapped for a link to the target's good.
func TestWorkspaceHomesSwappedAfterOpen(t *testing.T) {
	for _, sub := range []string{"mark", "unmark", "read", "name/mark", "name/unmark", "name/read"} {
		at, swapName := strings.TrimPrefix(sub, "name/"), strings.HasPrefix(sub, "name/")
		t.Run(sub, func(t *testing.T) {
			dir := t.TempDir()
			ws := filepath.Join(dir, "ws")
			src := filepath.Join(dir, "src", "good")
			writePlugin(t, src, "good")
			must(t, os.MkdirAll(filepath.Join(ws, ".bundlectl"), 0o755))
			homeA, homeB := filepath.Join(dir, "home-a"), filepath.Join(dir, "home-b")
			a, b := manager(homeA, ws), manager(homeB, ws)
			ctx := context.Background()
			install := func(m *lifecycle.Manager) error {
				_, err := m.Install(ctx, sources.Request{Source: src}, lifecycle.InstallOptions{Scope: bundle.ScopeWorkspace})
				return err
			}
			if at != "mark" {
				must(t, install(a))
			}
			if at == "read" {
				must(t, install(b)) // shares A's tree: B's marker
				must(t, os.WriteFile(filepath.Join(src, "README.md"), []byte("v2\n"), 0o644))
			}
			homes := filepath.Join(ws, ".bundlectl", lifecycle.HomesDir)
			victim := filepath.Join(dir, "victim")
			must(t, os.MkdirAll(filepath.Join(victim, "good"), 0o755))
			keyA := lifecycle.HomeKey(a)
			if at == "unmark" {
				must(t, os.WriteFile(filepath.Join(victim, "good", "precious"), []byte("keep me\n"), 0o644))
				must(t, os.WriteFile(filepath.Join(victim, "good", keyA), []byte("keep me too\n"), 0o644))
			}
			swapped := false
			lifecycle.OnMarkersOpened(t, func(where string) {
				if where != at || swapped {
					return
				}
				swapped = true
				if swapName {
					moved := filepath.Join(homes, "good.moved")
					must(t, os.Rename(filepath.Join(homes, "good"), moved))
					must(t, os.Symlink(filepath.Join(victim, "good"), filepath.Join(homes, "good")))
					return
				}
				must(t, os.Rename(homes, homes+".moved"))
				must(t, os.Symlink(victim, homes))
			})
			var err error
			switch at {
			case "mark":
				err = install(a)
			case "unmark":
				_, err = a.Uninstall("good", lifecycle.UninstallOptions{Scope: bundle.ScopeWorkspace, Force: true})
			case "read":
				_, err = a.Update(ctx, "good", lifecycle.UpdateOptions{})
			}
			if !swapped {
				t.Fatalf("the hook never ran (err %v)", err)
			}
			ents, rerr := os.ReadDir(filepath.Join(victim, "good"))
			must(t, rerr)
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			want := "[]"
			if at == "unmark" {
				want = "[" + keyA + " precious]"
			}
			if got := "[" + strings.Join(names, " ") + "]"; got != want {
				t.Fatalf("the link's target holds %s, want %s (err %v)", got, want, err)
			}
			switch at {
			case "mark":
				if !errors.Is(err, lifecycle.ErrRefused) || !strings.Contains(err.Error(), "symbolic link") {
					t.Fatalf("install: want a refusal naming the link, got %v", err)
				}
			case "unmark":
				must(t, err) // the tree is gone; the markers go from the directory held
				held := filepath.Join(homes+".moved", "good")
				if swapName {
					held = filepath.Join(homes, "good.moved")
				}
				if _, err := os.Stat(filepath.Join(held, keyA)); !os.IsNotExist(err) {
					t.Errorf("the marker in the directory held is still there: %v", err)
				}
			case "read":
				if !errors.Is(err, lifecycle.ErrRefused) || !strings.Contains(err.Error(), homeB) {
					t.Fatalf("update: want the refusal naming home B, got %v", err)
				}
			}
		})
	}
}

// A workspace is a repository anyone may have written, and a user who
// may write its .bundlectl can plant a hard link to a file of this
// user's elsewhere under the name of this home's marker. Writing the
// marker replaces that name; it never writes through it: the file keeps
// its content. (Before, the marker was opened with O_TRUNC and written
// in place: the file was truncated and held the home's path.)
func TestMarkerHardLinkIsReplacedNotWritten(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	src := filepath.Join(dir, "src", "good")
	writePlugin(t, src, "good")
	m := manager(filepath.Join(dir, "home"), ws)
	marks := filepath.Join(ws, ".bundlectl", lifecycle.HomesDir, "good")
	must(t, os.MkdirAll(marks, 0o755))
	victim := filepath.Join(dir, "victim")
	must(t, os.WriteFile(victim, []byte("keep me\n"), 0o644))
	must(t, os.Link(victim, filepath.Join(marks, lifecycle.HomeKey(m))))
	_, err := m.Install(context.Background(), sources.Request{Source: src}, lifecycle.InstallOptions{Scope: bundle.ScopeWorkspace})
	must(t, err)
	if b, _ := os.ReadFile(victim); string(b) != "keep me\n" {
		t.Fatalf("the marker was written through a hard link: the file holds %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(marks, lifecycle.HomeKey(m))); string(b) != filepath.Join(dir, "home")+"\n" {
		t.Fatalf("the marker holds %q", b)
	}
}
