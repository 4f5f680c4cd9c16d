package lifecycle

import (
	"errors"
	"fmt"
	"strings"

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

// NotFoundError names the missing bundle. With Scope, only that root was
// looked in; Elsewhere is a root that holds a bundle of that name. The
// hint stays list: uninstalling the other root's bundle is not what was
// asked, and a hint must not remove it.
type NotFoundError struct {
	Name      string
	Scope     bundle.Scope
	Elsewhere bundle.Scope
}

func (e *NotFoundError) Error() string {
	switch {
	case isIDShaped(e.Name):
		// Given an id (as the output of revoke or a refusal names one),
		// not a name: say so, and where ids are listed.
		return fmt.Sprintf("no bundle or receipt has the id %q (list --json shows each bundle's id)", e.Name)
	case e.Scope != "" && e.Elsewhere != "":
		return fmt.Sprintf("no bundle named %q in the %s root (the %s root has one)", e.Name, e.Scope, e.Elsewhere)
	case e.Scope != "":
		return fmt.Sprintf("no bundle named %q in the %s root", e.Name, e.Scope)
	}
	return fmt.Sprintf("no bundle named %q in any root", e.Name)
}
func (e *NotFoundError) Unwrap() error { return ErrNotFound }
func (e *NotFoundError) Hint() string {
	if isIDShaped(e.Name) {
		return "bundlectl list --json"
	}
	return "bundlectl list"
}

// isIDShaped reports whether s has the shape of a bundle's id,
// scope/<hex>/name, which no bundle's name can have.
func isIDShaped(s string) bool {
	parts := strings.Split(s, "/")
	if len(parts) != 3 || (parts[0] != string(bundle.ScopeUser) && parts[0] != string(bundle.ScopeWorkspace)) || parts[1] == "" {
		return false
	}
	for _, r := range parts[1] {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return bundle.ValidBundleName(parts[2])
}

// NotTrustedNameError is returned by Verify for a name no receipt holds.
// Discovered says a root holds a bundle of that name, never trusted: its
// review, not the list, is what to run next.
type NotTrustedNameError struct {
	Name       string
	Discovered bool
}

func (e *NotTrustedNameError) Error() string {
	if e.Discovered {
		return fmt.Sprintf("bundle %s is not trusted, so it has no receipt or snapshot to verify", bundle.Quote(e.Name))
	}
	return fmt.Sprintf("no trusted bundle named %s", bundle.Quote(e.Name))
}
func (e *NotTrustedNameError) Unwrap() error { return ErrNotFound }
func (e *NotTrustedNameError) Hint() string {
	if e.Discovered {
		return "bundlectl review " + bundle.Operands(e.Name)
	}
	return "bundlectl list"
}

// ChangedError: the bundle's tree changed while trust read it, so nothing
// was trusted. It is a refusal (as a token that no longer matches is), and
// wraps the walker's or the store's error (bundle.ErrChanged,
// staging.ErrMismatch).
type ChangedError struct {
	Bundle string
	Dir    string
	Err    error
}

func (e *ChangedError) Error() string {
	return fmt.Sprintf("%s: the bundle changed while it was read, so nothing was trusted: %s: %v", e.Bundle, bundle.Quote(e.Dir), e.Err)
}
func (e *ChangedError) Unwrap() []error { return []error{ErrRefused, e.Err} }
func (e *ChangedError) Hint() string    { return "bundlectl review " + bundle.ShellArg(e.Bundle) }
