package state

import (
	"errors"
	"syscall"
	"time"
)

// Locker is a lock file WaitLock can take: a *flock.Flock, or a lock
// whose file the caller opened itself.
type Locker interface {
	Lock() error
	RLock() error
	Unlock() error
}

// WaitLock takes fl, shared or exclusive, waiting at most wait; waited
// reports that the wait ran out (err is then nil and the lock is not
// held). A blocking flock(2) is woken as soon as the holder releases
// (polling with TryLock would let newcomers starve a waiter), but nothing
// interrupts it: Ctrl-C and SIGTERM only cancel a context, and a holder
// that is stopped (Ctrl-Z) would hang the command for ever. So the wait
// runs on a goroutine of its own, and a waiter that gets the lock after
// the caller gave up releases it at once.
func WaitLock(fl Locker, shared bool, wait time.Duration) (waited bool, err error) {
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
