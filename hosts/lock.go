package hosts

import (
	"fmt"
	"time"

	"github.com/gofrs/flock"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/state"
)

// testOnlyLockWait is how long takeLock waits (tests shorten it).
var testOnlyLockWait = state.LockWait

// LockBusyError reports that a lock of exec or setup was not taken within
// the bounded wait. It matches state.ErrLocked and
// lifecycle.ErrStateUnusable: exit 4, and the command to run again.
type LockBusyError struct {
	Path   string
	Holder string // who holds such a lock, for the message
	Waited time.Duration
}

func (e *LockBusyError) Error() string {
	return fmt.Sprintf("lock %s is held by another process (waited %s): %s, or one that is stopped; run this command again when it has finished", bundle.Quote(e.Path), e.Waited, e.Holder)
}

func (e *LockBusyError) Unwrap() []error {
	return []error{state.ErrLocked, lifecycle.ErrStateUnusable}
}

// takeLock takes the exclusive lock at path, waiting at most
// testOnlyLockWait as the state lock does (state.WaitLock): a holder
// stopped with Ctrl-Z must not hang every later launch, deaf to Ctrl-C.
func takeLock(path, holder string) (unlock func(), err error) {
	l := flock.New(path)
	waited, err := state.WaitLock(l, false, testOnlyLockWait)
	if waited {
		return nil, &LockBusyError{Path: path, Holder: holder, Waited: testOnlyLockWait}
	}
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", bundle.Quote(path), err)
	}
	return func() { _ = l.Unlock() }, nil
}
