// Command bundlectl reviews, trusts and runs agent plugin bundles.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/sources"
	"github.com/bundlectl/bundlectl/state"
	"github.com/spf13/cobra"
)

// Exit statuses (README.md, and every command's --help).
const (
	exitOK       = 0
	exitFailure  = 1
	exitUsage    = 2
	exitRefused  = 3
	exitStateBad = 4
)

func main() {
	// bundlectl is short-lived and its live heap is small (a tree listing,
	// a few manifests; file contents stream through fixed buffers), so
	// collecting less often is pure gain: about 1 ms of a one-shot run.
	debug.SetGCPercent(400)
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root, g := newRootFor(invoked(args), stdin, stdout, stderr)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(context.Background())
	if err == nil {
		return exitOK
	}
	if msg := err.Error(); strings.HasPrefix(msg, "unknown command ") || strings.HasPrefix(msg, "unknown flag") || strings.HasPrefix(msg, "unknown shorthand flag") {
		// cobra's own usage errors: a mistyped command is a usage error,
		// and its "Did you mean this?" is kept.
		first, suggestions, _ := strings.Cut(msg, "\n\nDid you mean this?\n")
		if s := strings.Fields(suggestions); len(s) > 0 {
			first += "; did you mean " + strings.Join(s, " or ") + "?"
		}
		help := ""
		if cmd != nil {
			help = helpOf(cmd)
		}
		err = &usageError{errors.New(strings.TrimSpace(first)), help}
	}
	code := exitCode(err)
	var q *quietError
	var in *interrupted
	switch {
	case !errors.As(err, &q):
		report(stderr, err, g)
	case q.signal != 0:
		dieOf(q.signal)
	}
	if errors.As(err, &in) {
		dieOf(in.sig)
	}
	return code
}

// exitCode is the one place errors become exit statuses.
func exitCode(err error) int {
	var ce *codeError
	var qe *quietError
	var ue *usageError
	var in *interrupted
	switch {
	case errors.As(err, &in):
		return 128 + int(in.sig)
	case errors.As(err, &ce):
		return ce.code
	case errors.As(err, &qe):
		return qe.code
	case errors.As(err, &ue):
		return exitUsage
	case errors.Is(err, lifecycle.ErrStateUnusable):
		return exitStateBad
	case errors.Is(err, lifecycle.ErrRefused):
		return exitRefused
	}
	return exitFailure
}

// report prints err and, when it carries one, the hint that fixes it,
// carrying this invocation's --home and --workspace so that it works as
// printed (as do the commands the message names, bundle.CommandsIn).
//
// Both are escaped as bundle text is: a message can hold a name from a
// bundle's directory, and a newline or an escape sequence in it must not
// print a line of its own (a fake "bundlectl: hint:" a user might paste).
func report(w io.Writer, err error, g *globals) {
	msg := bundle.Sanitize(err.Error())
	if g != nil {
		// A command the message names works as printed too.
		msg = bundle.CommandsIn(msg, g.hint)
	}
	var h interface{ Hint() string }
	hint := ""
	if errors.As(err, &h) && h.Hint() != "" {
		hint = g.hint(h.Hint())
	}
	var se *sources.Error
	if hint == "" && errors.As(err, &se) && se.Hint() != "" {
		// A source error lifecycle wrapped without a fix of its own
		// (an install or update whose fetch failed): the source's.
		hint = g.hint(se.Hint())
	}
	if h := homeLinkHint(err, g); h != "" {
		hint = h
	}
	if note, h := dirNotNameHint(err, g); h != "" {
		msg += note
		hint = h
	}
	if note, h := workspaceAboveHint(err, g); h != "" {
		msg += note
		hint = h
	}
	if hint == "" && (errors.Is(err, state.ErrLocked) || errors.Is(err, sources.ErrInterrupted) || fetchCancelled(err)) {
		hint = rerun(os.Args[1:])
	}
	if hint == "" && errors.Is(err, sources.ErrTimeout) {
		hint = rerun(withLongerTimeout(os.Args[1:]))
	}
	if hint == "" {
		// A file system that refuses the write: no bundlectl command
		// fixes it, so say what is wrong and how to see it.
		var note string
		note, hint = fsHint(err)
		if note != "" {
			msg += " (" + note + ")"
		}
	}
	fmt.Fprintf(w, "bundlectl: %s\n", msg)
	if hint != "" {
		fmt.Fprintf(w, "bundlectl: hint: %s\n", bundle.Sanitize(hint))
	}
}

