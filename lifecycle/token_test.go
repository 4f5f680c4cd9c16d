package lifecycle_test

import (
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
		{"capability half", func(k *receipts.Token) { k.Capability[0] ^= 1 }, "capabilities", "content"},
		{"content half", func(k *receipts.Token) { k.Content[31] ^= 0x80 }, "content", "capabilities"},
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
				t.Errorf("trust with a wrong %s says %q: want it to name its %s and not its %s", tt.name, re.Reason, tt.names, tt.absent)
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

// TestStatusAndVerifyCheckBothHalvesOfTheReceipt records a receipt whose
// content half is the bundle's own and whose capability half is not, as a
// state written by another bundlectl (or a change of the capability
// recipe) could hold. The source, the snapshot and the content hash all
// agree with the receipt, so only the comparison of the capability half
// can tell: the bundle must be drifted, not active, enable must refuse it
// and verify must report it.
func TestStatusAndVerifyCheckBothHalvesOfTheReceipt(t *testing.T) {
	home, ws := newWorkspace(t, "kit")
	m := manager(home, ws)
	rc, err := m.Trust("kit", tokenOf(t, m, "kit"))
	must(t, err)
	if _, err := m.Enable("kit"); err != nil {
		t.Fatal(err)
	}
	if st := status(t, m, "kit"); !st.Active {
		t.Fatalf("setup: %+v", st)
	}
	forged := *rc
	forged.CapabilityHash[0] ^= 1
	_, err = state.Open(home).Update(func(s *state.State) error {
		_, err := s.Trust(rc.BundleID, forged)
		return err
	})
	must(t, err)

	st := status(t, m, "kit")
	if st.Word != lifecycle.StatusDrifted || st.Active || st.Trusted {
		t.Fatalf("receipt with a wrong capability half: %+v, want drifted and not active", st)
	}
	if why := strings.Join(st.Reasons, "; "); !strings.Contains(why, "capabilities") || strings.Contains(why, "content") {
		t.Errorf("reasons %q: want the capabilities named, and not the content", why)
	}
	if _, err := m.Disable("kit"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Enable("kit"); !errors.Is(err, lifecycle.ErrRefused) {
		t.Errorf("enable with a wrong capability half in the receipt: %v, want refused", err)
	}
	checked, problems, err := m.Verify()
	must(t, err)
	if checked != 1 || len(problems) != 1 || problems[0].What != "source" || !strings.Contains(problems[0].Reason, "capabilities") {
		t.Errorf("verify checked %d and found %+v, want one source problem naming the capabilities", checked, problems)
	}
}
