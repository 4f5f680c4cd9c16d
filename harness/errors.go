package harness

import (
	"errors"
	"fmt"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
)

// Sentinels for errors.Is. Every refusal also matches lifecycle.ErrRefused.
var (
	// ErrNotActive: the bundle is not active (untrusted, disabled, blocked,
	// shadowed, not applicable, or trusted by an older bundlectl) — it was
	// never loaded.
	ErrNotActive = errors.New("bundle is not active")
	// ErrReceiptUnusable: the bundle is trusted and enabled but its
	// receipt cannot be used (it does not decode, or was written by
	// another bundlectl). It also matches ErrNotActive; unlike the user's
	// own transitions it is not a choice, so its guards block.
	ErrReceiptUnusable = fmt.Errorf("%w: its receipt cannot be used", ErrNotActive)
	// ErrDisabled: the bundle was disabled after the registry loaded it.
	ErrDisabled = errors.New("bundle was disabled")
	// ErrRevoked: the bundle's trust was revoked after the registry loaded it.
	ErrRevoked = errors.New("bundle trust was revoked")
	// ErrStale: the bundle's receipt or generation changed since load
	// (trusted again, even with the same token); reload the registry. It
	// is also the sentinel of a state file that became unusable after
	// load (Cause holds the state error; a reload fails then).
	ErrStale = errors.New("bundle state changed since the registry was loaded")
	// ErrRemoved: the bundle's directory is no longer in its root, or a
	// bundle that is not trusted and enabled took its name, while the
	// state still trusts and enables it. A guard blocks its event.
	ErrRemoved = errors.New("bundle was removed from its root")
	// ErrSwitchedOff: the component is switched off (one hook, server or
	// tool of an otherwise active bundle).
	ErrSwitchedOff = errors.New("component is switched off")
	// ErrShadowed: a bundle of the same name in an earlier root appeared.
	ErrShadowed = errors.New("bundle is shadowed")
	// ErrTampered: the snapshot no longer matches its content hash.
	ErrTampered = errors.New("bundle snapshot was tampered with")
	// ErrUnknown: no such skill, tool, hook or server in the registry.
	ErrUnknown = errors.New("not in the registry")
	// ErrInput: the tool input failed its params schema; nothing ran.
	ErrInput = errors.New("tool input rejected")
)

// AuthorityError is a refused boundary: it names the bundle, the reason
// and the command that fixes it. Nothing ran — unless it is the Cause of a
// *CanceledError, which wraps it: a child that did run was killed. Check
// for *CanceledError first.
type AuthorityError struct {
	Bundle string
	Reason string
	Fix    string
	Err    error // one of the sentinels above
	Cause  error // the underlying error, if any (e.g. an unusable state file)
}

func (e *AuthorityError) Error() string {
	return fmt.Sprintf("bundle %q refused: %s", e.Bundle, e.Reason)
}

func (e *AuthorityError) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Err, lifecycle.ErrRefused, e.Cause}
	}
	return []error{e.Err, lifecycle.ErrRefused}
}

// Hint is the command that fixes it.
func (e *AuthorityError) Hint() string { return e.Fix }

func refuse(bundle string, sentinel error, fix, format string, args ...any) *AuthorityError {
	return &AuthorityError{Bundle: bundle, Reason: fmt.Sprintf(format, args...), Fix: fix, Err: sentinel}
}

// UnknownError names something the registry does not hold: a bundle in no
// root, a tool, or an MCP server. It matches ErrUnknown, not a refusal.
type UnknownError struct {
	What string // "bundle", "tool", "mcp server", "skill, command or agent"
	Name string
	// Bundle and Short, when set, name it as the user did: a component
	// Short of bundle Bundle, whose components of that kind are Known.
	Bundle, Short string
	Known         []string
	// Instead, when set, is the command that serves a component of that
	// name under the other server kind ("bundlectl mcp B S" for an LSP
	// server asked for by an MCP server's name).
	Instead string
}

func (e *UnknownError) Error() string {
	what := strings.NewReplacer("mcp", "MCP", "lsp", "LSP").Replace(e.What)
	switch {
	case e.What == "bundle":
		return fmt.Sprintf("no bundle named %q in any root", e.Name)
	case e.Bundle != "" && len(e.Known) == 0:
		if e.Instead != "" {
			return fmt.Sprintf("bundle %s has no %s %s%s", bundle.Quote(e.Bundle), what, bundle.Quote(e.Short), e.instead())
		}
		return fmt.Sprintf("bundle %s has no %s %s (it has none, or it is not active)", bundle.Quote(e.Bundle), what, bundle.Quote(e.Short))
	case e.Bundle != "":
		known := make([]string, len(e.Known))
		for i, k := range e.Known {
			known[i] = bundle.Quote(k)
		}
		return fmt.Sprintf("bundle %s has no %s %s (its %ss: %s)%s", bundle.Quote(e.Bundle), what, bundle.Quote(e.Short), what, strings.Join(known, ", "), e.instead())
	}
	return fmt.Sprintf("no %s %q in the registry", e.What, e.Name)
}
func (e *UnknownError) Unwrap() error { return ErrUnknown }

func (e *UnknownError) instead() string {
	if e.Instead == "" {
		return ""
	}
	if e.What == "mcp server" {
		return "; it has a language server of that name, which bundlectl lsp runs"
	}
	return "; it has an MCP server of that name, which bundlectl mcp runs"
}

// Hint is the command that lists what exists, or Instead.
func (e *UnknownError) Hint() string {
	if e.Instead != "" {
		return e.Instead
	}
	if e.What == "bundle" {
		return "bundlectl list"
	}
	return "bundlectl catalog"
}

// RemoteServerError: ServeMCP was asked to run a remote server.
type RemoteServerError struct{ Name, URL string }

func (e *RemoteServerError) Error() string {
	name := bundle.Quote(e.Name)
	if b, srv, ok := splitServerName(e.Name); ok {
		name = bundle.Quote(srv) + " of bundle " + bundle.Quote(b)
	}
	return fmt.Sprintf("MCP server %s is remote (%s): bundlectl runs only stdio servers; connect to it directly (catalog --json lists its endpoint, header names and credential sources)", name, e.URL)
}

// Hint is the command that lists the endpoint and its credential sources.
func (e *RemoteServerError) Hint() string { return "bundlectl catalog --json" }