// fetchCancelled reports whether err is a fetch cancelled (SIGINT,
// SIGTERM): nothing of it was kept, and the same command fetches afresh.
func fetchCancelled(err error) bool {
	var se *sources.Error
	return errors.As(err, &se) && errors.Is(err, context.Canceled)
}

// withLongerTimeout is args with --timeout four times as long as the one
// they give (sources.DefaultTimeout when they give none or one that does
// not parse), and at least that default: the command to run again after
// a fetch that timed out. The flag goes last, before a "--" if there is
// one, so that it is never taken for an operand.
func withLongerTimeout(args []string) []string {
	d := sources.DefaultTimeout
	out := make([]string, 0, len(args)+2)
	end := len(args)
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			end = i
			break
		}
		value, isTimeout := "", false
		switch {
		case a == "--timeout" && i+1 < len(args):
			value, isTimeout = args[i+1], true
			i++
		case strings.HasPrefix(a, "--timeout="):
			value, isTimeout = strings.TrimPrefix(a, "--timeout="), true
		}
		if !isTimeout {
			out = append(out, a)
			continue
		}
		if v, err := time.ParseDuration(value); err == nil && v > 0 {
			d = v
		}
	}
	longer := max(4*d, sources.DefaultTimeout)
	out = append(out, "--timeout", longer.String())
	return append(out, args[end:]...)
}

// rerun is this invocation as a command to paste again, or "" when an
// argument may hold a secret (a credential shape, a URL with a user, a
// KEY=VALUE), which is never printed back. A flag written --flag=value
// of bundlectl's that names a place or a name (--home=DIR) is checked,
// and printed, as --flag value: its "=" is syntax, not a KEY=VALUE.
func rerun(args []string) string {
	q := []string{"bundlectl"}
	for i, a := range args {
		words := []string{a}
		if name, value, ok := strings.Cut(a, "="); ok && isFlagName(name) && !containsDashDash(args[:i]) {
			words = []string{name, value}
		}
		for _, w := range words {
			if bundle.RedactTokens(w) != w || strings.Contains(w, "=") || atMayEndSecret(w) {
				return ""
			}
			q = append(q, bundle.ShellArg(w))
		}
	}
	return strings.Join(q, " ")
}

// atMayEndSecret reports whether an "@" in w may end a secret: the user
// information of a url of a scheme that takes a password or a token
// (https://TOKEN@host/r.git), or any user information with a ":" in it.
// An ssh url's user (ssh://git@host/r.git), an scp-like one
// (git@host:r.git) and a marketplace plugin's name (<plugin>@<marketplace>)
// name a login or a plugin, not a secret, and are printed back: refusing
// every "@" left a fetch of each of them that timed out or was cancelled
// with no command to run again.
func atMayEndSecret(w string) bool {
	if !strings.Contains(w, "@") {
		return false
	}
	rest := w
	for {
		i := strings.Index(rest, "://")
		if i < 0 {
			// No url (left): an "@" after a ":" may be user:password@.
			at := strings.LastIndex(rest, "@")
			return at >= 0 && strings.Contains(rest[:at], ":")
		}
		scheme := rest[:i]
		if j := strings.LastIndex(scheme, "@"); j >= 0 {
			if strings.Contains(scheme[:j], ":") {
				return true
			}
			scheme = scheme[j+1:]
		}
		auth := rest[i+3:]
		if k := strings.IndexAny(auth, "/?#"); k >= 0 {
			auth = auth[:k]
		}
		if at := strings.LastIndex(auth, "@"); at >= 0 {
			switch strings.ToLower(scheme) {
			case "ssh", "git+ssh", "ssh+git":
				if strings.Contains(auth[:at], ":") {
					return true
				}
			default:
				return true
			}
		}
		rest = rest[i+3:]
	}
}

