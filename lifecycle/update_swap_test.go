package lifecycle_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/sources"
	"golang.org/x/sys/unix"
)

// installedForUpdate installs the bundle "good" from a source of its own
// in scope, then changes the source so that an update replaces the tree.
// It returns the manager and the installed directory.
func installedForUpdate(t *testing.T, scope bundle.Scope) (*lifecycle.Manager, string) {
	t.Helper()
	dir := t.TempDir()
	ws, home, src := filepath.Join(dir, "ws"), filepath.Join(dir, "home"), filepath.Join(dir, "src", "good")
	must(t, os.MkdirAll(ws, 0o755))
	writePlugin(t, src, "good")
	m := manager(home, ws)
	if _, err := m.Install(context.Background(), sources.Request{Source: src}, lifecycle.InstallOptions{Scope: scope}); err != nil {
		t.Fatal(err)
	}
	b, err := m.Find(m.Discover(), "good")
	must(t, err)
	must(t, os.WriteFile(filepath.Join(src, "README.md"), []byte("v2\n"), 0o644))
	return m, b.Dir
}

func writePlugin(t *testing.T, dir, name string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Join(dir, ".claude-plugin"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, ".claude-plugin", "plugin.json"), []byte(`{"name":"`+name+`"}`), 0o644))
}

func wantRefusedUpdate(t *testing.T, err error, says string) {
	t.Helper()
	var se *lifecycle.SourceError
	if !errors.As(err, &se) || !errors.Is(err, lifecycle.ErrRefused) || !strings.Contains(se.Reason, says) || se.Fix != "bundlectl update good" {
		t.Fatalf("update: want a refusal saying %q with the hint bundlectl update good, got %v", says, err)
	}
}

// The bundle's directory cannot be read when the update starts (here it
// is a symbolic link), and another directory is put in its place before
// the swap: neither tree could be compared (both nil), so only the
// directory's identity tells them apart. Update must not swap out, and
// delete, a directory it never saw — not even with --discard-local.
func TestUpdateRefusesDirectoryReplacedWhenTreesUnreadable(t *testing.T) {
	for _, scope := range []bundle.Scope{bundle.ScopeWorkspace, bundle.ScopeUser} {
		t.Run(string(scope), func(t *testing.T) {
			m, dir := installedForUpdate(t, scope)
			elsewhere := filepath.Join(t.TempDir(), "elsewhere")
			must(t, os.Rename(dir, elsewhere))
			must(t, os.Symlink(elsewhere, dir))
			lifecycle.OnUpdateSwap(t, func(at string) {
				if at != "checking" {
					return
				}
				must(t, os.Remove(dir))
				writePlugin(t, dir, "good")
				must(t, os.WriteFile(filepath.Join(dir, "SOMEONES.md"), []byte("not seen by this update\n"), 0o644))
			})
			_, err := m.Update(context.Background(), "good", lifecycle.UpdateOptions{DiscardLocal: true})
			wantRefusedUpdate(t, err, "was replaced by another directory while it was being updated")
			if got, err := os.ReadFile(filepath.Join(dir, "SOMEONES.md")); err != nil || string(got) != "not seen by this update\n" {
				t.Fatalf("the directory put in place meanwhile was replaced: %q %v", got, err)
			}
		})
	}
}

