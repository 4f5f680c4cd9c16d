package lifecycle_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUpdatesPending: only the bundles asked about whose source changed
// since they were trusted are returned, with the reasons that say so and
// the fix; none asked about is an empty list, never nil.
func TestUpdatesPending(t *testing.T) {
	m, _ := trustedEnabled(t)
	b, err := m.Find(m.Discover(), "kit")
	must(t, err)
	got, err := m.UpdatesPending([]string{b.ID})
	must(t, err)
	if len(got) != 0 {
		t.Fatalf("unchanged source: %+v, want none", got)
	}
	must(t, os.WriteFile(filepath.Join(b.Dir, "README.md"), []byte("changed\n"), 0o644))
	got, err = m.UpdatesPending([]string{b.ID})
	must(t, err)
	if len(got) != 1 || got[0].Name != "kit" || got[0].ID != b.ID || !got[0].UpdatePending || got[0].Hint == "" || len(got[0].Reasons) == 0 {
		t.Fatalf("changed source: %+v, want kit with its reasons and hint", got)
	}
	for _, r := range got[0].Reasons {
		if !strings.HasPrefix(r, "update pending review: ") {
			t.Errorf("reason %q is not an update's", r)
		}
	}
	if got, err := m.UpdatesPending([]string{"other"}); err != nil || len(got) != 0 {
		t.Errorf("another id: %+v %v, want none", got, err)
	}
	if got, err := m.UpdatesPending(nil); err != nil || got == nil || len(got) != 0 {
		t.Errorf("no ids: %#v %v, want an empty list", got, err)
	}
}
