package lifecycle

import "testing"

// HoldFetchLock holds the fetch lock as an install would.
func HoldFetchLock(t testing.TB, m *Manager) func() {
	unlock, err := m.lockFetches()
	if err != nil {
		t.Fatal(err)
	}
	return unlock
}

// AfterSyncStaging runs f between SyncLocked's staging of the snapshots
// and its state update, until the test ends.
func AfterSyncStaging(t testing.TB, f func()) {
	testOnlyAfterStaging = f
	t.Cleanup(func() { testOnlyAfterStaging = nil })
}
