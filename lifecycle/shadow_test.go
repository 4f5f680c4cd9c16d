package lifecycle_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
)

// TestRevokeOfASharedNameActsOnTheTrustedBundle: when the bundle a name
// finds first holds no trust, revoke acts on the one trusted bundle of the
// name it shadows and says which (Acted.Instead); with two such bundles it
// refuses, naming the command for each by id, and each command works.
func TestRevokeOfASharedNameActsOnTheTrustedBundle(t *testing.T) {
	home, ws := newWorkspace(t, "x")
	m := manager(home, ws)
	if _, err := m.Trust("x", tokenOf(t, m, "x")); err != nil {
		t.Fatal(err)
	}
	wsID := m.Discover().Lookup("x")[0].ID
	writeBundle(t, filepath.Join(home, "bundles", "x"), "x", "v1")
	if _, err := m.Trust("x", tokenOf(t, m, "x")); err != nil { // the user one, first now
		t.Fatal(err)
	}
	userID := m.Discover().Lookup("x")[0].ID
	builtin := filepath.Join(t.TempDir(), "builtin")
	writeBundle(t, filepath.Join(builtin, "x"), "x", "v1")
	mb := lifecycle.New(bundle.Roots{Builtin: builtin, Home: home, Workspace: ws}, bundle.Limits{})

	_, err := mb.RevokeNamed("x")
	var re *lifecycle.RefusedError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "bundlectl revoke "+userID) || !strings.Contains(err.Error(), "bundlectl revoke "+wsID) {
		t.Fatalf("revoke of a name two shadowed trusted bundles share: %v, want a refusal naming both commands", err)
	}
	if a, err := mb.RevokeNamed(wsID); err != nil || !a.Changed || a.ID != wsID {
		t.Fatalf("revoke by id: %+v %v", a, err)
	}
	a, err := mb.RevokeNamed("x")
	if err != nil || !a.Changed || a.ID != userID || a.Instead == "" || a.Instead == userID {
		t.Fatalf("revoke of the name with one trusted bundle left: %+v %v, want it revoked instead of the first", a, err)
	}
	if a, err := mb.RevokeNamed("x"); err != nil || a.Changed {
		t.Fatalf("revoke with nothing left to revoke: %+v %v", a, err)
	}
}
