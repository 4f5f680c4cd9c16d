//go:build unix

package gemini

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// systemFileSkipped returns why Gemini CLI (0.61) skips the system
// settings or system defaults file p, or "" when it reads it. It skips one
// that exists (following links) unless the file, every directory above it
// and, when links lead elsewhere, the real file and every directory above
// that are owned by root and writable by neither group nor others, a link
// on the way owned by root too (its isFileAndDirectorySecureSync), and
// says only "Security Warning: Skipping system settings file" on stderr. A
// path that is missing is read as empty anyway.
func systemFileSkipped(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return ""
	}
	var st unix.Stat_t
	if unix.Stat(abs, &st) != nil {
		return "" // Gemini CLI's existsSync: false, the file is read as empty
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		real = abs
	}
	paths := []string{abs}
	if real != abs {
		paths = append(paths, real)
	}
	for _, f := range paths {
		for d := filepath.Dir(f); ; d = filepath.Dir(d) {
			if why := insecure(d, true); why != "" {
				return why
			}
			if d == filepath.Dir(d) {
				break
			}
		}
		if why := insecure(f, false); why != "" {
			return why
		}
	}
	return ""
}

// insecure is Gemini CLI's check of one path (isPathSecureSync): missing
// is fine; otherwise a directory (dir) or a regular file (!dir), owned by
// root and not writable by group or others, through a link owned by root.
func insecure(p string, dir bool) string {
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return ""
		}
		return fmt.Sprintf("%s cannot be checked: %v", p, err)
	}
	switch kind := st.Mode & unix.S_IFMT; {
	case dir && kind != unix.S_IFDIR:
		return p + " is not a directory"
	case !dir && kind != unix.S_IFREG:
		return p + " is not a regular file"
	}
	var lst unix.Stat_t
	if unix.Lstat(p, &lst) == nil && lst.Mode&unix.S_IFMT == unix.S_IFLNK && lst.Uid != 0 {
		return fmt.Sprintf("the link %s is not owned by root (uid %d)", p, lst.Uid)
	}
	if st.Uid != 0 {
		return fmt.Sprintf("%s is not owned by root (uid %d)", p, st.Uid)
	}
	if st.Mode&0o022 != 0 {
		return fmt.Sprintf("%s is writable by group or others (mode %o)", p, st.Mode&0o7777)
	}
	return ""
}
