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
// group) renames the checked tmp away right after install, update,
// uninstall or sync checked it, and puts a link to a directory elsewhere
// in its place (as tmp, or as this home's directory in a tmp of theirs),
// or a directory of their own as this home's. Nothing may be fetched,
// moved or removed through it: the command is refused, naming the
// directory, or works in the directory it checked. (Before the commands
// used tmp by descriptor, every subtest but key/uninstall and
// own/uninstall failed: each command wrote into the link's target, or
// fetched through the swapper's directory without a word.)
func TestWorkspaceTmpSwappedAfterCheck(t *testing.T) {
	lifecycle.UseWorkspaceTmp(t)
	for _, swapped := range []string{"tmp", "key", "own"} {
		for _, cmd := range []string{"install", "update", "uninstall", "sync"} {
			t.Run(swapped+"/"+cmd, func(t *testing.T) {
				c := prepareWSCmd(t, cmd)
				dir, ws, m := c.dir, c.ws, c.m
				victim := filepath.Join(dir, "victim")
				must(t, os.MkdirAll(victim, 0o755))
				tmp := filepath.Join(ws, ".bundlectl", "tmp")
				key := lifecycle.HomeKey(m)
				link := tmp
				if swapped != "tmp" {
					link = filepath.Join(tmp, key)
				}
				done := false
				lifecycle.OnTmpHolderMade(t, func() {
					if done {
						return
					}
					done = true
					must(t, os.Rename(tmp, tmp+".moved"))
					switch swapped {
					case "key":
						must(t, os.Mkdir(tmp, 0o1777))
						must(t, os.Symlink(victim, link))
					case "own":
						// A tmp and a directory of the swapper's own
						// (the victim) under this home's key.
						must(t, os.Mkdir(tmp, 0o1777))
						must(t, os.Rename(victim, link))
						must(t, os.Symlink(link, victim))
					default:
						must(t, os.Symlink(victim, link))
					}
				})
				err := c.run()
				if !done {
					t.Fatal("the swap never ran")
				}
				if ents, _ := os.ReadDir(victim); len(ents) > 0 {
					t.Fatalf("%s followed the link %s swapped in after the check, into %s: %v (err %v)", cmd, link, victim, ents, err)
				}
				if err == nil {
					if cmd != "uninstall" {
						t.Fatalf("%s used a tmp swapped after its check", cmd)
					}
					if _, err := os.Lstat(filepath.Join(ws, ".bundlectl", "bundles", "good")); !os.IsNotExist(err) {
						t.Fatalf("uninstall left the bundle: %v", err)
					}
					return
				}
				if !strings.Contains(err.Error(), "was replaced") || !strings.Contains(err.Error(), bundle.Quote(filepath.Join(tmp, key))) {
					t.Errorf("the error does not say which directory was replaced: %v", err)
				}
				var h interface{ Hint() string }
				want := "ls -la -- " + bundle.ShellArg(tmp)
				if !errors.As(err, &h) || h.Hint() != want {
					t.Errorf("hint: want %q, error %v", want, err)
				}
				t.Logf("%v\nhint: %s", err, h.Hint())
			})
		}
	}
}
