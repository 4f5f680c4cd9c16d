package lifecycle_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/sources"
)

// Right before uninstall moves the bundle's directory out of the root,
// a user who may write the root (a workspace shared through a group)
// moves it aside and renames another bundle's directory into its place:
// uninstall must not take in, and delete, a directory it never found as
// this bundle. It refuses, and the other tree is kept.
func TestUninstallRefusesDirectorySwappedIn(t *testing.T) {
	for _, c := range []struct {
		scope bundle.Scope
		late  bool // swapped after the check of the root, right before the move
	}{{bundle.ScopeWorkspace, false}, {bundle.ScopeUser, false}, {bundle.ScopeWorkspace, true}} {
		scope := c.scope
		t.Run(string(scope)+map[bool]string{true: "/late"}[c.late], func(t *testing.T) {
			dir := t.TempDir()
			ws, home := filepath.Join(dir, "ws"), filepath.Join(dir, "home")
			must(t, os.MkdirAll(ws, 0o755))
			m := manager(home, ws)
			for _, name := range []string{"good", "other"} {
				src := filepath.Join(dir, "src", name)
				writePlugin(t, src, name)
				if _, err := m.Install(context.Background(), sources.Request{Source: src}, lifecycle.InstallOptions{Scope: scope}); err != nil {
					t.Fatal(err)
				}
			}
			b, err := m.Find(m.Discover(), "good")
			must(t, err)
			root := filepath.Dir(b.Dir)
			swap := func() {
				must(t, os.Rename(b.Dir, filepath.Join(dir, "good.aside")))
				must(t, os.Rename(filepath.Join(root, "other"), b.Dir))
			}
			if c.late {
				once := false
				lifecycle.OnRootChecked(t, func() {
					if !once {
						once = true
						swap()
					}
				})
			} else {
				lifecycle.OnUninstallChecked(t, swap)
			}
			_, err = m.Uninstall("good", lifecycle.UninstallOptions{Scope: scope})
			var re *lifecycle.RefusedError
			if !errors.As(err, &re) || !strings.Contains(re.Reason, "was replaced by another directory") || re.Fix != "bundlectl show good" {
				t.Errorf("uninstall: %v, want a refusal naming bundlectl show good", err)
			}
			got, rerr := os.ReadFile(filepath.Join(b.Dir, ".claude-plugin", "plugin.json"))
			if rerr != nil || !strings.Contains(string(got), `"other"`) {
				t.Fatalf("the other bundle's tree, put in the place of the one uninstalled, is gone: %q %v (uninstall: %v)", got, rerr, err)
			}
		})
	}
}
