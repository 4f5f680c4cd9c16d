package lifecycle_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
)

// A user who may write the workspace's .bundlectl (one shared through a
// group) renames its bundles directory away once install, update,
// uninstall or sync checked and opened it, and puts a symbolic link to a
// directory outside the workspace in its place: for uninstall, one with a
// "good" of its own; for update, the real bundle directory moved there,
// so that its identity check passes. Nothing may be placed, moved,
// exchanged or removed through the link: the command is refused, naming
// the root, and the link's target is as it was. (Before the root was held
// by descriptor, every subtest failed: uninstall deleted the target's
// "good", install and sync placed the tree in the target, and update
// exchanged the new tree into it.)
//
// late: the swap comes after the last check of the root's path, right
// before the move, which is made in the root held: the command may
// succeed or fail, but the link's target is untouched. (With the check
// kept and the moves made by path, late/install, late/update and
// late/uninstall failed; late/sync's check after placing refuses, and its
// undo takes the tree back.)
func TestWorkspaceBundlesSwappedAfterCheck(t *testing.T) {
	for _, late := range []bool{false, true} {
		for _, cmd := range []string{"install", "update", "uninstall", "sync"} {
			name := cmd
			if late {
				name = "late/" + cmd
			}
			t.Run(name, func(t *testing.T) {
				c := prepareWSCmd(t, cmd)
				dir, ws := c.dir, c.ws
				dot := filepath.Join(ws, ".bundlectl")
				root := filepath.Join(dot, "bundles")
				victim := filepath.Join(dir, "victim")
				must(t, os.MkdirAll(victim, 0o755))
				if cmd == "uninstall" {
					writePlugin(t, filepath.Join(victim, "good"), "good")
				}
				done := false
				swap := func() {
					if done {
						return
					}
					done = true
					must(t, os.Rename(root, root+".moved"))
					if cmd == "update" {
						must(t, os.Rename(filepath.Join(root+".moved", "good"), filepath.Join(victim, "good")))
					}
					must(t, os.Symlink(victim, root))
				}
				if late {
					lifecycle.OnRootChecked(t, swap)
				} else if cmd == "update" {
					lifecycle.OnUpdateSwap(t, func(at string) {
						if at == "checking" {
							swap()
						}
					})
				} else {
					lifecycle.OnTmpHolderMade(t, swap)
				}
				err := c.run()
				if !done {
					t.Fatal("the swap never ran")
				}
				switch cmd {
				case "uninstall":
					if _, serr := os.Stat(filepath.Join(victim, "good", ".claude-plugin", "plugin.json")); serr != nil {
						t.Fatalf("uninstall removed what the link swapped in for %s leads to (%v), err %v", root, serr, err)
					}
				case "update":
					if _, serr := os.Stat(filepath.Join(victim, "good", "README.md")); serr == nil {
						t.Fatalf("update exchanged the new tree into what the link swapped in for %s leads to, err %v", root, err)
					}
				default:
					if ents, _ := os.ReadDir(victim); len(ents) > 0 {
						t.Fatalf("%s placed into what the link swapped in for %s leads to: %v (err %v)", cmd, root, ents, err)
					}
				}
				if late {
					t.Logf("%s: %v", cmd, err)
					return
				}
				if err == nil {
					t.Fatalf("%s used a bundle root swapped for a link after its check", cmd)
				}
				if !strings.Contains(err.Error(), "was replaced") || !strings.Contains(err.Error(), bundle.Quote(root)) {
					t.Errorf("the error does not say which directory was replaced: %v", err)
				}
				var h interface{ Hint() string }
				want := "ls -la -- " + bundle.ShellArg(dot)
				if !errors.As(err, &h) || h.Hint() != want {
					t.Errorf("hint: want %q, error %v", want, err)
				}
			})
		}
	}
}
