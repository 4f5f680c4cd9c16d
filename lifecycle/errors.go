package lifecycle

import (
	"errors"
	"fmt"

	"github.com/bundlectl/bundlectl/bundle"
)

// Sentinels callers branch on. The CLI maps ErrRefused to exit status 3 and
// ErrStateUnusable to 4.
var (
	// ErrRefused: the operation is refused for this bundle as it stands
	// (untrusted, drifted, disabled, blocked, a token that does not match).
	ErrRefused = errors.New("refused")
	// ErrStateUnusable: the state file is malformed, unsafe or locked.
	ErrStateUnusable = errors.New("state unusable")
	// ErrNotFound: no discovered bundle has that name.
	ErrNotFound = errors.New("no such bundle")
)

// RefusedError says why a bundle was refused and what fixes it.
type RefusedError struct {
	Bundle string
	Reason string
	Fix    string // the command that fixes it, if any
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("%s: %s", e.Bundle, e.Reason)
}
func (e *RefusedError) Unwrap() error { return ErrRefused }
func (e *RefusedError) Hint() string  { return e.Fix }

// NotFoundError names the missing bundle.
type NotFoundError struct{ Name string }

func (e *NotFoundError) Error() string { return fmt.Sprintf("no bundle named %q in any root", e.Name) }
func (e *NotFoundError) Unwrap() error { return ErrNotFound }
func (e *NotFoundError) Hint() string  { return "bundlectl list" }

// NotTrustedNameError is returned by Verify for a name no receipt holds.
type NotTrustedNameError struct{ Name string }

func (e *NotTrustedNameError) Error() string {
	return fmt.Sprintf("no trusted bundle named %s", bundle.Quote(e.Name))
}
func (e *NotTrustedNameError) Unwrap() error { return ErrNotFound }
func (e *NotTrustedNameError) Hint() string  { return "bundlectl list" }
