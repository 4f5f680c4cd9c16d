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

func TestTrustDoesNotEnableAndEnableNeedsCurrentTrust(t *testing.T) {
	home, ws := newWorkspace(t, "kit")
	m := manager(home, ws)
	if _, err := m.Enable("kit"); !errors.Is(err, lifecycle.ErrRefused) {
		t.Fatalf("enable untrusted: %v, want refused", err)
	}
	tok := tokenOf(t, m, "kit")
	rc, err := m.Trust("kit", tok)
	if err != nil {
		t.Fatal(err)
	}
	if rc.Token() != tok || rc.Generation != 1 {
		t.Fatalf("receipt %+v", rc)
	}
	if st := status(t, m, "kit"); st.Word != lifecycle.StatusTrusted || st.Enabled {
		t.Fatalf("after trust: %+v", st)
	}
	if _, err := m.Enable("kit"); err != nil {
		t.Fatal(err)
	}
	if st := status(t, m, "kit"); !st.Active {
		t.Fatalf("after enable: %+v", st)
	}
	// Revoke keeps the enabled bit; the bundle is inactive.
	if _, err := m.Revoke("kit"); err != nil {
		t.Fatal(err)
	}
	st := status(t, m, "kit")
	if st.Word != lifecycle.StatusUntrusted || !st.Enabled || st.Active {
		t.Fatalf("after revoke: %+v", st)
	}
}

func TestTrustRefusesStaleAndMalformedTokens(t *testing.T) {
	home, ws := newWorkspace(t, "kit")
	m := manager(home, ws)
	tok := tokenOf(t, m, "kit")
	src := filepath.Join(ws, ".bundlectl", "bundles", "kit")
	if err := os.WriteFile(filepath.Join(src, "README.md"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := m.Trust("kit", tok)
	var re *lifecycle.RefusedError
	if !errors.As(err, &re) || re.Fix != "bundlectl review kit" {
		t.Fatalf("stale token: %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, "store")); err == nil {
		entries, _ := os.ReadDir(filepath.Join(home, "store"))
		if len(entries) != 0 {
			t.Fatalf("a refused trust left %d entries in the store", len(entries))
		}
	}
	other := tok
	other.Capability[0] ^= 1
	if _, err := m.Trust("kit", other); !errors.Is(err, lifecycle.ErrRefused) {
		t.Fatalf("wrong capability hash: %v", err)
	}
}

func TestTrustRefusesBlockedAndInvalidBundles(t *testing.T) {
	home, ws := newWorkspace(t)
	dir := filepath.Join(ws, ".bundlectl", "bundles")
	must(t, os.MkdirAll(filepath.Join(dir, "blocked"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "blocked", "plugin.json"), []byte(`{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "blocked",
  "extensions": {"dev.bundlectl": {"capabilities": {"lifecycle_mutation": true}}}}`), 0o644))
	must(t, os.MkdirAll(filepath.Join(dir, "broken"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "broken", "plugin.json"), []byte(`{"name": "broken"}`), 0o644))
	m := manager(home, ws)
	for _, name := range []string{"blocked", "broken"} {
		var tok receipts.Token
		if _, err := m.Trust(name, tok); !errors.Is(err, lifecycle.ErrRefused) {
			t.Errorf("trust %s: %v, want refused", name, err)
		}
		if _, err := m.Enable(name); !errors.Is(err, lifecycle.ErrRefused) {
			t.Errorf("enable %s: %v, want refused", name, err)
		}
	}
	if st := status(t, m, "blocked"); st.Word != lifecycle.StatusBlocked {
		t.Errorf("blocked bundle status %q", st.Word)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A skipped component keeps the rest of the bundle loadable, reviewable
// and trustable (partial loading); the skipped part is in no inventory.
func TestSkippedComponentDoesNotBlockTrust(t *testing.T) {
	home, ws := newWorkspace(t, "kit")
	m := manager(home, ws)
	skill := filepath.Join(ws, ".bundlectl", "bundles", "kit", "skills", "bad")
	must(t, os.MkdirAll(skill, 0o755))
	must(t, os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\nname: other\ndescription: x\n---\n"), 0o644))
	b, err := m.Find(m.Discover(), "kit")
	must(t, err)
	if b.Rejected() || b.Valid() || len(b.Components.Tools) != 1 || len(b.Components.Skills) != 0 {
		t.Fatalf("want a loadable bundle with a skipped skill: rejected %v valid %v tools %d skills %d", b.Rejected(), b.Valid(), len(b.Components.Tools), len(b.Components.Skills))
	}
	if st := status(t, m, "kit"); st.Word != lifecycle.StatusUntrusted {
		t.Fatalf("status %+v", st)
	}
	h, err := lifecycle.Compute(b)
	must(t, err)
	if strings.Contains(string(h.Inventory), "skills/bad") {
		t.Fatalf("the skipped skill is in the inventory: %s", h.Inventory)
	}
	if _, err := m.Trust("kit", h.Token()); err != nil {
		t.Fatalf("trust: %v", err)
	}
	if _, err := m.Enable("kit"); err != nil {
		t.Fatal(err)
	}
	if st := status(t, m, "kit"); !st.Active {
		t.Fatalf("status %+v", st)
	}
}
