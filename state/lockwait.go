package state

import (
	"errors"
	"syscall"
	"time"

	"github.com/gofrs/flock"
)

// WaitLock takes fl, shared or exclusive, waiting at most wait; waited
// reports that the wait ran out (err is then nil and the lock is not
// held). A blocking flock(2) is woken as soon as the holder releases
// (polling with TryLock would let newcomers starve a waiter), but nothing
// interrupts it: Ctrl-C and SIGTERM only cancel a context, and a holder
// that is stopped (Ctrl-Z) would hang the command for ever. So the wait
// runs on a goroutine of its own, and a waiter that gets the lock after
// the caller gave up releases it at once.
func WaitLock(fl *flock.Flock, shared bool, wait time.Duration) (waited bool, err error) {
	take := fl.Lock
	if shared {
		take = fl.RLock
	}
	done := make(chan error, 1)
	go func() {
		for {
			err := take()
			if !errors.Is(err, syscall.EINTR) {
				done <- err
				return
			}
		}
	}()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case err := <-done:
		return false, err
	case <-timer.C:
		go func() {
			if <-done == nil {
				_ = fl.Unlock()
			}
		}()
		return true, nil
	}
}
