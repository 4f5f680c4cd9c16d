package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/internal/jsonobj"
)

// A HookRun answers one event for a hook line that fires every matching
// active hook (bundlectl hooks run <Event>), in the hook contract of the
// host that reads the answer. A caller checks the line (CheckLine) and
// answers an input it cannot read (RefuseUnread); Answer does the rest.
// Its steps are methods too, in the order Answer meets them: the answer
// when which guards apply cannot be told (AnswerUnguarded), the outcome
// of the event (Refuse, Fire), and what is written and the exit status
// (Write).
type HookRun struct {
	Event string      // the event the line names
	Host  bundle.Host // the host that reads the answer; "" is bundlectl's own contract
	// Stdout and Stderr take the answer.
	Stdout, Stderr io.Writer

	// What Answer takes from its caller.

	// Roots resolves the home and the caller's workspace: the one it
	// names (WorkspaceNamed), else the current directory. Home resolves
	// the home alone.
	Roots func() (bundle.Roots, error)
	Home  func() (string, error)
	// WorkspaceNamed: the caller named its workspace (--workspace), and
	// the event's cwd does not choose it.
	WorkspaceNamed bool
	// Fix prints a fix command as the caller's user would run it
	// (Options.FixCommand); workspace, when not "", is the workspace it
	// must name: one chosen from the event's cwd, or other than the
	// current directory, is not where the user's shell is. Nil prints it
	// bare.
	Fix func(cmd, workspace string) string
	// SetupCheck, when set, is asked at every SessionStart under a host
	// what the host's hook lines, written by an earlier setup with this
	// home, leave out: problem is "" when nothing (hosts.SetupStale; a
	// function value, as hosts imports harness).
	SetupCheck func(home string, host bundle.Host, environ []string) (problem, fix string)
}

// A HookLineError is a hook line that names an event no guard would run
// for: the line is mis-wired, and Hint is the command that helps fix it.
type HookLineError struct {
	Reason, Fix string
}

func (e *HookLineError) Error() string { return e.Reason }
func (e *HookLineError) Hint() string  { return e.Fix }

// CheckLine returns a *HookLineError when the line names another host's
// event: no hook of bundlectl's own would fire for it, so every guard
// would pass. An event name that is not valid is left to Fire, which
// refuses it.
func (r HookRun) CheckLine() error {
	if !ValidHookEvent(r.Event) {
		return nil
	}
	switch h, event := r.Host, r.Event; {
	case h != "" && !bundle.KnownHookEvent(h, event):
		return &HookLineError{fmt.Sprintf("%s is not an event %s fires, so no guard would run for it: a hook line with --host %s names that host's own events", bundle.Quote(event), bundle.HostTitle(h), h), "bundlectl hooks run --help"}
	case h == "" && !bundle.KnownHookEvent("", event) && !bundle.KnownHookEvent(bundle.HostCodex, event):
		return &HookLineError{fmt.Sprintf("%s is a Gemini CLI event, for which bundlectl's own hooks fire only under --host gemini", bundle.Quote(event)), "bundlectl hooks run --host gemini " + event}
	}
	return nil
}

// RefuseUnread answers an event whose input cannot be read (readErr):
// it cannot be judged, so it fails closed, as one that does not parse,
// in the form the host honours (a stop on Codex's PreCompact and Gemini
// CLI's AfterModel, no tools on BeforeToolSelection: exit 0, which it
// reads). It returns nil for exit 0, else a *HookExit of 2.
func (r HookRun) RefuseUnread(readErr error) error {
	o, _ := RefuseEvent(r.Event, &HookEventError{Problem: "cannot read the input on stdin: " + readErr.Error()})
	switch r.Host {
	case bundle.HostClaude, bundle.HostCodex, bundle.HostGemini:
		o.Host = r.Host
	}
	if code, _ := WriteOutcome(r.Stdout, r.Stderr, o); code == 0 {
		return nil
	}
	return &HookExit{Code: 2}
}