// isFlagName reports whether s is one of bundlectl's long flags whose
// value names a place, a bundle or a component, never a secret: "--home".
func isFlagName(s string) bool {
	switch s {
	case "--home", "--workspace", "--scope", "--name", "--path", "--format", "--ref", "--timeout",
		"--sha256", "--file", "--hook", "--mcp", "--lsp", "--tool", "--host", "--unset", "--stdin":
		return true
	}
	return false
}

// containsDashDash reports whether args end the flags: after "--", every
// argument is an operand.
func containsDashDash(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return true
		}
	}
	return false
}

// homeLinkHint is, when the home is a symbolic link, this invocation to
// run again on the directory it points to — `bundlectl --home
// "$(realpath LINK)" …` — or "" when err is another or an argument may
// hold a secret (rerun). The state package knows the link, not the
// command, and its hint alone ("pass the real directory: --home …") is
// not a command that works as printed.
func homeLinkHint(err error, g *globals) string {
	var u *state.UnsafeError
	if g == nil || !errors.As(err, &u) || u.Reason != "is a symlink" {
		return ""
	}
	if home, herr := g.homeDir(); herr != nil || home != u.Path {
		return ""
	}
	var rest []string
	args := os.Args[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			rest = append(rest, args[i:]...)
			i = len(args)
		case a == "--home":
			i++
		case strings.HasPrefix(a, "--home="):
		default:
			rest = append(rest, a)
		}
	}
	again := rerun(rest)
	if again == "" {
		return ""
	}
	return `bundlectl --home "$(realpath ` + bundle.ShellArg(u.Path) + `)"` + strings.TrimPrefix(again, "bundlectl")
}

// dirNotNameHint is, when a command that takes a bundle's name (trust,
// enable, show, …) was given a directory outside every root, what to say
// and the command that makes it a bundle with a name: install it. A
// directory in a root is named by its bundle's name instead.
func dirNotNameHint(err error, g *globals) (note, hint string) {
	var nf *lifecycle.NotFoundError
	if g == nil || !errors.As(err, &nf) || !isDirArg(nf.Name) {
		return "", ""
	}
	abs, aerr := filepath.Abs(nf.Name)
	if fi, serr := os.Stat(abs); aerr != nil || serr != nil || !fi.IsDir() {
		return "", ""
	}
	if r, rerr := g.roots(); rerr == nil {
		for _, root := range r.List() {
			if filepath.Dir(abs) == filepath.Clean(root.Path) {
				if argBefore(nf.Name, "trust") {
					// The token given was never checked against the
					// bundle: its review prints the one to trust.
					return "; it is a bundle's directory: name the bundle instead, and trust the token its review prints", g.hint("bundlectl review " + bundle.Operands(filepath.Base(abs)))
				}
				// A bundle of a root is named by its directory's name.
				args := append([]string(nil), os.Args[1:]...)
				for i, a := range args {
					if a == nf.Name {
						args[i] = filepath.Base(abs)
					}
				}
				if again := rerun(args); again != "" {
					return "; it is a bundle's directory: name the bundle instead", again
				}
				return "; it is a bundle's directory: name the bundle instead", g.hint("bundlectl list")
			}
		}
	}
	for _, a := range os.Args[1:] {
		if a == nf.Name {
			break
		}
		if a == "uninstall" || a == "revoke" {
			// Nothing of a directory outside the roots is installed or
			// trusted: installing it is no step toward removing it.
			return "; it is a directory outside every root, so there is nothing of it to " + a, g.hint("bundlectl list")
		}
	}
	return "; it is a directory, and this command takes a bundle's name: install the directory first, then review the bundle it names", g.hint("bundlectl install " + bundle.Operands(nf.Name))
}

