package lifecycle_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
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

// TestTrustChangedWhileReadNamesBundleAndHint: a tree that changes between
// trust's hash and its copy into the store (an edit, an update's exchange;
// found by TestStressCollisions) is refused with the bundle's name and the
// review to run again, and nothing is trusted. The walker's bare error
// named only a path, with no command (exit 1).
func TestTrustChangedWhileReadNamesBundleAndHint(t *testing.T) {
	home, ws := newWorkspace(t, "kit")
	m := manager(home, ws)
	dir := filepath.Join(ws, ".bundlectl", "bundles", "kit")
	lifecycle.AfterTrustComputed(t, func() {
		p := filepath.Join(dir, "README.md")
		if err := os.WriteFile(p+".new", []byte("# changed\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(p+".new", p); err != nil {
			t.Fatal(err)
		}
	})
	_, err := m.Trust("kit", tokenOf(t, m, "kit"))
	var h interface{ Hint() string }
	switch {
	case err == nil:
		t.Fatal("trust of a tree that changed while it was read succeeded")
	case !errors.Is(err, lifecycle.ErrRefused) || !errors.Is(err, bundle.ErrChanged):
		t.Fatalf("err %v: want a refusal wrapping bundle.ErrChanged", err)
	case !strings.HasPrefix(err.Error(), "kit: ") || !strings.Contains(err.Error(), "README.md"):
		t.Fatalf("err %q: want the bundle and the path named", err)
	case !errors.As(err, &h) || h.Hint() != "bundlectl review kit":
		t.Fatalf("err %v: want the hint bundlectl review kit", err)
	}
	if st := status(t, m, "kit"); st.Trusted {
		t.Fatalf("trusted after a refused trust: %+v", st)
	}
}
