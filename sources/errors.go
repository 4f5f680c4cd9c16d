package sources

import (
	"errors"
	"fmt"

	"github.com/bundlectl/bundlectl/bundle"
)

// Sentinels a caller branches on; every failure is an *Error that wraps one
// of them, or the underlying cause.
var (
	// ErrRefused: the source, or something it holds, breaks a rule: a path
	// that leaves its tree, a link, a device file, a bound exceeded, an
	// invalid or colliding name, an unsupported marketplace entry.
	ErrRefused = errors.New("refused")
	// ErrPinMismatch: fetched bytes or commits are not the pinned ones (an
	// archive's sha256, a locked commit).
	ErrPinMismatch = errors.New("does not match its pin")
	// ErrTimeout: the fetch did not finish within Options.Timeout.
	ErrTimeout = errors.New("timed out")
	// ErrNotFound: the source, a ref, a subdirectory, a marketplace or a
	// plugin in it does not exist.
	ErrNotFound = errors.New("not found")
	// ErrInvalid: the request itself is malformed (a bad URL, a flag that
	// does not apply to this kind of source).
	ErrInvalid = errors.New("invalid source")
	// ErrInterrupted: git was killed by a signal bundlectl did not send
	// (the OOM killer, a kill from outside); running the command again
	// fetches afresh.
	ErrInterrupted = errors.New("interrupted")
	// ErrCatalogueOwner wraps ErrRefused: a Claude Code catalogue whose
	// owner Claude Code refuses the whole marketplace for (missing, not an
	// object, no name). An update tells it apart from other refusals: the
	// bundle may have been installed before bundlectl checked the owner.
	ErrCatalogueOwner = fmt.Errorf("%w: the marketplace's owner", ErrRefused)
)

// Error is a failure to resolve or fetch a source. Source is the display
// form of what was asked for (never with credentials: URLs that carry them
// are refused before anything else), Path the entry or field inside it
// ("" when the failure concerns the source as a whole).
type Error struct {
	Source string
	Path   string
	Reason string
	Err    error
	// Fix is a command that shows the cause or fixes it ("git ls-remote
	// URL" for a failed git fetch), or "": never one that would print a
	// credential (see redact).
	Fix string
	// copyFix says Fix installs a copy without a directory shaped as a
	// git repository; listFix is then the listing of that directory, the
	// hint of a fetch that is not an install's (Options.NoCopyHint).
	copyFix bool
	listFix string
}

func (e *Error) Error() string {
	s := "source " + bundle.Quote(e.Source) + ": "
	if e.Path != "" {
		s += bundle.EscapePath(e.Path) + ": "
	}
	return s + e.Reason
}

func (e *Error) Unwrap() error { return e.Err }

// Hint is Fix: the command that shows why, or fixes it.
func (e *Error) Hint() string { return e.Fix }
