package harness_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
	"github.com/bundlectl/bundlectl/lifecycle"
)

// snapshotNamed returns the snapshot directory of the bundle name.
func snapshotNamed(t *testing.T, m *lifecycle.Manager, name string) string {
	t.Helper()
	s, err := m.LoadState()
	must(t, err)
	b, err := m.Find(m.Discover(), name)
	must(t, err)
	rec, _ := s.Bundle(b.ID)
	if rec.Receipt == nil {
		t.Fatalf("bundle %s has no receipt", name)
	}
	return rec.Receipt.Snapshot
}

// hangLimit bounds a wait that only a deadlock makes long: it detects a
// hang, it does not time the code.
const hangLimit = 2 * time.Minute

// The check of one bundle never waits for another's (the cost of a check
// does not grow with what else is installed): while bundle big's snapshot
// check is paused where it proves the content — the re-hash of a large
// snapshot — a tool of bundle kit is checked and runs to completion. A
// registry-wide lock held through the re-hash made kit wait for big. A
// second use of big started meanwhile waits for the first check instead
// of entering it alongside, and both uses of big succeed once it ends.
func TestOneBundlesCheckDoesNotHoldUpAnothers(t *testing.T) {
	for _, noWatch := range []bool{false, true} {
		t.Run(fmt.Sprintf("NoWatch=%v", noWatch), func(t *testing.T) {
			f := newFixture(t)
			writeBundle(t, filepath.Join(f.home, "bundles", "big"),
				strings.Replace(toolManifest, `"name": "kit"`, `"name": "big"`, 1), toolScripts)
			activate(t, f.m, "big")
			bigSnap := snapshotNamed(t, f.m, "big")
			if bigSnap == snapshotOf(t, f) {
				t.Fatal("big and kit share a snapshot: the test would pause both")
			}
			r := f.loadOpts(t, harness.Options{NoWatch: noWatch})

			paused, release := make(chan struct{}), make(chan struct{})
			var pauseOnce, releaseOnce sync.Once
			free := func() { releaseOnce.Do(func() { close(release) }) }
			var inside atomic.Int32
			var overlapped atomic.Bool
			harness.SetBeforeSnapshotCheck(func(snap string) {
				if snap != bigSnap {
					return
				}
				if inside.Add(1) > 1 {
					overlapped.Store(true)
				}
				defer inside.Add(-1)
				pauseOnce.Do(func() { close(paused) })
				<-release
			})
			var calls sync.WaitGroup
			t.Cleanup(func() {
				// Nothing may read the hook while it is reset.
				free()
				calls.Wait()
				harness.SetBeforeSnapshotCheck(nil)
			})
			call := func(tool string) <-chan error {
				done := make(chan error, 1)
				calls.Add(1)
				go func() {
					defer calls.Done()
					_, err := r.CallTool(context.Background(), tool, []byte(`{}`))
					done <- err
				}()
				return done
			}
			wait := func(done <-chan error, what string) error {
				t.Helper()
				select {
				case err := <-done:
					return err
				case <-time.After(hangLimit):
					t.Fatalf("%s never finished: it hangs", what)
					return nil
				}
			}

			big := call("plugin__big__touch")
			select {
			case <-paused:
			case <-time.After(hangLimit):
				t.Fatal("big's snapshot check never reached the point where it proves the content")
			}
			bigAgain := call("plugin__big__env")
			if err := wait(call("plugin__kit__touch"), "kit's tool, while big's snapshot check was paused, (one bundle's check holds up another's)"); err != nil {
				t.Fatalf("kit's tool while big's check was paused: %v", err)
			}
			if _, err := os.Stat(filepath.Join(f.dataDir(), "ran")); err != nil {
				t.Fatalf("kit's tool did not run: %v", err)
			}
			select {
			case err := <-big:
				t.Fatalf("big's use ended (%v) while its check was paused", err)
			case err := <-bigAgain:
				t.Fatalf("a second use of big ended (%v) while the first one's check was paused", err)
			default:
			}

			free()
			if err := wait(big, "big's tool"); err != nil {
				t.Fatalf("big's tool after its check: %v", err)
			}
			if err := wait(bigAgain, "the second use of big"); err != nil {
				t.Fatalf("the second use of big: %v", err)
			}
			if overlapped.Load() {
				t.Fatal("two checks of big's snapshot ran at once: one bundle's checks must run one at a time")
			}
		})
	}
}

