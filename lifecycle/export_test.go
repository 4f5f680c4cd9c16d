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
