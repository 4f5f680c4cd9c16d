package lifecycle_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/sources"
)

// The homes' markers are read by the other homes that name the
// workspace, maybe other users': .bundlectl, bundles, homes and
// homes/<name> are made 0755 and a marker 0644 whatever the umask, as
// docs/sources.md says. (Before, under umask 077 they were 0700 and
// 0600, and another user's uninstall could not read them.)
func TestMarkerModesIgnoreUmask(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	src := filepath.Join(dir, "src", "good")
	writePlugin(t, src, "good")
	must(t, os.MkdirAll(ws, 0o755))
	m := manager(filepath.Join(dir, "home"), ws)
	old := umask(0o077)
	_, err := m.Install(context.Background(), sources.Request{Source: src}, lifecycle.InstallOptions{Scope: bundle.ScopeWorkspace})
	umask(old)
	must(t, err)
	homes := filepath.Join(ws, ".bundlectl", lifecycle.HomesDir)
	marker := filepath.Join(homes, "good", lifecycle.HomeKey(m))
	dot := filepath.Dir(homes)
	for p, want := range map[string]os.FileMode{dot: 0o755, filepath.Join(dot, "bundles"): 0o755, homes: 0o755, filepath.Dir(marker): 0o755, marker: 0o644} {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), want)
		}
	}
}
