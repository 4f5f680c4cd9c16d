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
// back and returns errChanged; if p changed again since, it leaves p
// as it is and keeps the file it replaced under another name
// (replacedKeptError), since what is at p may be another setup's, built
// without it. A
// file created at p since the re-read is never replaced
// (RENAME_NOREPLACE). When p is gone since the exchange, the file it
// replaced is put back there. pending is left for the caller to remove,
// unless it held the file replaced and that could not be put back
// (replacedKeptError). On a file system without these flags, a plain
// rename.
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
	now, err := os.Lstat(p)
	if err == nil && !os.SameFile(now, ours) {
		err = unix.EEXIST
	}
	if err == nil {
		err = unix.Renameat2(unix.AT_FDCWD, pending, unix.AT_FDCWD, p, unix.RENAME_EXCHANGE)
		if err == nil {
			return errChanged
		}
	}
	// Not exchanged back: pending holds the file setup replaced, not
	// setup's. With p gone since the exchange, it is the only copy of the
	// user's settings: put it back (never over a file made there since).
	if errors.Is(err, unix.ENOENT) {
		err = unix.Renameat2(unix.AT_FDCWD, pending, unix.AT_FDCWD, p, unix.RENAME_NOREPLACE)
	}
	if err == nil {
		return errChanged
	}
	if errors.Is(err, unix.EEXIST) {
		// Another file took p's place since the exchange: the host's
		// next write, or another setup's (another $BUNDLECTL_HOME),
		// built on setup's file and without what pending holds.
		err = errors.New("another file took its place since")
	}
	return &replacedKeptError{Kept: keepReplaced(pending), Err: err}
}
