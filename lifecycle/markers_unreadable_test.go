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

// Markers that exist but cannot be read say nothing about other homes:
// with homes, or homes/<name>, a regular file, a dangling symbolic link
// or a symbolic link loop, an uninstall (without --force) would delete,
// and an update replace, a tree another home may use. Both refuse,
// naming the directory, with a hint that shows what is there, and change
// nothing; --force goes ahead. (Before otherHomes failed closed, every
// subtest failed: the markers read as "no other home", uninstall deleted
// the tree and update replaced it.)
func TestUnreadableMarkersRefuse(t *testing.T) {
	for _, at := range []string{"homes", "name"} {
		for _, kind := range []string{"file", "dangling", "loop"} {
			for _, cmd := range []string{"uninstall", "update"} {
				t.Run(at+"/"+kind+"/"+cmd, func(t *testing.T) {
					dir := t.TempDir()
					ws := filepath.Join(dir, "ws")
					src := filepath.Join(dir, "src", "good")
					writePlugin(t, src, "good")
					must(t, os.MkdirAll(filepath.Join(ws, ".bundlectl"), 0o755))
					m := manager(filepath.Join(dir, "home"), ws)
					ctx := context.Background()
					_, err := m.Install(ctx, sources.Request{Source: src}, lifecycle.InstallOptions{Scope: bundle.ScopeWorkspace})
					must(t, err)
					must(t, os.WriteFile(filepath.Join(src, "README.md"), []byte("v2\n"), 0o644))
					homes := filepath.Join(ws, ".bundlectl", lifecycle.HomesDir)
					p := homes
					if at == "name" {
						p = filepath.Join(homes, "good")
					}
					must(t, os.RemoveAll(p))
					switch kind {
					case "file":
						must(t, os.WriteFile(p, []byte("not a directory\n"), 0o644))
					case "dangling":
						must(t, os.Symlink(filepath.Join(dir, "nowhere"), p))
					case "loop":
						must(t, os.Symlink(filepath.Base(p), p))
					}
					tree := filepath.Join(ws, ".bundlectl", "bundles", "good")
					run := func(force bool) error {
						if cmd == "uninstall" {
							_, err := m.Uninstall("good", lifecycle.UninstallOptions{Scope: bundle.ScopeWorkspace, Force: force})
							return err
						}
						_, err := m.Update(ctx, "good", lifecycle.UpdateOptions{Force: force})
						return err
					}
					err = run(false)
					if err == nil {
						t.Fatalf("%s went ahead with the markers in %s unreadable", cmd, p)
					}
					if !errors.Is(err, lifecycle.ErrRefused) || !strings.Contains(err.Error(), bundle.Quote(p)) || !strings.Contains(err.Error(), "cannot be read") {
						t.Errorf("the error does not name %s: %v", p, err)
					}
					var h interface{ Hint() string }
					if want := "ls -la -- " + bundle.ShellArg(filepath.Dir(p)); !errors.As(err, &h) || h.Hint() != want {
						t.Errorf("hint: want %q, error %v", want, err)
					}
					if _, serr := os.Stat(filepath.Join(tree, ".claude-plugin", "plugin.json")); serr != nil {
						t.Fatalf("%s refused but the tree is gone: %v", cmd, serr)
					}
					if _, serr := os.Stat(filepath.Join(tree, "README.md")); serr == nil {
						t.Fatalf("%s refused but replaced the tree", cmd)
					}
					t.Logf("%v\nhint: %s", err, h.Hint())
					must(t, run(true))
				})
			}
		}
	}
}
