package staging

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/receipts"
)

// ErrMismatch is wrapped by a *MismatchError: the bytes copied from the
// source do not hash to the reviewed content hash.
var ErrMismatch = errors.New("the source changed after review")

// ErrTampered is wrapped by a *TamperError: a snapshot no longer matches
// its name.
var ErrTampered = errors.New("snapshot does not match its content hash")

// MismatchError reports that the copy's content hash, computed from the
// very bytes written, is not the one the token names. Nothing was staged.
type MismatchError struct {
	Want, Got receipts.Digest
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("the copied tree has content hash %s, not the reviewed %s: %v", e.Got.Short(), e.Want.Short(), ErrMismatch)
}

func (e *MismatchError) Unwrap() error { return ErrMismatch }

// TamperError names the first thing found wrong with a snapshot. Path is
// relative to the snapshot root ("." for the root itself); Reason says
// what is wrong.
type TamperError struct {
	Snapshot string // the snapshot directory
	Path     string
	Reason   string
}

func (e *TamperError) Error() string {
	return fmt.Sprintf("snapshot %q: %s: %s", e.Snapshot, bundle.Quote(e.Path), e.Reason)
}

func (e *TamperError) Unwrap() error { return ErrTampered }

// LimitError reports that a tree is larger than the bundle limits allow.
// Stage checks the walked tree against its limits before it copies and
// counts the bytes it actually reads while it copies.
type LimitError struct {
	Path  string // the entry that crossed the bound, "." for the whole tree
	Bound string // "entries", "total bytes", "file bytes", "depth", "path bytes"
	Value int64
	Max   int64
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s: %d %s is more than the limit of %d", bundle.Quote(e.Path), e.Value, e.Bound, e.Max)
}

// UnsafeStoreError reports a store directory that bundlectl refuses to use:
// a symbolic link, not a directory, or owned by another user.
type UnsafeStoreError struct {
	Path   string
	Reason string
}

func (e *UnsafeStoreError) Error() string {
	if e.movesAside() {
		return fmt.Sprintf("store %q: %s (move it aside, then review and trust your bundles again)", e.Path, e.Reason)
	}
	return fmt.Sprintf("store %q: %s", e.Path, e.Reason)
}

// movesAside reports whether the repair is to move the store aside (the
// message says what follows; Hint is the mv alone).
func (e *UnsafeStoreError) movesAside() bool {
	return filepath.IsAbs(e.Path) && !strings.HasPrefix(e.Reason, "has mode")
}

// Hint is the shell command that makes the store usable again. bundlectl
// never follows, replaces or chowns a store it did not make: a store
// moved aside leaves every trusted bundle without its snapshot, so each
// is reviewed and trusted again.
func (e *UnsafeStoreError) Hint() string {
	if !filepath.IsAbs(e.Path) {
		return ""
	}
	if strings.HasPrefix(e.Reason, "has mode") {
		return "chmod go-w " + bundle.ShellArg(e.Path)
	}
	return "mv " + bundle.ShellArg(e.Path) + " " + bundle.ShellArg(e.Path+".bad")
}

func changed(rel, reason string) error {
	return &bundle.ChangedError{Path: bundle.EscapePath(rel), Reason: reason}
}

// SpaceError reports a snapshot that could not be staged because the
// file system holding the store is full (or the user's quota is): the
// bundle's own files are not at fault. Nothing is left behind.
type SpaceError struct {
	Store string
	Err   error
}

func (e *SpaceError) Error() string {
	return fmt.Sprintf("no space left in the store %s to stage the snapshot (nothing was kept): %v", bundle.Quote(e.Store), e.Err)
}
func (e *SpaceError) Unwrap() error { return e.Err }

// Hint shows how much space the store's file system has; free some, then
// run the command again.
func (e *SpaceError) Hint() string { return "df -h " + bundle.ShellArg(e.Store) }
