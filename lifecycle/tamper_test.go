package lifecycle_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/lifecycle"
)

// trustedEnabled trusts and enables kit and returns its snapshot.
func trustedEnabled(t *testing.T) (m *lifecycle.Manager, snap string) {
	t.Helper()
	home, ws := newWorkspace(t, "kit")
	m = manager(home, ws)
	rc, err := m.Trust("kit", tokenOf(t, m, "kit"))
	must(t, err)
	_, err = m.Enable("kit")
	must(t, err)
	if st := status(t, m, "kit"); !st.Active {
		t.Fatalf("not active: %+v", st)
	}
	return m, rc.Snapshot
}

// Tampering with a snapshot is reported by verify and makes the bundle
// inactive, whatever the change.
func TestVerifyReportsSnapshotTampering(t *testing.T) {
	writable := func(t *testing.T, dirs ...string) {
		for _, d := range dirs {
			must(t, os.Chmod(d, 0o700))
		}
	}
	cases := map[string]func(t *testing.T, snap string){
		"byte changed": func(t *testing.T, snap string) {
			p := filepath.Join(snap, "README.md")
			must(t, os.Chmod(p, 0o600))
			data, _ := os.ReadFile(p)
			data[0] ^= 0x20
			must(t, os.WriteFile(p, data, 0o400))
			must(t, os.Chmod(p, 0o400))
		},
		"file added": func(t *testing.T, snap string) {
			writable(t, snap)
			must(t, os.WriteFile(filepath.Join(snap, "new.txt"), []byte("x"), 0o400))
			must(t, os.Chmod(snap, 0o500))
		},
		"file removed": func(t *testing.T, snap string) {
			writable(t, filepath.Join(snap, "data"))
			must(t, os.Remove(filepath.Join(snap, "data", "notes.txt")))
		},
		"mode changed": func(t *testing.T, snap string) {
			must(t, os.Chmod(filepath.Join(snap, "README.md"), 0o500))
		},
		"swapped for a symlink": func(t *testing.T, snap string) {
			writable(t, filepath.Join(snap, "bin"))
			p := filepath.Join(snap, "bin", "hello")
			must(t, os.Remove(p))
			must(t, os.Symlink("/bin/true", p))
		},
		"empty dir added": func(t *testing.T, snap string) {
			writable(t, snap)
			must(t, os.Mkdir(filepath.Join(snap, "extra"), 0o500))
		},
	}
	for name, tamper := range cases {
		t.Run(name, func(t *testing.T) {
			m, snap := trustedEnabled(t)
			tamper(t, snap)
			v, err := m.Verify()
			must(t, err)
			n, problems := v.Checked, v.Problems
			if n != 1 || len(problems) != 1 || problems[0].What != "snapshot" {
				t.Fatalf("verify: %d checked, problems %+v", n, problems)
			}
			st := status(t, m, "kit")
			if st.Active || st.Word != lifecycle.StatusTampered || !strings.Contains(strings.Join(st.Reasons, " "), "snapshot") {
				t.Fatalf("status after tamper: %+v", st)
			}
		})
	}
}

func TestVerifyReportsSourceDrift(t *testing.T) {
	m, _ := trustedEnabled(t)
	b, err := m.Find(m.Discover(), "kit")
	must(t, err)
	must(t, os.Chmod(filepath.Join(b.Dir, "README.md"), 0o755)) // +x changes the content hash
	v, err := m.Verify()
	must(t, err)
	problems := v.Problems
	if len(problems) != 1 || problems[0].What != "source" || !problems[0].Pending {
		t.Fatalf("problems %+v", problems)
	}
	// A changed source is an update awaiting review: still active.
	if st := status(t, m, "kit"); !st.Active || !st.UpdatePending {
		t.Fatalf("status %+v", st)
	}
}

// GC never removes a snapshot a receipt references, and removes the rest.
func TestGCKeepsReferencedSnapshots(t *testing.T) {
	m, snap := trustedEnabled(t)
	b, _ := m.Find(m.Discover(), "kit")
	writeBundle(t, b.Dir, "kit", "v2")
	rc2, err := m.Trust("kit", tokenOf(t, m, "kit"))
	must(t, err)
	if rc2.Snapshot == snap {
		t.Fatal("a new version reused the old snapshot")
	}
	removed, err := m.GC()
	must(t, err)
	if _, err := os.Stat(rc2.Snapshot); err != nil {
		t.Fatalf("gc removed the referenced snapshot: %v", err)
	}
	if _, err := os.Stat(snap); !os.IsNotExist(err) {
		t.Fatalf("gc kept the unreferenced snapshot (removed %v)", removed)
	}
	if st := status(t, m, "kit"); !st.Active {
		t.Fatalf("after gc: %+v", st)
	}
}

// Verify reads the state without the lock. A trust and a gc that run after
// that read remove the snapshot of the receipt it read, which is no longer
// in force: Verify checks the receipt the state holds now, and reports no
// tampering. A revoke meanwhile leaves nothing to verify.
func TestVerifyFollowsATrustAndGCMadeWhileItRan(t *testing.T) {
	m, old := trustedEnabled(t)
	b, err := m.Find(m.Discover(), "kit")
	must(t, err)
	lifecycle.AfterVerifyLoad(t, func() {
		lifecycle.AfterVerifyLoad(t, nil)
		writeBundle(t, b.Dir, "kit", "v2")
		_, err := m.Trust("kit", tokenOf(t, m, "kit"))
		must(t, err)
		_, err = m.GC()
		must(t, err)
		if _, err := os.Lstat(old); !os.IsNotExist(err) {
			t.Fatalf("gc kept the old snapshot %s: %v", old, err)
		}
	})
	v, err := m.Verify()
	must(t, err)
	if len(v.Problems) != 0 || v.Checked != 1 {
		t.Fatalf("checked %d, problems %+v", v.Checked, v.Problems)
	}

	lifecycle.AfterVerifyLoad(t, func() {
		lifecycle.AfterVerifyLoad(t, nil)
		_, err := m.Revoke("kit")
		must(t, err)
		_, err = m.GC()
		must(t, err)
	})
	v, err = m.Verify()
	must(t, err)
	if len(v.Problems) != 0 || v.Checked != 0 {
		t.Fatalf("after a revoke: checked %d, problems %+v", v.Checked, v.Problems)
	}
}
