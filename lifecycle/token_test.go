package lifecycle_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/receipts"
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