// AnswerUnguarded answers the event when which guards apply cannot be
// told (err: the roots or the registry cannot be had), with the fix
// printed by fix: a block (exit 2) on an event a hook can block, a stop
// where a block would not hold, no tools on BeforeToolSelection. On any
// other event it writes nothing and returns answered false.
func (r HookRun) AnswerUnguarded(err error, fix func(string) string) (answered bool, exit error) {
	event := r.Event
	switch {
	case bundle.BlockingEvent(event) || StopsOnFailedGuard(event):
		// Exit 1 is "proceed" to a host: a guard must not fail open
		// because its bundles cannot be listed.
		o := NewOutcome(event)
		o.Host = r.Host
		o.Blocked, o.Reason = true, "bundlectl cannot tell which guards apply, so "+event+" is blocked: "+err.Error()
		o.Reason = withErrHint(o.Reason, err, fix)
		if code, _ := WriteOutcome(r.Stdout, r.Stderr, o); code == 0 {
			return true, nil // a stop (StopsOnFailedGuard), read on exit 0
		}
		return true, &HookExit{Code: 2}
	case WithholdsTools(event):
		// Gemini CLI offers every tool on any exit status here: the one
		// answer that holds is no tools.
		reason := withErrHint("bundlectl cannot tell which guards apply, so no tools are offered: "+err.Error(), err, fix)
		return true, WriteNoTools(r.Stdout, r.Stderr, event, reason)
	}
	return false, nil
}

// Refuse is the outcome of an event whose input did not parse (err,
// from ParseHookEvent): blocked, as RefuseEvent, with the help that lists
// the event names and says what the input must be (a mistyped name on the
// line, or input that is no event: a hook line the host does not run as
// a command hook, or a hand-run test).
func (r HookRun) Refuse(err error) (Outcome, error) {
	o, err := RefuseEvent(r.Event, err)
	o.Reason = WithHint(o.Reason, "bundlectl hooks run --help")
	return o, err
}

// Fire is the outcome of ev fired through reg. A hook chain nested past
// MaxHookChain gets the fix its block lacks, printed by fix.
func (r HookRun) Fire(ctx context.Context, reg *Registry, ev *HookEvent, fix func(string) string) (Outcome, error) {
	o, err := reg.FireEvent(ctx, ev)
	if h := blockHint(o, err); h != "" {
		o.Reason = WithHint(o.Reason, printFix(fix, h))
	}
	return o, err
}

// blockHint is the next step for a block that carries none of its own: a
// hook chain nested past the limit (a hook that starts bundlectl or an
// agent again: catalog lists every active hook and what it runs). A tool
// event whose input names no tool (Outcome.NoToolName) carries its own.
func blockHint(o Outcome, err error) string {
	if !o.Blocked || strings.Contains(o.Reason, "\nbundlectl: hint: ") {
		return ""
	}
	var ce *ChainError
	if errors.As(err, &ce) && ce.Depth >= MaxHookChain {
		return "bundlectl catalog"
	}
	return o.blockFix
}

// Write writes o, the outcome Fire returned with err, in the host's
// contract. An error that did not block is bundlectl's own failure: a
// *HookExit with Err set, nothing written. Under Gemini CLI a block on
// an event it lets no hook block is also said in a systemMessage, the
// only part it shows. It returns nil for exit 0, a *HookExit for another
// status, or the error writing the answer failed with.
func (r HookRun) Write(o Outcome, err error) error {
	if err != nil && !o.Blocked {
		return &HookExit{Code: 1, Err: err}
	}
	event := r.Event
	if r.Host == bundle.HostGemini && o.Blocked && !bundle.BlockingEvent(event) && !WithholdsTools(event) && !StopsOnFailedGuard(event) {
		// Gemini CLI ignores a block on the events it shares with Claude
		// Code and shows only a systemMessage: a refused chain or an
		// unreadable event must not leave the user with a bare "hook
		// failed".
		o.SystemMessages = append(o.SystemMessages, o.Reason)
	}
	o.Host = r.Host
	code, werr := WriteOutcome(r.Stdout, r.Stderr, o)
	if werr != nil && code != 2 {
		return werr
	}
	if code != 0 {
		return &HookExit{Code: code}
	}
	return nil
}

