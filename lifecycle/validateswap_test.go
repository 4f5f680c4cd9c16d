package lifecycle_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/lifecycle"
)

// The validation of a fetched tree reads it by path. A user who may
// write the workspace's .bundlectl renames tmp away while it is read,
// puts a link to a tree of theirs in its place (the fetched tree with a
// file added), and undoes the swap once it was read: the path then leads
// to the held directory again. The command must not place the fetched
// tree as if it were the one validated: the walk's root must be the held
// tree. (Before, install, update and sync placed the fetched tree and
// recorded the decoy's content hash.)
func TestValidationSwappedAndUndone(t *testing.T) {
	lifecycle.UseWorkspaceTmp(t)
	for _, cmd := range []string{"install", "update", "sync"} {
		t.Run(cmd, func(t *testing.T) {
			c := prepareWSCmd(t, cmd)
			tmp := filepath.Join(c.ws, ".bundlectl", "tmp")
			victim := filepath.Join(c.dir, "victim")
			swapped := false
			lifecycle.OnValidating(t, func(dir string) func() {
				rel, err := filepath.Rel(tmp, dir)
				must(t, err)
				decoy := filepath.Join(victim, rel)
				must(t, copyTree(dir, decoy))
				must(t, os.WriteFile(filepath.Join(decoy, "decoy.md"), []byte("not fetched\n"), 0o644))
				must(t, os.Rename(tmp, tmp+".moved"))
				must(t, os.Symlink(victim, tmp))
				swapped = true
				return func() {
					must(t, os.Remove(tmp))
					must(t, os.Rename(tmp+".moved", tmp))
				}
			})
			err := c.run()
			if !swapped {
				t.Fatal("the swap never ran")
			}
			if err == nil {
				t.Fatalf("%s placed a fetched tree whose validation read another tree", cmd)
			}
			if !strings.Contains(err.Error(), "was replaced") {
				t.Errorf("the error does not say the directory was replaced: %v", err)
			}
		})
	}
}

// copyTree copies the directories and regular files of src to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
}
