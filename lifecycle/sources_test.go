package lifecycle_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/sources"
	"github.com/bundlectl/bundlectl/state"
	"github.com/gofrs/flock"
)

func entries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func install(t *testing.T, m *lifecycle.Manager, src, name string) *lifecycle.Installed {
	t.Helper()
	in, err := m.Install(context.Background(), sources.Request{Source: src}, lifecycle.InstallOptions{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestInstallRefusesInvalidAndLeavesNothing: a tree discovery would reject
// is not installed, and neither the root nor the home's tmp keeps anything.
func TestInstallRefusesInvalidAndLeavesNothing(t *testing.T) {
	home, ws := newWorkspace(t)
	src := filepath.Join(t.TempDir(), "bad")
	writeBundle(t, src, "bad", "v1")
	if err := os.WriteFile(filepath.Join(src, "plugin.json"), []byte(`{"name": "bad",`), 0o644); err != nil {
		t.Fatal(err)
	}
	m := manager(home, ws)
	_, err := m.Install(context.Background(), sources.Request{Source: src}, lifecycle.InstallOptions{})
	if !errors.Is(err, lifecycle.ErrRefused) || !strings.Contains(err.Error(), "invalid") {
		t.Fatalf("install of an invalid bundle: %v", err)
	}
	if e := entries(t, filepath.Join(home, "bundles")); len(e) != 0 {
		t.Errorf("the root holds %v", e)
	}
	if e := entries(t, filepath.Join(home, "tmp")); len(e) != 0 {
		t.Errorf("tmp holds %v", e)
	}
}

// TestInstallNeverInheritsAStaleReceipt: a bundle removed by hand leaves
// its state record; a different bundle installed at the same path starts
// untrusted and disabled, never running the old snapshot.
func TestInstallNeverInheritsAStaleReceipt(t *testing.T) {
	home, ws := newWorkspace(t)
	m := manager(home, ws)
	old := filepath.Join(home, "bundles", "kit")
	writeBundle(t, old, "kit", "v1")
	if _, err := m.Trust("kit", tokenOf(t, m, "kit")); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Enable("kit"); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(old); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "kit")
	writeBundle(t, src, "kit", "v2")
	in := install(t, m, src, "")
	if len(in.Notes) == 0 || !strings.Contains(in.Notes[0], "cleared") {
		t.Errorf("notes %q", in.Notes)
	}
	st := status(t, m, "kit")
	if st.Trusted || st.Enabled || st.Active {
		t.Fatalf("a fresh install inherited the old record: %+v", st)
	}
}

// TestGCLeftoversOnlyWhenNoFetchRuns: gc removes what a killed fetch left
// in tmp, but not while an install holds the fetch lock (its directories
// are in use).
func TestGCLeftoversOnlyWhenNoFetchRuns(t *testing.T) {
	home, ws := newWorkspace(t)
	m := manager(home, ws)
	left := filepath.Join(home, lifecycle.TmpDir, sources.TempPrefix+"123")
	if err := os.MkdirAll(filepath.Join(left, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	unlock := lifecycle.HoldFetchLock(t, m)
	if _, err := m.GC(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(left); err != nil {
		t.Fatalf("gc removed a directory while a fetch was running: %v", err)
	}
	unlock()
	removed, err := m.GC()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(left); !errors.Is(err, os.ErrNotExist) || len(removed) != 1 {
		t.Fatalf("gc left %s (removed %v)", left, removed)
	}
}

// TestUpdateReplacesAndKeepsTrust: update swaps the new tree in, records
// the source, and trusts nothing: the receipt still names the old tree,
// so the bundle is an update pending review.
func TestUpdateReplacesAndKeepsTrust(t *testing.T) {
	home, ws := newWorkspace(t)
	m := manager(home, ws)
	src := filepath.Join(t.TempDir(), "kit")
	writeBundle(t, src, "kit", "v1")
	install(t, m, src, "")
	tok := tokenOf(t, m, "kit")
	if _, err := m.Trust("kit", tok); err != nil {
		t.Fatal(err)
	}
	up, err := m.Update(context.Background(), "kit", lifecycle.UpdateOptions{})
	if err != nil || up.Changed || up.Pending {
		t.Fatalf("update of an unchanged source: %+v, %v", up, err)
	}
	writeBundle(t, src, "kit", "v2")
	up, err = m.Update(context.Background(), "kit", lifecycle.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !up.Changed || !up.Pending || len(up.Files.Changed) != 2 {
		t.Fatalf("update: %+v", up)
	}
	st := status(t, m, "kit")
	if !st.Trusted || !st.UpdatePending {
		t.Fatalf("after update: %+v", st)
	}
	b, err := m.Find(m.Discover(), "kit")
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.LoadState()
	if err != nil {
		t.Fatal(err)
	}
	d := m.DiffSinceTrust(b, s)
	if d == nil || len(d.Files.Changed) != 2 || d.Since.Token != tok {
		t.Fatalf("diff since trust: %+v", d)
	}
	if e := entries(t, filepath.Join(home, "tmp")); len(e) != 0 {
		t.Errorf("tmp holds %v", e)
	}
}

// TestUpdateNeedsARecordedSource: a bundle placed by hand has nothing to
// fetch again.
func TestUpdateNeedsARecordedSource(t *testing.T) {
	home, ws := newWorkspace(t, "kit")
	m := manager(home, ws)
	_, err := m.Update(context.Background(), "kit", lifecycle.UpdateOptions{})
	if !errors.Is(err, lifecycle.ErrRefused) || !strings.Contains(err.Error(), "by hand") {
		t.Fatalf("update of a hand-placed bundle: %v", err)
	}
}

// TestConfigureNeverCarriesAValue: a refused value is not in the error,
// and the stored file is 0600 whatever the umask.
func TestConfigureNeverCarriesAValue(t *testing.T) {
	home, ws := newWorkspace(t)
	dir := filepath.Join(home, "bundles", "cc")
	for p, body := range map[string]string{
		".claude-plugin/plugin.json": `{"name": "cc", "userConfig": {"token": {"type": "number", "title": "t", "description": "d", "sensitive": true}}}`,
		"commands/hi.md":             "say hi\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := manager(home, ws)
	_, err := m.Configure("cc", map[string]string{"token": "secret-not-a-number"}, nil)
	if err == nil || strings.Contains(err.Error(), "secret") {
		t.Fatalf("refused value: %v", err)
	}
	if _, err := m.Configure("cc", map[string]string{"nope": "secret-value"}, nil); err == nil || strings.Contains(err.Error(), "secret") {
		t.Fatalf("undeclared key: %v", err)
	}
	// Bytes that are not UTF-8 would be stored as U+FFFD: refused.
	if _, err := m.Configure("cc", map[string]string{"token": "4\xff2"}, nil); err == nil || !strings.Contains(err.Error(), "UTF-8") {
		t.Fatalf("a value that is not UTF-8: %v", err)
	}
	old := umask(0)
	c, err := m.Configure("cc", map[string]string{"token": "42"}, nil)
	umask(old)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(c.File)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("options file %v, %v", fi.Mode(), err)
	}
	// A file others can read is not silently rewritten (it may hold
	// secrets bundlectl did not write; the runtime ignores it).
	if err := os.Chmod(c.File, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Configure("cc", map[string]string{"token": "43"}, nil); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("group-readable options file: %v", err)
	}
}

// TestSyncSurvivesGCBetweenStagingAndPlacing: sync stages the snapshots
// before the state update that records their receipts; a gc run in
// between removes them (no receipt names them yet), and the sync stages
// them again instead of failing.
func TestSyncSurvivesGCBetweenStagingAndPlacing(t *testing.T) {
	home, ws := newWorkspace(t)
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "kit")
	writeBundle(t, src, "kit", "v1")
	m := manager(home, ws)
	install(t, m, src, "")
	if _, err := m.Trust("kit", tokenOf(t, m, "kit")); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Lock(lifecycle.LockOptions{AllowUnpinned: true}); err != nil {
		t.Fatal(err)
	}
	path, err := m.LockPath()
	if err != nil {
		t.Fatal(err)
	}

	home2 := filepath.Join(t.TempDir(), "home2")
	m2 := manager(home2, ws)
	gcRemoved := 0
	lifecycle.AfterSyncStaging(t, func() {
		removed, err := m2.GC()
		if err != nil {
			t.Errorf("gc: %v", err)
		}
		for _, p := range removed {
			if filepath.Dir(p) == filepath.Join(home2, "store") {
				gcRemoved++
			}
		}
	})
	res, err := m2.SyncLocked(context.Background(), path, lifecycle.SyncOptions{})
	if err != nil {
		t.Fatalf("sync after a gc removed its staged snapshot: %v", err)
	}
	if gcRemoved == 0 {
		t.Fatal("the gc removed no staged snapshot: the test did not test the race")
	}
	if len(res.Bundles) != 1 || !res.Bundles[0].Trusted {
		t.Fatalf("synced %+v", res.Bundles)
	}
	b, err := m2.Find(m2.Discover(), "kit")
	if err != nil {
		t.Fatal(err)
	}
	s, err := m2.LoadState()
	if err != nil {
		t.Fatal(err)
	}
	if st := m2.Evaluate(b, s); !st.Trusted || st.Word != "trusted" {
		t.Errorf("after sync: %+v", st)
	}
}

// TestFetchLockWaitIsBounded: a gc that holds the fetch lock and never
// lets go (stopped with Ctrl-Z) made install, update, uninstall and sync
// wait in flock(2) for ever, deaf to Ctrl-C and SIGTERM. They give up
// after the bounded wait with a lock error (exit 4) that names the lock
// and says what to do, and nothing is installed.
func TestFetchLockWaitIsBounded(t *testing.T) {
	home, ws := newWorkspace(t)
	src := filepath.Join(t.TempDir(), "kit")
	writeBundle(t, src, "kit", "v1")
	m := manager(home, ws)
	must(t, os.MkdirAll(home, 0o700))
	// flock locks belong to the open file description: a second open in
	// this process conflicts as another process's would.
	gc := flock.New(filepath.Join(home, lifecycle.FetchLockName))
	if ok, err := gc.TryLock(); !ok || err != nil {
		t.Fatalf("TryLock: %v %v", ok, err)
	}
	lifecycle.ShortenFetchLockWait(t, 200*time.Millisecond)
	_, err := m.Install(context.Background(), sources.Request{Source: src}, lifecycle.InstallOptions{})
	var fe *lifecycle.FetchLockError
	if !errors.Is(err, state.ErrLocked) || !errors.Is(err, lifecycle.ErrStateUnusable) || !errors.As(err, &fe) || !strings.Contains(err.Error(), "fetch.lock") || !strings.Contains(err.Error(), "run this command again") {
		t.Fatalf("install under a held fetch lock: %v, want a FetchLockError naming the lock and the next step", err)
	}
	if _, err := os.Lstat(filepath.Join(home, "bundles", "kit")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the bundle was installed without the lock (%v)", err)
	}
	must(t, gc.Unlock())
	if _, err := m.Install(context.Background(), sources.Request{Source: src}, lifecycle.InstallOptions{}); err != nil {
		t.Fatalf("install once the lock is free: %v", err)
	}
}

// TestConcurrentSyncsBothSucceed: two syncs of the same lockfile run at
// once; the one that reaches the state lock second finds the bundle the
// other placed, with exactly the locked token, and keeps it, as a sync run
// after the first would. It used to fail with the install-side "already
// installed; update it" refusal (exit 3, a mismatch) though nothing was
// wrong.
func TestConcurrentSyncsBothSucceed(t *testing.T) {
	home, ws := newWorkspace(t)
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "kit")
	writeBundle(t, src, "kit", "v1")
	m := manager(home, ws)
	install(t, m, src, "")
	if _, err := m.Trust("kit", tokenOf(t, m, "kit")); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Enable("kit"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Lock(lifecycle.LockOptions{AllowUnpinned: true}); err != nil {
		t.Fatal(err)
	}
	path, err := m.LockPath()
	if err != nil {
		t.Fatal(err)
	}

	// A fresh home and workspace: the lockfile's bundle is a user bundle,
	// fetched by both syncs.
	home2 := filepath.Join(t.TempDir(), "home2")
	m2 := manager(home2, ws)
	other := false
	lifecycle.AfterSyncStaging(t, func() {
		if other {
			return
		}
		other = true
		// The other sync runs to its end between this one's fetch and
		// its state update.
		res, err := m2.SyncLocked(context.Background(), path, lifecycle.SyncOptions{})
		if err != nil || len(res.Bundles) != 1 || res.Bundles[0].Action != "installed" {
			t.Errorf("the other sync: %+v, %v", res, err)
		}
	})
	res, err := m2.SyncLocked(context.Background(), path, lifecycle.SyncOptions{})
	if !other {
		t.Fatal("the other sync did not run: the test did not test the race")
	}
	if err != nil {
		t.Fatalf("the second of two concurrent syncs: %v", err)
	}
	if len(res.Bundles) != 1 || res.Bundles[0].Action != "present" || res.Bundles[0].Trusted {
		t.Fatalf("synced %+v", res.Bundles)
	}
	if st := status(t, m2, "kit"); !st.Trusted || !st.Enabled {
		t.Errorf("after both syncs: %+v", st)
	}
	if e := entries(t, filepath.Join(home2, "tmp")); len(e) != 0 {
		t.Errorf("tmp holds %v", e)
	}
}
