package harness

import (
	"context"
	"net"
	"net/netip"
	"time"
)

// FullVerifications exposes the count of full verifications to the
// external tests.
var FullVerifications = &fullVerifications

// SetBeforeSnapshotCheck sets the hook an integrity check calls, with the
// snapshot directory, just before it proves the snapshot's content; nil
// removes it.
func SetBeforeSnapshotCheck(f func(snapshot string)) { testOnlyBeforeSnapshotCheck = f }

// SetSnapshotReadHooks sets the hooks Content calls, with the snapshot
// directory, just before and just after it reads a document of the
// snapshot; nil removes them.
func SetSnapshotReadHooks(before, after func(snapshot string)) {
	testOnlyBeforeSnapshotRead, testOnlyAfterSnapshotRead = before, after
}

// SetHookLimit makes a hook whose host waits past MaxTimeout time out
// after d instead; 0 restores MaxTimeout.
func SetHookLimit(d time.Duration) { testOnlyLimit = d }

// SetHookHostLookup makes an http hook's host name resolve with f; nil
// restores the system resolver.
func SetHookHostLookup(f func(ctx context.Context, host string) ([]netip.Addr, error)) {
	if f == nil {
		f = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	testOnlyLookupHookHost = f
}

// ChooseWorkspace exposes chooseWorkspace to the external tests.
var ChooseWorkspace = chooseWorkspace
