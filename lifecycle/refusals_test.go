package lifecycle_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/state"
)

// TestTrustRefusesABlockedBundleWithItsOwnToken offers trust the right
// token of a valid bundle that declares a surface bundlectl does not run:
// the token matches, so only the blocked check can refuse, and nothing
// may be staged or recorded.
func TestTrustRefusesABlockedBundleWithItsOwnToken(t *testing.T) {
	home, ws := newWorkspace(t)
	dir := filepath.Join(ws, ".bundlectl", "bundles", "blocked")
	must(t, os.MkdirAll(dir, 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "plugin.json"), []byte(`{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "blocked",
  "extensions": {"dev.bundlectl": {"capabilities": {"lifecycle_mutation": true}}}}`), 0o644))
	m := manager(home, ws)
	if st := status(t, m, "blocked"); st.Word != lifecycle.StatusBlocked {
		t.Fatalf("setup: status %+v, want blocked", st)
	}
	tok := tokenOf(t, m, "blocked")

	if _, err := m.Trust("blocked", tok); !errors.Is(err, lifecycle.ErrRefused) {
		t.Fatalf("trust of a blocked bundle with its own token: %v, want refused", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(home, "store")); len(entries) != 0 {
		t.Errorf("a refused trust left %d entries in the store", len(entries))
	}
	if st := status(t, m, "blocked"); st.Word != lifecycle.StatusBlocked || st.Trusted {
		t.Errorf("after a refused trust: %+v, want blocked and untrusted", st)
	}
}

// TestEnableRefusesATamperedSnapshot trusts a bundle, changes a mode in
// its snapshot and enables it: the receipt is current and the source
// unchanged, so only the snapshot check can refuse, and the enabled bit
// must stay off.
func TestEnableRefusesATamperedSnapshot(t *testing.T) {
	home, ws := newWorkspace(t, "kit")
	m := manager(home, ws)
	rc, err := m.Trust("kit", tokenOf(t, m, "kit"))
	must(t, err)
	must(t, os.Chmod(filepath.Join(rc.Snapshot, "README.md"), 0o500))

	_, err = m.Enable("kit")
	var re *lifecycle.RefusedError
	if !errors.Is(err, lifecycle.ErrRefused) || !errors.As(err, &re) {
		t.Fatalf("enable with a tampered snapshot: %v, want refused", err)
	}
	s, err := state.Open(home).Load()
	must(t, err)
	if b, _ := s.Bundle(rc.BundleID); b.Enabled {
		t.Fatal("a refused enable set the enabled bit")
	}
	if st := status(t, m, "kit"); st.Word != lifecycle.StatusTampered || st.Active {
		t.Fatalf("status %+v, want tampered and not active", st)
	}
}