// A file written in the bundle's directory after update's last check and
// before the exchange (a process writing in it) would be deleted with
// the old tree: the update puts the tree back as it is and refuses.
func TestUpdatePutsBackTreeEditedRightBeforeSwap(t *testing.T) {
	for _, discard := range []bool{false, true} {
		for _, scope := range []bundle.Scope{bundle.ScopeWorkspace, bundle.ScopeUser} {
			t.Run(string(scope)+map[bool]string{true: "/discard-local"}[discard], func(t *testing.T) {
				m, dir := installedForUpdate(t, scope)
				lifecycle.OnUpdateSwap(t, func(at string) {
					if at == "exchanging" {
						must(t, os.WriteFile(filepath.Join(dir, "NOTES.md"), []byte("written meanwhile\n"), 0o644))
					}
				})
				_, err := m.Update(context.Background(), "good", lifecycle.UpdateOptions{DiscardLocal: discard})
				wantRefusedUpdate(t, err, "changed right before the swap, after its last check; it was put back as it was")
				if got, err := os.ReadFile(filepath.Join(dir, "NOTES.md")); err != nil || string(got) != "written meanwhile\n" {
					t.Fatalf("the file written right before the swap was lost: %q %v", got, err)
				}
				if _, err := os.Stat(filepath.Join(dir, "README.md")); err == nil {
					t.Fatal("the new tree is in place after the refusal")
				}
				// Nothing was recorded: once the writer is done, the
				// edit is refused as one, and --discard-local replaces it.
				lifecycle.OnUpdateSwap(t, nil)
				if _, err := m.Update(context.Background(), "good", lifecycle.UpdateOptions{}); !errors.Is(err, lifecycle.ErrRefused) || !strings.Contains(err.Error(), "NOTES.md") && !strings.Contains(err.Error(), "edited") {
					t.Fatalf("the next update: %v", err)
				}
				if up, err := m.Update(context.Background(), "good", lifecycle.UpdateOptions{DiscardLocal: true}); err != nil || !up.Changed {
					t.Fatalf("the next update --discard-local: %+v %v", up, err)
				}
			})
		}
	}
}

// A workspace bundle edited after update compared it, under the
// workspace lock, with the tree fetched, and before the last check: with
// --discard-local the edit check is skipped, and the edit, which this
// update never saw, would be deleted. It refuses and keeps the edit.
func TestUpdateDiscardLocalKeepsWorkspaceEditAfterCompare(t *testing.T) {
	m, dir := installedForUpdate(t, bundle.ScopeWorkspace)
	lifecycle.OnUpdateSwap(t, func(at string) {
		if at == "checking" {
			must(t, os.WriteFile(filepath.Join(dir, "NOTES.md"), []byte("written meanwhile\n"), 0o644))
		}
	})
	_, err := m.Update(context.Background(), "good", lifecycle.UpdateOptions{DiscardLocal: true})
	wantRefusedUpdate(t, err, "changed while it was being updated, after it was compared with the tree fetched")
	if got, err := os.ReadFile(filepath.Join(dir, "NOTES.md")); err != nil || string(got) != "written meanwhile\n" {
		t.Fatalf("the edit made after the comparison was lost: %q %v", got, err)
	}
}

// A symbolic link added right before the exchange is not in the content
// hash, but the edit check protects one added by hand: the update puts
// the tree back with it and refuses.
func TestUpdatePutsBackTreeWithLinkAddedRightBeforeSwap(t *testing.T) {
	m, dir := installedForUpdate(t, bundle.ScopeUser)
	lifecycle.OnUpdateSwap(t, func(at string) {
		if at == "exchanging" {
			must(t, os.Symlink("/etc", filepath.Join(dir, "mine")))
		}
	})
	_, err := m.Update(context.Background(), "good", lifecycle.UpdateOptions{})
	wantRefusedUpdate(t, err, "changed right before the swap, after its last check; it was put back as it was")
	if target, err := os.Readlink(filepath.Join(dir, "mine")); err != nil || target != "/etc" {
		t.Fatalf("the link added right before the swap was lost: %q %v", target, err)
	}
}

// Right before the exchange, the directory is moved aside and a copy of
// it, identical in content, put in place: what the exchange moved out is
// not the directory checked. The update puts it back and refuses.
func TestUpdatePutsBackDirectoryReplacedRightBeforeSwap(t *testing.T) {
	m, dir := installedForUpdate(t, bundle.ScopeWorkspace)
	aside := filepath.Join(t.TempDir(), "aside")
	lifecycle.OnUpdateSwap(t, func(at string) {
		if at != "exchanging" {
			return
		}
		must(t, os.Rename(dir, aside))
		writePlugin(t, dir, "good")
	})
	_, err := m.Update(context.Background(), "good", lifecycle.UpdateOptions{})
	wantRefusedUpdate(t, err, "was replaced by another directory right before the swap; it was put back as it was")
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err == nil {
		t.Fatal("the new tree is in place after the refusal")
	}
	if _, err := os.Stat(filepath.Join(dir, ".claude-plugin", "plugin.json")); err != nil {
		t.Fatalf("the directory put in place right before the swap is gone: %v", err)
	}
}