// Answer answers the event read as input (at most MaxHookEventBytes+1
// bytes): it fires every matching hook of every active bundle through a
// registry of the workspace the event's cwd chooses, and writes the
// outcome in the host's contract. It returns nil for exit 0, a *HookExit,
// or the error of Roots or Home when the event is one no guard blocks
// (the caller reports it as it reports its own).
//
// The workspace is that of the caller when it names one; else the
// registry chooses it (Options.WorkspaceFrom) from the event's cwd, or
// without one from the current directory, so a hook started in a
// subdirectory of a trusted workspace still runs that workspace's guards.
// Fixes name the chosen workspace whenever it came from the event or is
// not the current directory.
func (r HookRun) Answer(ctx func() context.Context, input []byte) error {
	cwd := ""
	if !r.WorkspaceNamed {
		cwd = eventCwd(input)
	}
	roots, err := r.Roots()
	if err != nil && cwd != "" {
		// The current directory is not needed when the event names its
		// workspace (Options.WorkspaceFrom replaces it), and it may be
		// gone or unsearchable (the agent's directory removed).
		var home string
		if home, err = r.Home(); err == nil {
			roots = bundle.Roots{Home: home}
		}
	}
	// fixIn is the workspace the fixes name, "" the caller's own: the
	// agent's shell is not in the event's workspace, so one taken from
	// the event is named in them.
	fixIn := ""
	fix := func(cmd string) string {
		if r.Fix == nil {
			return cmd
		}
		return r.Fix(cmd, fixIn)
	}
	if err != nil {
		// A guard must not fail open because the roots cannot be resolved.
		if ok, exit := r.AnswerUnguarded(err, fix); ok {
			return exit
		}
		return err
	}
	from := ""
	if !r.WorkspaceNamed {
		if cwd != "" {
			from, fixIn = cwd, cwd // the registry chooses the workspace from it
		} else {
			// No cwd in the event (a harness of one's own): the search
			// starts from the current directory as it would from the
			// event's. The fixes name a workspace only when it is not
			// this directory.
			from = roots.Workspace
		}
	}
	// The event is read while the registry loads: the two are independent,
	// and a hook call is on the agent's every step.
	type parsed struct {
		ev  *HookEvent
		err error
	}
	evc := make(chan parsed, 1)
	go func() {
		ev, err := ParseHookEvent(input, r.Event)
		evc <- parsed{ev, err}
	}()
	reg, err := Load(Options{Home: roots.Home, Workspace: roots.Workspace, WorkspaceFrom: from, NoWatch: true, HooksOnly: true, Host: r.Host, FixCommand: fix})
	if err == nil && from != "" && (fixIn != "" || reg.Workspace() != roots.Workspace) {
		fixIn = reg.Workspace()
	}
	if err != nil {
		// The guards cannot even be listed: fail closed.
		if ok, exit := r.AnswerUnguarded(err, fix); ok {
			return exit
		}
		// A harness treats exit 1 as a non-blocking error shown to the user.
		return &HookExit{Code: 1, Err: err}
	}
	defer reg.Close()
	var o Outcome
	if p := <-evc; p.err != nil {
		o, err = r.Refuse(p.err)
	} else {
		o, err = r.Fire(ctx(), reg, p.ev, fix)
	}
	if problem, f := r.checkSetup(roots.Home); problem != "" {
		o.SystemMessages = append(o.SystemMessages, WithHint("bundlectl: "+problem, fix(f)))
	}
	return r.Write(o, err)
}

// checkSetup is what SetupCheck finds on a SessionStart under a host: a
// hook line written by an older setup may leave out events the host now
// fires, and guards on those never run while the host says nothing. It is
// said at the start of every session until setup is run again: once per
// session, not on every tool call, whose hot path must not read and parse
// the host's settings.
func (r HookRun) checkSetup(home string) (problem, fix string) {
	if r.Host == "" || r.Event != "SessionStart" || r.SetupCheck == nil {
		return "", ""
	}
	return r.SetupCheck(home, r.Host, os.Environ())
}

// eventCwd returns the event's "cwd" as an absolute path (a relative one
// is taken from the current directory), or "" when there is none.
func eventCwd(input []byte) string {
	var ev struct {
		Cwd string `json:"cwd"`
	}
	// By its exact name, as the host and the hook read it: a "CWD" is
	// no cwd, and must not choose another workspace's guards.
	if jsonobj.UnmarshalExact(input, &ev) != nil || ev.Cwd == "" || strings.IndexByte(ev.Cwd, 0) >= 0 {
		return "" // a NUL: the event is refused as malformed (ParseHookEvent)
	}
	abs, err := filepath.Abs(ev.Cwd)
	if err != nil {
		return ""
	}
	return abs
}
