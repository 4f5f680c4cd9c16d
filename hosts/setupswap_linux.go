package hosts

import (
	"bytes"
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// replaceChecked puts pending, the new content of p, in p's place, and
// makes sure that what it replaced is cur, the content setup read (or
// that nothing was there, !existed): a host that rewrites its settings
// takes no lock of bundlectl's, and its write between writeConfig's
// re-read and a plain rename would be lost. It exchanges the two names
// in one step (renameat2 RENAME_EXCHANGE), so that pending then names
// exactly the file it replaced; when that is not cur, it exchanges them
// back, unless p changed again since (a later write of the host's is
// there, and its earlier one gone with it), and returns errChanged. A
// file created at p since the re-read is never replaced
// (RENAME_NOREPLACE). pending is left for the caller to remove. On a
// file system without these flags, a plain rename.
func replaceChecked(pending, p string, cur []byte, existed bool) error {
	if !existed {
		err := unix.Renameat2(unix.AT_FDCWD, pending, unix.AT_FDCWD, p, unix.RENAME_NOREPLACE)
		switch {
		case errors.Is(err, unix.EEXIST):
			return errChanged
		case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS):
			return os.Rename(pending, p)
		case err != nil:
			return &os.LinkError{Op: "rename", Old: pending, New: p, Err: err}
		}
		return nil
	}
	ours, err := os.Lstat(pending)
	if err != nil {
		return err
	}
	err = unix.Renameat2(unix.AT_FDCWD, pending, unix.AT_FDCWD, p, unix.RENAME_EXCHANGE)
	switch {
	case errors.Is(err, unix.ENOENT):
		return errChanged // p removed since the re-read
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS):
		return os.Rename(pending, p)
	case err != nil:
		return &os.LinkError{Op: "exchange", Old: pending, New: p, Err: err}
	}
	testOnlyAfterExchange(p)
	if replaced, err := os.ReadFile(pending); err == nil && bytes.Equal(replaced, cur) {
		return nil
	}
	if now, err := os.Lstat(p); err == nil && os.SameFile(now, ours) {
		if err := unix.Renameat2(unix.AT_FDCWD, pending, unix.AT_FDCWD, p, unix.RENAME_EXCHANGE); err != nil {
			return &os.LinkError{Op: "exchange", Old: pending, New: p, Err: err}
		}
	}
	return errChanged
}
