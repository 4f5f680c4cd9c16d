package lifecycle_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/lifecycle"
)

// Two workspaces share one home, each with a trusted bundle named "kit".
// From a third workspace, verify checks both snapshots and receipts but
// reports their sources as not checked (not as gone: that would be a
// false mismatch from every other directory), and revoke by the shared
// name is refused with an id to name instead; the id revokes one.
func TestOtherWorkspacesAreNotCheckedAndRevokedByID(t *testing.T) {
	home, ws1 := newWorkspace(t, "kit")
	ws2 := filepath.Join(filepath.Dir(ws1), "ws2")
	writeBundle(t, filepath.Join(ws2, ".bundlectl", "bundles", "kit"), "kit", "v2")
	var ids []string
	for _, ws := range []string{ws1, ws2} {
		rc := trustedActive(t, manager(home, ws))
		ids = append(ids, rc.BundleID)
	}
	third := manager(home, filepath.Join(filepath.Dir(ws1), "ws3"))

	v, err := third.Verify()
	must(t, err)
	if v.Checked != 2 || len(v.Problems) != 0 || len(v.Unchecked) != 2 {
		t.Fatalf("verify from a third workspace: %+v", v)
	}
	for _, p := range v.Unchecked {
		if p.What != "source" || !strings.Contains(p.Reason, "another workspace") {
			t.Errorf("unchecked %+v", p)
		}
	}
	// From its own workspace a bundle's source is checked.
	if v, err := manager(home, ws1).Verify("kit"); err != nil || v.Checked != 2 || len(v.Unchecked) != 1 || len(v.Problems) != 0 {
		t.Fatalf("verify kit from ws1: %+v, %v", v, err)
	}

	_, err = third.Revoke("kit")
	var re *lifecycle.RefusedError
	if !errors.As(err, &re) || !strings.HasPrefix(re.Fix, "bundlectl revoke workspace/") {
		t.Fatalf("revoke of a name two other workspaces share: %v", err)
	}
	// The refusal names every id, so either can be picked.
	if strings.Count(re.Reason, "workspace/") != 2 {
		t.Fatalf("refusal does not list both ids: %s", re.Reason)
	}
	id := strings.TrimPrefix(re.Fix, "bundlectl revoke ")
	if changed, err := third.Revoke(id); err != nil || !changed {
		t.Fatalf("revoke %s: %v, %v", id, changed, err)
	}
	// Now one receipt is named kit: the name is enough.
	if changed, err := third.Revoke("kit"); err != nil || !changed {
		t.Fatalf("revoke kit: %v, %v", changed, err)
	}
	if _, err := third.Verify("kit"); !errors.Is(err, lifecycle.ErrNotFound) {
		t.Fatalf("verify of a name no receipt holds: %v", err)
	}
	if _, err := third.Revoke("kit"); !errors.Is(err, lifecycle.ErrNotFound) {
		t.Fatalf("revoke of a name nothing holds: %v", err)
	}
}
