package lifecycle_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/receipts"
	"github.com/bundlectl/bundlectl/state"
)

// TestTrustChecksBothHalvesOfTheToken offers trust a token for the bundle
// as it is now with one half wrong: each half alone must refuse it, the
// message must name the half that is wrong and only that one, and nothing
// may be staged or recorded. The bundle is unchanged throughout, so only
// the comparison of that half can refuse.
func TestTrustChecksBothHalvesOfTheToken(t *testing.T) {
	for _, tt := range []struct {
		name          string
		mangle        func(*receipts.Token)
		names, absent string
	}{
		{"capability half", func(k *receipts.Token) { k.Capability[0] ^= 1 }, "capability half", "content"},
		{"content half", func(k *receipts.Token) { k.Content[31] ^= 0x80 }, "content half", "capabilit"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			home, ws := newWorkspace(t, "kit")
			m := manager(home, ws)
			good := tokenOf(t, m, "kit")
			bad := good
			tt.mangle(&bad)

			_, err := m.Trust("kit", bad)
			var re *lifecycle.RefusedError
			if !errors.Is(err, lifecycle.ErrRefused) || !errors.As(err, &re) {
				t.Fatalf("trust with a wrong %s: %v, want refused", tt.name, err)
			}
			if !strings.Contains(re.Reason, tt.names) || strings.Contains(re.Reason, tt.absent) {
				t.Errorf("trust with a wrong %s says %q: want it to name the %s and not %q", tt.name, re.Reason, tt.names, tt.absent)
			}
			if re.Fix != "bundlectl review kit" {
				t.Errorf("fix %q, want bundlectl review kit", re.Fix)
			}
			if st := status(t, m, "kit"); st.Word != lifecycle.StatusUntrusted {
				t.Errorf("after a refused trust the bundle is %q, want %q", st.Word, lifecycle.StatusUntrusted)
			}
			if entries, _ := os.ReadDir(filepath.Join(home, "store")); len(entries) != 0 {
				t.Errorf("a refused trust left %d entries in the store", len(entries))
			}

			// The bundle did not change: the right token is accepted and
			// recorded as given.
			rc, err := m.Trust("kit", good)
			if err != nil {
				t.Fatalf("trust with the right token: %v", err)
			}
			if rc.Token() != good {
				t.Errorf("receipt token %v, want %v", rc.Token(), good)
			}
		})
	}
}

// trustedActive trusts and enables kit and returns its receipt.
func trustedActive(t *testing.T, m *lifecycle.Manager) *receipts.Receipt {
	t.Helper()
	rc, err := m.Trust("kit", tokenOf(t, m, "kit"))
	must(t, err)
	if _, err := m.Enable("kit"); err != nil {
		t.Fatal(err)
	}
	if st := status(t, m, "kit"); !st.Active {
		t.Fatalf("setup: %+v", st)
	}
	return rc
}

// recordReceipt writes rc into the state as the bundle's receipt, as a
// state written by another program could hold it.
func recordReceipt(t *testing.T, home string, rc receipts.Receipt) {
	t.Helper()
	_, err := state.Open(home).Update(func(s *state.State) error {
		_, err := s.Trust(rc.BundleID, rc)
		return err
	})
	must(t, err)
}

// TestReceiptInventoryMustMatchItsCapabilityHash records a receipt whose
// inventory (what the runtime runs) was changed and whose capability hash
// (what the reviewer accepted) was not. Source, snapshot and both hashes
// agree, so only the check of the inventory against the capability hash
// can tell: the bundle must not be active.
func TestReceiptInventoryMustMatchItsCapabilityHash(t *testing.T) {
	home, ws := newWorkspace(t, "kit")
	m := manager(home, ws)
	rc := *trustedActive(t, m)
	edited := bytes.Replace(rc.Inventory, []byte(`"./bin/hello"`), []byte(`"./README.md"`), 1)
	if bytes.Equal(edited, rc.Inventory) {
		t.Fatalf("setup: the inventory does not name ./bin/hello:\n%s", rc.Inventory)
	}
	rc.Inventory = edited
	recordReceipt(t, home, rc)

	st := status(t, m, "kit")
	if st.Active {
		t.Fatalf("a receipt whose inventory is not what its capability hash covers is active: %+v", st)
	}
	if why := strings.Join(st.Reasons, "; "); !strings.Contains(why, "capability hash") {
		t.Errorf("reasons %q: want the mismatch of inventory and capability hash named", why)
	}
	// verify names it too: the receipt itself cannot be used.
	v, err := m.Verify()
	must(t, err)
	problems := v.Problems
	found := false
	for _, p := range problems {
		found = found || p.What == "receipt" && strings.Contains(p.Reason, "capability hash")
	}
	if !found {
		t.Errorf("verify problems %+v: want the receipt's inventory mismatch reported", problems)
	}
}

// TestVerifyComparesTheCapabilityHalf records a receipt whose content half
// is the bundle's own and whose capability half is not. Verify re-hashes
// the source: the content agrees, so only the comparison of the
// capability half reports it, and the bundle is not active.
func TestVerifyComparesTheCapabilityHalf(t *testing.T) {
	home, ws := newWorkspace(t, "kit")
	m := manager(home, ws)
	rc := *trustedActive(t, m)
	rc.CapabilityHash[0] ^= 1
	recordReceipt(t, home, rc)

	if st := status(t, m, "kit"); st.Active {
		t.Fatalf("a receipt with a wrong capability half is active: %+v", st)
	}
	v, err := m.Verify()
	must(t, err)
	checked, problems := v.Checked, v.Problems
	found := false
	for _, p := range problems {
		found = found || p.What == "source" && strings.Contains(p.Reason, "capabilities")
	}
	if checked != 1 || !found {
		t.Errorf("verify checked %d and found %+v, want a source problem naming the capabilities", checked, problems)
	}
}

// GC removes the host views of tokens no receipt holds (read-only
// directories included) and keeps the live token's views and the hosts'
// session directory.
func TestGCPrunesViewsOfDeadTokens(t *testing.T) {
	home, ws := newWorkspace(t, "kit")
	m := manager(home, ws)
	rc := trustedActive(t, m)
	views := filepath.Join(home, "views")
	live := filepath.Join(views, rc.Token().String(), "claude", "v1")
	deadTok := rc.Token()
	deadTok.Content[0] ^= 1
	dead := filepath.Join(views, deadTok.String(), "claude", "v1")
	sessions := filepath.Join(views, "sessions", "s-1")
	for _, d := range []string{live, dead, sessions} {
		must(t, os.MkdirAll(d, 0o700))
		must(t, os.WriteFile(filepath.Join(d, "SKILL.md"), []byte("x"), 0o400))
		must(t, os.Chmod(d, 0o500))
	}
	removed, err := m.GC()
	must(t, err)
	if _, err := os.Stat(filepath.Join(views, deadTok.String())); !os.IsNotExist(err) {
		t.Errorf("the dead token's views are still there (removed %v)", removed)
	}
	for _, d := range []string{live, sessions} {
		if _, err := os.Stat(filepath.Join(d, "SKILL.md")); err != nil {
			t.Errorf("%s was removed: %v", d, err)
		}
	}
	t.Cleanup(func() { os.Chmod(live, 0o700); os.Chmod(sessions, 0o700) })
}
