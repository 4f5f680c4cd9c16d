package lifecycle

import (
	"testing"
	"time"
)

// HoldFetchLock holds the fetch lock as an install would.
func HoldFetchLock(t testing.TB, m *Manager) func() {
	unlock, err := m.lockFetches()
	if err != nil {
		t.Fatal(err)
	}
	return unlock
}

// ShortenFetchLockWait makes lockFetches give up after d, until the test
// ends.
func ShortenFetchLockWait(t testing.TB, d time.Duration) {
	old := testOnlyFetchLockWait
	testOnlyFetchLockWait = d
	t.Cleanup(func() { testOnlyFetchLockWait = old })
}

// AfterSyncStaging runs f between SyncLocked's staging of the snapshots
// and its state update, until the test ends.
func AfterSyncStaging(t testing.TB, f func()) {
	testOnlyAfterStaging = f
	t.Cleanup(func() { testOnlyAfterStaging = nil })
}

// AfterVerifyLoad runs f in Verify right after it read the state, until
// the test ends.
func AfterVerifyLoad(t testing.TB, f func()) {
	testOnlyVerifyLoaded = f
	t.Cleanup(func() { testOnlyVerifyLoaded = nil })
}

// OnFetchLockOpened runs f in lockFetches between opening the fetch lock
// file and locking it, until the test ends.
func OnFetchLockOpened(t testing.TB, f func()) {
	testOnlyFetchLockOpened = f
	t.Cleanup(func() { testOnlyFetchLockOpened = nil })
}

// AfterTrustComputed runs f in Trust between the hash and the copy.
func AfterTrustComputed(t testing.TB, f func()) {
	testOnlyTrustComputed = f
	t.Cleanup(func() { testOnlyTrustComputed = nil })
}

// OnInstallLocked runs f in Install once it holds the fetch lock and has
// its root, until the test ends.
func OnInstallLocked(t testing.TB, f func()) {
	testOnlyInstallLocked = f
	t.Cleanup(func() { testOnlyInstallLocked = nil })
}

// OnUninstallChecked runs f in Uninstall between its check of the other
// homes' markers and its move of the tree, until the test ends.
func OnUninstallChecked(t testing.TB, f func()) {
	testOnlyUninstallChecked = f
	t.Cleanup(func() { testOnlyUninstallChecked = nil })
}

// OnUpdateLocked runs f in Update once it holds the workspace lock
// exclusively, right before the swap, until the test ends.
func OnUpdateLocked(t testing.TB, f func()) {
	testOnlyUpdateLocked = f
	t.Cleanup(func() { testOnlyUpdateLocked = nil })
}

// OnInstallFetched runs f in Install once the fetched tree is staged in
// its tmp directory, until the test ends.
func OnInstallFetched(t testing.TB, f func()) {
	testOnlyInstallFetched = f
	t.Cleanup(func() { testOnlyInstallFetched = nil })
}

// UseWorkspaceTmp makes this process fetch as a home on another file
// system than the workspace does (into the workspace's tmp), until the
// test ends.
func UseWorkspaceTmp(t testing.TB) {
	testOnlyWorkspaceTmp = true
	t.Cleanup(func() { testOnlyWorkspaceTmp = false })
}

// OnUpdateFetched runs f in Update of a workspace bundle once the fetch
// is validated and compared, before the workspace lock, until the test
// ends.
func OnUpdateFetched(t testing.TB, f func()) {
	testOnlyUpdateFetched = f
	t.Cleanup(func() { testOnlyUpdateFetched = nil })
}

// HomeKey is m's home key (the name of its markers and of its directory
// in a workspace's tmp).
func HomeKey(m *Manager) string { return m.homeKey() }

// OnTmpHolderMade runs f once a command checked its tmp directory and
// made its holder there, before any use, until the test ends.
func OnTmpHolderMade(t testing.TB, f func()) {
	testOnlyHolderMade = f
	t.Cleanup(func() { testOnlyHolderMade = nil })
}

// OnUpdateSwap runs f in Update under the state lock, with "checking"
// before the last checks of the directory in place, "exchanging"
// between them and the exchange and "exchanged" right after it, until
// the test ends.
func OnUpdateSwap(t testing.TB, f func(at string)) {
	testOnlyUpdateSwap = f
	t.Cleanup(func() { testOnlyUpdateSwap = nil })
}

// OnRootChecked runs f once a command found the workspace's bundle root
// still where it opened it, right before a move into or out of it, until
// the test ends.
func OnRootChecked(t testing.TB, f func()) {
	testOnlyRootChecked = f
	t.Cleanup(func() { testOnlyRootChecked = nil })
}

// OnMarkersOpened runs f once a command opened the workspace's marker
// directory of a bundle, before it writes ("mark"), removes ("unmark") or
// reads ("read") markers there, until the test ends.
func OnMarkersOpened(t testing.TB, f func(at string)) {
	testOnlyMarkersOpened = f
	t.Cleanup(func() { testOnlyMarkersOpened = nil })
}

// OnFetchStarting runs f once a command checked its tmp holder and opened
// it for the fetch, right before the fetch, until the test ends.
func OnFetchStarting(t testing.TB, f func()) {
	testOnlyFetchStarting = f
	t.Cleanup(func() { testOnlyFetchStarting = nil })
}

// OnValidating runs f right before a command reads the fetched tree dir
// to validate it, and what f returns right after, until the test ends.
func OnValidating(t testing.TB, f func(dir string) func()) {
	testOnlyValidating = f
	t.Cleanup(func() { testOnlyValidating = nil })
}
