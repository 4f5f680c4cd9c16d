package harness

import (
	"errors"
	"fmt"

	"github.com/bundlectl/bundlectl/lifecycle"
)

// Sentinels for errors.Is. Every refusal also matches lifecycle.ErrRefused.
var (
	// ErrNotActive: the bundle is not active (untrusted, disabled, blocked,
	// invalid, shadowed or not applicable) — it was never loaded.
	ErrNotActive = errors.New("bundle is not active")
	// ErrDisabled: the bundle was disabled after the registry loaded it.
	ErrDisabled = errors.New("bundle was disabled")
	// ErrRevoked: the bundle's trust was revoked after the registry loaded it.
	ErrRevoked = errors.New("bundle trust was revoked")
	// ErrStale: the bundle's receipt or generation changed since load
	// (re-trusted, or disabled and enabled again); reload the registry.
	ErrStale = errors.New("bundle state changed since the registry was loaded")
	// ErrDrifted: the bundle's source no longer matches its receipt.
	ErrDrifted = errors.New("bundle source drifted from its receipt")
	// ErrTampered: the snapshot no longer matches its content hash.
	ErrTampered = errors.New("bundle snapshot was tampered with")
	// ErrUnknown: no such skill, tool, hook or server in the registry.
	ErrUnknown = errors.New("not in the registry")
	// ErrInput: the tool input failed its params schema; nothing ran.
	ErrInput = errors.New("tool input rejected")
)

// AuthorityError is a refused boundary: it names the bundle, the reason
// and the command that fixes it. Nothing ran.
type AuthorityError struct {
	Bundle string
	Reason string
	Fix    string
	Err    error // one of the sentinels above
}

func (e *AuthorityError) Error() string {
	return fmt.Sprintf("bundle %q refused: %s", e.Bundle, e.Reason)
}

func (e *AuthorityError) Unwrap() []error { return []error{e.Err, lifecycle.ErrRefused} }

// Hint is the command that fixes it.
func (e *AuthorityError) Hint() string { return e.Fix }

func refuse(bundle string, sentinel error, fix, format string, args ...any) *AuthorityError {
	return &AuthorityError{Bundle: bundle, Reason: fmt.Sprintf(format, args...), Fix: fix, Err: sentinel}
}
