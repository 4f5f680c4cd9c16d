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

// A user who may write the workspace's .bundlectl renames its tmp (or
// this home's directory in it) away after the command checked and opened
// its holder, right before the fetch, and puts a link to a directory of
// theirs, holding the same names, in its place. The fetch writes through
// the holder it opened, so nothing lands in the link's target, and the
// command is refused, naming the directory, with a hint. (Before
// sources.Fetch wrote through a held directory every subtest failed: the
// fetch resolved the parent's path again and wrote its tree, and its
// scratch space, into the victim.)
func TestFetchSwappedAfterHolderOpened(t *testing.T) {
	lifecycle.UseWorkspaceTmp(t)
	for _, swapped := range []string{"tmp", "key"} {
		for _, cmd := range []string{"install", "update", "sync"} {
			t.Run(swapped+"/"+cmd, func(t *testing.T) {
				c := prepareWSCmd(t, cmd)
				victim := filepath.Join(c.dir, "victim")
				tmp := filepath.Join(c.ws, ".bundlectl", "tmp")
				key := lifecycle.HomeKey(c.m)
				link := tmp
				if swapped == "key" {
					link = filepath.Join(tmp, key)
				}
				done := false
				made := map[string]bool{victim: true}
				lifecycle.OnFetchStarting(t, func() {
					if done {
						return
					}
					done = true
					// The victim mirrors what the link replaces, so
					// that a fetch resolving the path again finds its
					// holder there and writes into it.
					ents, err := os.ReadDir(filepath.Join(tmp, key))
					must(t, err)
					must(t, os.Rename(tmp, tmp+".moved"))
					mirror := victim
					if swapped == "tmp" {
						mirror = filepath.Join(victim, key)
						made[mirror] = true
					} else {
						must(t, os.Mkdir(tmp, 0o1777))
					}
					for _, e := range ents {
						must(t, os.MkdirAll(filepath.Join(mirror, e.Name()), 0o777))
						made[filepath.Join(mirror, e.Name())] = true
					}
					must(t, os.Symlink(victim, link))
				})
				err := c.run()
				if !done {
					t.Fatal("the swap never ran")
				}
				var written []string
				filepath.WalkDir(victim, func(p string, d os.DirEntry, err error) error {
					if err == nil && !made[p] {
						written = append(written, p)
					}
					return nil
				})
				if len(written) > 0 {
					t.Fatalf("%s wrote through the link %s swapped in after the check: %v (err %v)", cmd, link, written, err)
				}
				if err == nil {
					t.Fatalf("%s used a tmp swapped after its check", cmd)
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