// argBefore reports whether word is an argument of this invocation before
// the operand operand: the command that was given it.
func argBefore(operand, word string) bool {
	for _, a := range os.Args[1:] {
		if a == operand {
			return false
		}
		if a == word {
			return true
		}
	}
	return false
}

// workspaceAboveHint is, for a name no root holds when no --workspace was
// given, the workspace above the current directory that holds a bundle of
// that name: the workspace is the current directory, not the nearest one
// above it, so a command run in a subdirectory finds none of its bundles.
// The hint is this invocation again with that --workspace (or its list,
// when an argument may hold a secret).
func workspaceAboveHint(err error, g *globals) (note, hint string) {
	var nf *lifecycle.NotFoundError
	if g == nil || g.workspace != "" || !errors.As(err, &nf) || nf.Scope == bundle.ScopeUser || !bundle.ValidBundleName(nf.Name) {
		return "", ""
	}
	cwd, werr := os.Getwd()
	if werr != nil {
		return "", ""
	}
	for d := filepath.Dir(cwd); ; d = filepath.Dir(d) {
		if fi, serr := os.Stat(filepath.Join(d, ".bundlectl", "bundles", nf.Name)); serr == nil && fi.IsDir() {
			note = "; the workspace " + bundle.Quote(d) + " above the current directory has one (the workspace is the current directory unless --workspace names another)"
			if again := rerun(append([]string{"--workspace", d}, os.Args[1:]...)); again != "" {
				return note, again
			}
			h := *g
			h.workspace = d
			return note, h.hint("bundlectl list")
		}
		if d == filepath.Dir(d) {
			return "", ""
		}
	}
}

// codeError carries an explicit exit status.
type codeError struct {
	code int
	err  error
	hint string
}

func (e *codeError) Error() string { return e.err.Error() }
func (e *codeError) Unwrap() error { return e.err }
func (e *codeError) Hint() string  { return e.hint }

// quietError is an exit status whose message has already been printed
// (a validation report, for instance). A signal other than 0 is the one
// that ended the program bundlectl ran in the foreground (exec's agent):
// bundlectl ends by it too where it can (dieOf), code otherwise.
type quietError struct {
	code   int
	signal syscall.Signal
}

func (e *quietError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// dieOf ends bundlectl by sig, the signal that ended its agent (or that
// interrupted the secret prompt, readSecret), so that its caller sees
// what the agent's would have: a shell script stops on a Ctrl-C that
// killed the agent only when its job died of SIGINT, and goes on after one
// that exited 130. It does so for the signals whose default ends a process
// quietly and which Go's runtime lets end it — SIGINT, SIGTERM and SIGHUP
// once unsubscribed, and SIGKILL — and returns for the others (the
// runtime's handler would print a crash report for SIGQUIT or SIGSEGV, and
// take no action on SIGUSR1), and for a signal bundlectl was started
// ignoring; the exit status then says 128+N.
//
// It returns too, for 128+N, when bundlectl is the init of a PID namespace
// (PID 1 in a container): the kernel drops a signal at its default sent to
// a namespace's init from inside it, so the runtime, finding itself alive
// after raising it, would exit 2, which says a usage error.
func dieOf(sig syscall.Signal) {
	if os.Getpid() == 1 {
		return
	}
	switch sig {
	case syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP:
		if signal.Ignored(sig) {
			return
		}
		signal.Reset(sig)
	case syscall.SIGKILL:
	default:
		return
	}
	raise(sig)
}

// usageError is a mistake on the command line; help is the help command
// of the command it was made on ("bundlectl --help" when empty).
type usageError struct {
	err  error
	help string
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }
func (e *usageError) Hint() string {
	if e.help == "" {
		return "bundlectl --help"
	}
	return e.help
}

// helpOf is the help command of c.
func helpOf(c *cobra.Command) string { return c.CommandPath() + " --help" }