// A document read while its snapshot was changed counts only if no change
// event arrived between the check before the read and the check after it,
// whoever made those checks. Here the document is tampered with just
// before Content reads it and restored just after, and another use of the
// same bundle checks it meanwhile: that check sees the events, re-verifies
// the restored snapshot and passes. Content must not take the check's
// clean result for its own and hand out the tampered bytes: they were
// never verified. A dirty bit that any check clears lost the events
// Content needed.
func TestContentIgnoresAReadOfATamperedSnapshotAnotherCheckMissed(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("change notification (inotify) is Linux only; without it the check after the read is the guard")
	}
	root := t.TempDir()
	f := &fixture{home: filepath.Join(root, "home"), ws: filepath.Join(root, "ws")}
	f.src = filepath.Join(f.ws, ".bundlectl", "bundles", "kit")
	good := "---\ndescription: reviewed\n---\nreviewed body\n"
	must(t, os.MkdirAll(filepath.Join(f.src, ".claude-plugin"), 0o755))
	must(t, os.WriteFile(filepath.Join(f.src, ".claude-plugin", "plugin.json"), []byte(`{"name": "kit", "version": "1.0.0"}`), 0o644))
	must(t, os.MkdirAll(filepath.Join(f.src, "skills", "a"), 0o755))
	must(t, os.WriteFile(filepath.Join(f.src, "skills", "a", "SKILL.md"), []byte(good), 0o644))
	f.m = lifecycle.New(bundle.Roots{Home: f.home, Workspace: f.ws}, bundle.Limits{})
	f.trust(t)
	if _, err := f.m.Enable("kit"); err != nil {
		t.Fatal(err)
	}
	r := f.loadOpts(t, harness.Options{})
	if got, err := r.Content("kit:a"); err != nil || string(got) != good {
		t.Fatalf("first Content = %q, %v; want the reviewed document", got, err)
	}
	doc := filepath.Join(snapshotOf(t, f), "skills", "a", "SKILL.md")
	fi, err := os.Lstat(doc)
	must(t, err)
	mode := fi.Mode().Perm()

	var before, after sync.Once
	var otherErr error
	harness.SetSnapshotReadHooks(func(string) {
		before.Do(func() {
			must(t, os.Chmod(doc, 0o600))
			must(t, os.WriteFile(doc, []byte("---\ndescription: evil\n---\nunreviewed body\n"), 0o600))
		})
	}, func(string) {
		after.Do(func() {
			must(t, os.WriteFile(doc, []byte(good), 0o600))
			must(t, os.Chmod(doc, mode))
			// Another goroutine's use of kit, between the read and
			// Content's own look at the change events.
			done := make(chan error)
			go func() { done <- r.Ready("kit") }()
			otherErr = <-done
		})
	})
	t.Cleanup(func() { harness.SetSnapshotReadHooks(nil, nil) })

	got, err := r.Content("kit:a")
	if otherErr != nil {
		t.Fatalf("the other use of kit, on the restored snapshot: %v", otherErr)
	}
	if strings.Contains(string(got), "unreviewed") {
		t.Fatalf("Content handed out the document as it was while tampered with: %q (err %v)", got, err)
	}
	if err != nil || string(got) != good {
		t.Fatalf("Content = %q, %v; want the reviewed document, read again", got, err)
	}
}

// A check proves the snapshot as of the moment it started: a change event
// that arrives while it runs (after it armed its watches, before it proves
// the content) sends the next check to re-verify, even though this one
// passed. Here the hook, at the point where the first check proves the
// content, changes a file's mode and restores it; the second use must
// re-verify (the hook runs again), and the third, with nothing changed
// since the second began, must not.
func TestAChangeDuringACheckIsCheckedNextTime(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("change notification (inotify) is Linux only")
	}
	f := newFixture(t)
	snap := snapshotOf(t, f)
	p := filepath.Join(snap, "bin", "env")
	fi, err := os.Lstat(p)
	must(t, err)
	var checks atomic.Int32 // a running tool's re-check calls the hook too
	harness.SetBeforeSnapshotCheck(func(string) {
		if checks.Add(1) == 1 {
			must(t, os.Chmod(p, 0o700))
			must(t, os.Chmod(p, fi.Mode().Perm()))
		}
	})
	t.Cleanup(func() { harness.SetBeforeSnapshotCheck(nil) })
	// No re-check while a tool runs: on a busy machine the first use's
	// tool can outlive the default poll interval, and that re-check would
	// prove the change before the second use (counted 2 after the first).
	r := f.loadOpts(t, harness.Options{PollInterval: time.Hour})
	for i, want := range []int32{1, 2, 2} {
		if _, err := r.CallTool(context.Background(), "plugin__kit__env", []byte(`{}`)); err != nil {
			t.Fatalf("use %d: %v", i+1, err)
		}
		if got := checks.Load(); got != want {
			t.Fatalf("after use %d the content was proved %d times, want %d", i+1, got, want)
		}
	}
}

// The ancestors a check records are those it started from, as with the
// generation: an ancestor of the snapshot swapped while the check runs
// (for a copy, equal in content, so the proof passes) must be checked
// again at the next use, since the watches armed before the swap are on
// the old directory's inodes. Recorded at the end of the check, the swapped
// directory's identity was taken for the proven one: the copy, watched by
// nothing, could then be changed and used unchecked.
func TestASnapshotSwappedDuringACheckIsCheckedNextTime(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("change notification (inotify) is Linux only")
	}
	cp, err := exec.LookPath("cp")
	if err != nil {
		t.Skip("no cp")
	}
	f := newFixture(t)
	snap := snapshotOf(t, f)
	// The store, the snapshot's parent: moving it raises no event on the
	// snapshot's own watches, only the ancestor check can see it.
	store := filepath.Dir(snap)
	var once sync.Once
	harness.SetBeforeSnapshotCheck(func(string) {
		once.Do(func() {
			must(t, os.Rename(store, store+".old"))
			if out, err := exec.Command(cp, "-a", store+".old", store).CombinedOutput(); err != nil {
				t.Errorf("cp -a: %v\n%s", err, out)
			}
		})
	})
	t.Cleanup(func() { harness.SetBeforeSnapshotCheck(nil) })
	r := f.loadOpts(t, harness.Options{})
	if _, err := r.CallTool(context.Background(), "plugin__kit__env", []byte(`{}`)); err != nil {
		t.Fatalf("the first use, on an equal copy: %v", err)
	}
	p := filepath.Join(snap, "bin", "touch")
	must(t, os.Chmod(p, 0o700))
	must(t, os.WriteFile(p, []byte("#!/bin/sh\ntouch \"$PLUGIN_DATA/ran\"\n#"), 0o500))
	_, err = r.CallTool(context.Background(), "plugin__kit__touch", []byte(`{}`))
	if !errors.Is(err, harness.ErrTampered) {
		t.Fatalf("a tool of the changed copy: err = %v, want ErrTampered", err)
	}
	if _, err := os.Stat(filepath.Join(f.dataDir(), "ran")); err == nil {
		t.Fatal("the tool ran from a snapshot changed after a swap the check did not record")
	}
}
