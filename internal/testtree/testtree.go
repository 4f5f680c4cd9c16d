// Package testtree holds file-tree helpers shared by tests in several
// packages. It is not part of bundlectl's API.
package testtree

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Copy copies a tree of regular files and directories from src to dst,
// keeping each file's permission bits (the executable bit matters to the
// content hash) whatever the umask. Anything else in src is an error.
func Copy(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		if !d.Type().IsRegular() {
			return &fs.PathError{Op: "copy", Path: p, Err: fs.ErrInvalid}
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(out, data, 0o600); err != nil {
			return err
		}
		return os.Chmod(out, fi.Mode().Perm()) // whatever the umask

	})
}
