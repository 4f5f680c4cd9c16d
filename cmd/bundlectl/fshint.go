package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"

	"github.com/bundlectl/bundlectl/bundle"
)

// fsHint returns a note to add to the message of an error a file system
// gave, and the command that shows its cause, for the errors no bundlectl
// command fixes: a read-only file system, a full one, a path bundlectl may
// not write. It returns "", "" for any other error, and for one that names
// no path: ENOSPC is also what a full inotify watch table says, and EPERM
// what a refused namespace says.
func fsHint(err error) (note, hint string) {
	p := errPath(err)
	if p == "" {
		return "", ""
	}
	var what string
	switch {
	case errors.Is(err, syscall.EROFS):
		what = "the file system is mounted read-only: remount it writable, or give bundlectl a writable home (--home DIR or BUNDLECTL_HOME)"
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		what = "the file system is full, or your quota on it is: free some space"
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		what = "you may not write there: check the owner and mode of that directory, or give bundlectl a home of your own (--home DIR or BUNDLECTL_HOME)"
	default:
		return "", ""
	}
	dir := existingDir(p)
	if dir == "" {
		return what, ""
	}
	switch {
	case errors.Is(err, syscall.EROFS) && runtime.GOOS == "linux":
		hint = "findmnt -T " + bundle.ShellArg(dir)
	case errors.Is(err, syscall.EROFS), errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		hint = "df -h " + bundle.ShellArg(dir)
	default:
		hint = "ls -ld " + bundle.ShellArg(dir)
	}
	return what, hint
}

// errPath is the path a file system error names, or "".
func errPath(err error) string {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Path
	case errors.As(err, &le):
		return le.New
	}
	return ""
}

// existingDir is the nearest directory at or above p that exists (an
// absolute path), or "" for a relative or empty p.
func existingDir(p string) string {
	if !filepath.IsAbs(p) {
		return ""
	}
	for d := p; ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}
