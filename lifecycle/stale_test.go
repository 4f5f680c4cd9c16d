package lifecycle_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/lifecycle"
)

// TestEvaluateStaleStateAfterTrustAndGC: list, show and enable read the
// state without the lock and then check the receipt's snapshot. A trust of
// new content and a gc in between remove the snapshot of the receipt they
// read; the bundle was trusted throughout, so it must not be reported
// tampered (found by TestStressCollisions: list said "tampered ... the
// snapshot does not exist" for a guard re-trusted meanwhile).
func TestEvaluateStaleStateAfterTrustAndGC(t *testing.T) {
	home, ws := newWorkspace(t, "kit")
	m := manager(home, ws)
	if _, err := m.Trust("kit", tokenOf(t, m, "kit")); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Enable("kit"); err != nil {
		t.Fatal(err)
	}
	stale, err := m.LoadState()
	if err != nil {
		t.Fatal(err)
	}
	// Another process: new content, trusted, and the old snapshot collected.
	writeBundle(t, filepath.Join(ws, ".bundlectl", "bundles", "kit"), "kit", "v2")
	if _, err := m.Trust("kit", tokenOf(t, m, "kit")); err != nil {
		t.Fatal(err)
	}
	if removed, err := m.GC(); err != nil || len(removed) == 0 {
		t.Fatalf("gc: %v %v", removed, err)
	}
	b, err := m.Find(m.Discover(), "kit")
	if err != nil {
		t.Fatal(err)
	}
	st := m.Evaluate(b, stale)
	if st.Word != lifecycle.StatusActive {
		t.Fatalf("evaluated with a state read before a trust and a gc: %s: %s; want active (the receipt now in force)", st.Word, strings.Join(st.Reasons, "; "))
	}
	// A revoke meanwhile: untrusted, not tampered.
	if _, err := m.Revoke("kit"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.GC(); err != nil {
		t.Fatal(err)
	}
	if st := m.Evaluate(b, stale); st.Word != lifecycle.StatusUntrusted {
		t.Fatalf("evaluated with a state read before a revoke and a gc: %s: %s; want untrusted", st.Word, strings.Join(st.Reasons, "; "))
	}
}
