package hosts

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/state"
)

// holdLock takes the lock at path on a file description of its own (a
// stopped launch or setup holding it) until the test ends.
func holdLock(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	l := flock.New(path)
	if err := l.Lock(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Unlock() })
}

func shortLockWait(t *testing.T) {
	old := testOnlyLockWait
	testOnlyLockWait = 50 * time.Millisecond
	t.Cleanup(func() { testOnlyLockWait = old })
}

func wantBusy(t *testing.T, err error, path string) {
	t.Helper()
	var busy *LockBusyError
	if !errors.As(err, &busy) || busy.Path != path {
		t.Fatalf("err = %v, want a LockBusyError for %s", err, path)
	}
	if !errors.Is(err, state.ErrLocked) || !errors.Is(err, lifecycle.ErrStateUnusable) {
		t.Errorf("%v does not match state.ErrLocked and lifecycle.ErrStateUnusable (exit 4, the rerun hint)", err)
	}
}

// TestMaterializeLockWaitIsBounded: a launch whose view lock another
// (stopped) launch holds gives up with an error that says to run it again,
// instead of waiting for ever, deaf to Ctrl-C.
func TestMaterializeLockWaitIsBounded(t *testing.T) {
	shortLockWait(t)
	views := filepath.Join(t.TempDir(), "views")
	t.Cleanup(func() { writable(views) })
	lock := filepath.Join(views, "tok", "claude", ".lock")
	if _, err := Materialize(views, "tok", "claude", "b", testView(t)); err != nil {
		t.Fatal(err)
	}
	holdLock(t, lock)
	_, err := Materialize(views, "tok", "claude", "b", testView(t))
	wantBusy(t, err, lock)
}

// TestSetupLockWaitIsBounded: the same for setup's lock.
func TestSetupLockWaitIsBounded(t *testing.T) {
	shortLockWait(t)
	home := t.TempDir()
	lock := filepath.Join(setupDir(home), ".lock")
	holdLock(t, lock)
	_, err := lockSetup(home)
	wantBusy(t, err, lock)
}
