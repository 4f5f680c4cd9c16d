package state

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
)

// Sentinels, for callers that branch (the CLI maps ErrUnsafe, ErrMalformed
// and ErrLocked to exit status 4, ErrNotTrusted to exit status 3).
var (
	// ErrUnsafe is wrapped by every *UnsafeError.
	ErrUnsafe = errors.New("unsafe state")
	// ErrMalformed is wrapped by every *MalformedError.
	ErrMalformed = errors.New("malformed state")
	// ErrLocked is wrapped by *LockError: the lock was not acquired in time.
	ErrLocked = errors.New("state lock not acquired")
	// ErrNotTrusted: the transition needs a current receipt and the bundle
	// has none (enable of an untrusted or revoked bundle).
	ErrNotTrusted = errors.New("not trusted")
)

// UnsafeError reports a state file, lock file or state directory that
// bundlectl refuses to read or replace: a symlink, not a regular file (or
// directory), not owned by the current user, or group- or world-writable.
// Such a path is never modified.
type UnsafeError struct {
	Path   string
	Reason string // e.g. "is group- or world-writable (mode 0666)"
	// Note is what to do around Hint ("move it aside, then trust your
	// bundles again"), shown in the message; Hint is the command alone,
	// so that a hint line works pasted as printed.
	Note string
	Hint string // the command that repairs it
}

func (e *UnsafeError) Error() string {
	return fmt.Sprintf("%s %q %s%s; hint: %s", describe(e.Path), e.Path, e.Reason, noted(e.Note), e.Hint)
}

// noted is a note in parentheses after a reason, or nothing.
func noted(note string) string {
	if note == "" {
		return ""
	}
	return " (" + note + ")"
}

func (e *UnsafeError) Unwrap() error { return ErrUnsafe }

// MalformedError reports a state file that does not parse, has an
// unsupported schema_version or breaks an invariant. The file is never
// overwritten; the hint says how to move it aside.
type MalformedError struct {
	Path   string
	Reason string // where and what, never a stored value
	Note   string // what to do around Hint, as UnsafeError's
	Hint   string // the command alone
}

func (e *MalformedError) Error() string {
	return fmt.Sprintf("state file %q is malformed: %s%s; hint: %s", e.Path, e.Reason, noted(e.Note), e.Hint)
}

func (e *MalformedError) Unwrap() error { return ErrMalformed }

// LockError reports that the exclusive lock on state.lock was not acquired
// within the bounded wait.
type LockError struct {
	Path   string
	Waited time.Duration
	Err    error // the underlying error, nil when the lock was simply busy
}

func (e *LockError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("state lock %q not acquired: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("state lock %q is held by another process (waited %s); run this command again when the other bundlectl command has finished", e.Path, e.Waited)
}

func (e *LockError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrLocked, e.Err}
	}
	return []error{ErrLocked}
}

// NotTrustedError names the bundle a transition needed a receipt for.
type NotTrustedError struct {
	ID     string
	Action Action
}

func (e *NotTrustedError) Error() string {
	return fmt.Sprintf("cannot %s bundle %s: it is not trusted: review it, then trust the exact token the review prints; hint: %s", e.Action, quote(e.ID), e.Hint())
}

// Hint is the command that starts the fix, as printed: the review of the
// bundle by its name (the last part of its id), which prints the trust
// command with its token.
func (e *NotTrustedError) Hint() string {
	name := e.ID[strings.LastIndexByte(e.ID, '/')+1:]
	return "bundlectl review " + bundle.Operands(name)
}

func (e *NotTrustedError) Unwrap() error { return ErrNotTrusted }

// InvalidError reports a transition the state refuses because its input is
// invalid (a bad bundle id, a receipt for another bundle, zero digests).
// Nothing is written.
type InvalidError struct {
	ID     string
	Reason string
}

func (e *InvalidError) Error() string {
	return fmt.Sprintf("bundle %s: %s", quote(e.ID), e.Reason)
}