// A process keeps writing in the bundle's directory while it is updated,
// with --discard-local or without: update checks it once and never retries, so it
// ends (refused, or replaced when its last check and the swap fell
// between two writes) after one attempt at the swap at most. A refusal
// leaves every write in place and names its command (not the walker's
// error, as it did when the tree was still changing as it was compared).
func TestUpdateDoesNotRetryWhileDirectoryKeepsChanging(t *testing.T) {
	for _, c := range []struct {
		scope   bundle.Scope
		discard bool
	}{{bundle.ScopeWorkspace, true}, {bundle.ScopeUser, true}, {bundle.ScopeWorkspace, false}, {bundle.ScopeUser, false}} {
		scope := c.scope
		t.Run(fmt.Sprintf("%s/discard=%v", scope, c.discard), func(t *testing.T) {
			m, dir := installedForUpdate(t, scope)
			attempts := 0
			lifecycle.OnUpdateSwap(t, func(at string) {
				if at == "checking" {
					attempts++
				}
			})
			stop, done := make(chan struct{}), make(chan int)
			go func() {
				n := 0
				for {
					select {
					case <-stop:
						done <- n
						return
					default:
					}
					n++
					os.WriteFile(filepath.Join(dir, "LOG.md"), []byte(strings.Repeat("x", n%4096)), 0o644)
				}
			}()
			_, err := m.Update(context.Background(), "good", lifecycle.UpdateOptions{DiscardLocal: c.discard})
			close(stop)
			<-done
			if attempts > 1 {
				t.Fatalf("update attempted the swap %d times", attempts)
			}
			if err != nil {
				var se *lifecycle.SourceError
				if !errors.Is(err, lifecycle.ErrRefused) || !errors.As(err, &se) || !strings.HasPrefix(se.Fix, "bundlectl update ") {
					t.Fatalf("update: %v", err)
				}
				if _, err := os.Stat(filepath.Join(dir, "LOG.md")); err != nil {
					t.Fatalf("a refused update lost the writer's file: %v", err)
				}
			}
		})
	}
}

// A process that holds the bundle's directory open writes in it right
// after the exchange moved it out, and the new tree is moved away before
// the update can put the old one back: the update cannot put it back,
// and must not then delete it, with the write, along with its fetch
// directory. It says where the tree is.
func TestUpdateKeepsTreeItCannotPutBack(t *testing.T) {
	for _, scope := range []bundle.Scope{bundle.ScopeWorkspace, bundle.ScopeUser} {
		t.Run(string(scope), func(t *testing.T) {
			m, dir := installedForUpdate(t, scope)
			var held *os.File
			lifecycle.OnUpdateSwap(t, func(at string) {
				switch at {
				case "exchanging":
					f, err := os.Open(dir)
					must(t, err)
					held = f
				case "exchanged":
					fd, err := unix.Openat(int(held.Fd()), "NOTES.md", unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL, 0o644)
					must(t, err)
					unix.Write(fd, []byte("written by a process holding it open\n"))
					unix.Close(fd)
					must(t, os.Rename(dir, dir+".away"))
				}
			})
			_, err := m.Update(context.Background(), "good", lifecycle.UpdateOptions{})
			if held != nil {
				held.Close()
			}
			if err == nil || !strings.Contains(err.Error(), "cannot put back") {
				t.Fatalf("update: %v, want it could not put the tree back", err)
			}
			// The error names where the tree is: every quoted path in it
			// is tried.
			found := false
			for _, part := range strings.Split(err.Error(), "\"") {
				if got, rerr := os.ReadFile(filepath.Join(part, "NOTES.md")); rerr == nil && string(got) == "written by a process holding it open\n" {
					found = true
				}
			}
			if !found {
				t.Fatalf("the tree update could not put back, with the write in it, is gone (or not named): %v", err)
			}
		})
	}
}
