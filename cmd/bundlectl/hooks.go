package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
	"github.com/bundlectl/bundlectl/hosts"
	"github.com/spf13/cobra"
)

func newHooksCmd(g *globals) *cobra.Command {
	hooks := &cobra.Command{
		Use:                        "hooks",
		Short:                      "fire bundle hooks for an existing harness",
		SuggestionsMinimumDistance: 2,
		// Runnable, so that a mistyped subcommand is a usage error (exit
		// 2, which a host's hook treats as a block) rather than this help
		// and exit 0, which it would take as "proceed".
		RunE: func(c *cobra.Command, a []string) error {
			if len(a) == 0 {
				// Also a usage error: a hook line missing its subcommand
				// must block, not print help and proceed.
				return &usageError{errors.New(c.CommandPath() + " needs a subcommand: run or exec"), helpOf(c)}
			}
			msg := fmt.Sprintf("unknown command %s for %q", bundle.Quote(a[0]), c.CommandPath())
			if s := c.SuggestionsFor(a[0]); len(s) > 0 {
				msg += "; did you mean " + strings.Join(s, " or ") + "?"
			}
			return &usageError{errors.New(msg), helpOf(c)}
		},
	}
	var host, execHost, execEvent string
	run := &cobra.Command{
		Use:   "run <Event>",
		Short: "fire every matching active hook for one event read on stdin",
		Long: `Hooks run reads one hook input object on stdin, fires every matching hook
of every active bundle in precedence order (serially, stopping at the first
block; each bundle re-checked before its hook runs, and each hook run from
the bundle's reviewed snapshot), and writes the combined outcome in the
hook contract of the host that reads it, reading each hook's answer as that
host reads it:

  default, --host claude  Claude Code's contract (bundlectl's own); exit 2
                          on an event Claude Code lets no hook block
                          (SessionStart, SessionEnd, Notification, ...) is
                          a failed hook, and the other hooks still run
  --host codex            the same shape; exit 2 on an event Codex lets no
                          hook block is a failed hook
  --host gemini           Gemini CLI's: any exit status's stdout (or
                          stderr) is the answer; decision "deny", "allow"
                          and, on BeforeTool, "ask"; tool_input, toolConfig,
                          llm_request and llm_response are relayed. On the
                          events Gemini CLI shares with Claude Code
                          (SessionStart, SessionEnd, Notification,
                          PreCompress) nothing blocks or stops: every hook
                          runs, SessionStart's context and every
                          systemMessage are kept, and a block is ignored
                          with a systemMessage saying so. On
                          BeforeToolSelection nothing blocks either: the
                          tool configurations merge, and a guard that
                          cannot run offers no tools. On BeforeModel and
                          AfterModel a block does not end the chain, and a
                          guard of AfterModel that cannot run stops the
                          agent ("continue": false), as a block there would
                          still let the judged answer through.

One line in an existing harness's hook configuration puts every reviewed
hook behind its receipt:

    {"type": "command", "command": "bundlectl hooks run PreToolUse"}

The workspace is the nearest ancestor of the event's "cwd" (or, without
one, of the current directory; itself included) that holds a bundle you trusted and enabled, else the nearest that
holds a .bundlectl directory (--workspace overrides it). A guard never fails open:
for an event a hook can block (PreToolUse, PermissionRequest,
UserPromptSubmit, Stop, BeforeTool, ...), a bundle whose hooks cannot run
(its snapshot fails its check, its receipt or the state file is unusable)
blocks the event, naming the bundle and the fix. Every bundle that did not
run its hooks for any other reason is named in the systemMessage.

The event names are those of Claude Code, Codex and Gemini CLI (for
example SessionStart, UserPromptSubmit, PreToolUse, PermissionRequest,
PostToolUse, Stop, BeforeTool, AfterTool).` + exitStatus(
			"0  proceed (stdout may carry a JSON outcome)",
			"1  bundlectl itself failed on an event no hook can block (reported, non-blocking, as the hook convention has it)",
			"2  block: stderr is the reason"),
		Args: args(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, a []string) error { return runHooks(g, a[0], host) },
	}
	run.Flags().StringVar(&host, "host", "", "fire only bundlectl's own hooks and those this host's manifest declares (claude, codex, gemini; default all)")
	exec := &cobra.Command{
		Use:   "exec <name> <hook-id>",
		Short: "run one reviewed hook of an active bundle from its snapshot, as a host runs the original",
		Long: `Hooks exec is what a host view (bundlectl exec) puts in place of each
command or http hook of a bundle: it re-checks the bundle's authority and
its snapshot, then runs exactly that reviewed hook from the snapshot with
the event on stdin, and passes its stdout, stderr and exit status through
unchanged. The hook id is the one review and show print.

If the bundle can no longer run the hook, an event a hook can block is
blocked (exit 2, the reason on stderr, naming the bundle and the fix);
Gemini CLI's BeforeToolSelection is answered with no tools offered, and its
AfterModel and Codex's PreCompact (where Codex takes exit 2 as a failed hook)
with "continue": false (exit 0, the reason in systemMessage);
for any other event, or when the user disabled, revoked or switched it off,
it exits 0 and says why in a systemMessage.

The event is the one the input on stdin names (hook_event_name). The lines
a view writes also carry it as --event (the host's name of the event), which
decides the answer when the input cannot tell it (it cannot be read, is not
JSON or names no event). When the input names another event than --event,
the hook does not run: the answer fails closed for the event the input
names, and stderr says why.` + exitStatus(
			"0, 2, …  the hook's own exit status",
			"2  blocked: the hook cannot run for an event it guards",
			"1  bundlectl itself failed on an event no hook can block"),
		Args: args(cobra.ExactArgs(2)),
		RunE: func(c *cobra.Command, a []string) error { return runHookExec(g, a[0], a[1], execHost, execEvent) },
	}
	exec.Flags().StringVar(&execHost, "host", "", "the host the view is for (claude, codex, gemini): a shell-form hook runs under that host's shell when it declares the hook")
	exec.Flags().StringVar(&execEvent, "event", "", "the host's name of the event the hook line is wired to: the answer when the hook cannot run follows it if the input does not name the event")
	hooks.AddCommand(run, exec)
	return hooks
}

func runHookExec(g *globals, name, id, host, lineEvent string) error {
	sealInheritedFiles()
	input, readErr := io.ReadAll(io.LimitReader(g.stdin, harness.MaxHookEventBytes+1))
	switch host {
	case "", "claude", "codex", "gemini":
	default:
		// A usage error (exit 2: a block), as for hooks run.
		return &usageError{errors.New("--host must be claude, codex or gemini"), "bundlectl hooks exec --help"}
	}
	if lineEvent != "" && !harness.LineEventName(lineEvent) {
		return &usageError{fmt.Errorf("--event %s is not an event name", bundle.Quote(lineEvent)), "bundlectl hooks exec --help"}
	}
	ctx := startContext()
	load := func() (*harness.Registry, error) {
		r, err := g.roots()
		if err != nil {
			return nil, err
		}
		return harness.Load(harness.Options{Home: r.Home, Workspace: r.Workspace, Only: []string{name}, NoWatch: true, FixCommand: g.hint, Host: bundle.Host(host)})
	}
	line := harness.HookLine{Bundle: name, Hook: id, Host: bundle.Host(host), Event: lineEvent, Input: input, ReadErr: readErr, Fix: g.hint}
	return hookExit(harness.ExecHookLine(ctx, load, line, g.stdout, g.stderr))
}

// hookExit is the error the command ends with for a hook command's
// harness.HookExit: its answer is written, or bundlectl's own failure is
// reported with its hint.
func hookExit(err error) error {
	var he *harness.HookExit
	switch {
	case !errors.As(err, &he):
		return err
	case he.Err != nil:
		return &codeError{code: he.Code, err: he.Err, hint: he.Hint}
	}
	return &quietError{code: he.Code}
}

func runHooks(g *globals, event, host string) error {
	sealInheritedFiles()
	input, err := io.ReadAll(io.LimitReader(g.stdin, harness.MaxHookEventBytes+1))
	if err != nil {
		// An event that cannot be read cannot be judged: fail closed,
		// as for one that does not parse, in the form the host honours
		// (a stop on Codex's PreCompact and Gemini CLI's AfterModel, no
		// tools on BeforeToolSelection: exit 0, which it reads).
		o, _ := harness.RefuseEvent(event, &harness.HookEventError{Problem: "cannot read the input on stdin: " + err.Error()})
		switch host {
		case "claude", "codex", "gemini":
			o.Host = bundle.Host(host)
		}
		if code, _ := harness.WriteOutcome(g.stdout, g.stderr, o); code == 0 {
			return nil
		}
		return &quietError{code: 2}
	}
	switch host {
	case "", "claude", "codex", "gemini":
	default:
		return &usageError{errors.New("--host must be claude, codex or gemini"), "bundlectl hooks run --help"}
	}
	// A hook line that names another host's event is mis-wired: no hook
	// of bundlectl's own would fire for it, so every guard would pass.
	// It is a usage error (exit 2: a block) that names the fix.
	if harness.ValidHookEvent(event) {
		h := bundle.Host(host)
		switch {
		case host != "" && !bundle.KnownHookEvent(h, event):
			return &usageError{fmt.Errorf("%s is not an event %s fires, so no guard would run for it: a hook line with --host %s names that host's own events", bundle.Quote(event), bundle.HostTitle(h), host), "bundlectl hooks run --help"}
		case host == "" && !bundle.KnownHookEvent("", event) && !bundle.KnownHookEvent(bundle.HostCodex, event):
			return &usageError{fmt.Errorf("%s is a Gemini CLI event, for which bundlectl's own hooks fire only under --host gemini", bundle.Quote(event)), "bundlectl hooks run --host gemini " + event}
		}
	}
	r, err := g.roots()
	if err != nil && g.workspace == "" && eventCwd(input) != "" {
		// The current directory is not needed when the event names its
		// workspace (harness.Options.WorkspaceFrom replaces it), and it
		// may be gone or unsearchable (the agent's directory removed).
		var home string
		if home, err = g.homeDir(); err == nil {
			r = bundle.Roots{Home: home}
		}
	}
	if err != nil {
		if bundle.BlockingEvent(event) || harness.StopsOnFailedGuard(event) {
			// Exit 1 is "proceed" to a host: a guard must not fail open
			// because the roots cannot be resolved.
			return blockUnguarded(g, g, host, event, err)
		}
		if harness.WithholdsTools(event) {
			// Gemini CLI offers every tool on any exit status here: the
			// one answer that holds is no tools, as when the registry
			// cannot load.
			return writeNoTools(g, event, withErrHint("bundlectl cannot tell which guards apply, so no tools are offered: "+err.Error(), err, g))
		}
		return err
	}
	// hg prints fix commands: the agent's shell is not in the event's
	// workspace, so a workspace taken from the event is named in them.
	hg := g
	from := ""
	if g.workspace == "" {
		if cwd := eventCwd(input); cwd != "" {
			from = cwd // the registry chooses the workspace from it
			c := *g
			c.workspace = cwd
			if c.home != "" {
				c.home = r.Home // absolute: the fix is pasted elsewhere
			}
			hg = &c
		} else {
			// No cwd in the event (a harness of one's own): the search
			// starts from the current directory as it would from the
			// event's, so a hook started in a subdirectory of a trusted
			// workspace still runs that workspace's guards. The fixes
			// name a workspace only when it is not this directory.
			from = r.Workspace
		}
	}
	// The event is read while the registry loads: the two are independent,
	// and a hook call is on the agent's every step.
	type parsed struct {
		ev  *harness.HookEvent
		err error
	}
	evc := make(chan parsed, 1)
	go func() {
		ev, err := harness.ParseHookEvent(input, event)
		evc <- parsed{ev, err}
	}()
	ctx := startContext()
	reg, err := harness.Load(harness.Options{Home: r.Home, Workspace: r.Workspace, WorkspaceFrom: from, NoWatch: true, HooksOnly: true, Host: bundle.Host(host),
		FixCommand: func(cmd string) string { return hg.hint(cmd) }})
	if err == nil && from != "" && (hg != g || reg.Workspace() != r.Workspace) {
		if hg == g {
			c := *g
			if c.home != "" {
				c.home = r.Home
			}
			hg = &c
		}
		hg.workspace = reg.Workspace()
	}
	if err != nil {
		if bundle.BlockingEvent(event) || harness.StopsOnFailedGuard(event) {
			// The guards cannot even be listed: fail closed.
			return blockUnguarded(g, hg, host, event, err)
		}
		if harness.WithholdsTools(event) {
			reason := "bundlectl cannot tell which guards apply, so no tools are offered: " + err.Error()
			reason = withErrHint(reason, err, hg)
			return writeNoTools(g, event, reason)
		}
		// A harness treats exit 1 as a non-blocking error shown to the user.
		return &codeError{code: exitFailure, err: err}
	}
	defer reg.Close()
	var o harness.Outcome
	if p := <-evc; p.err != nil {
		o, err = harness.RefuseEvent(event, p.err)
		if !harness.ValidHookEvent(event) {
			// A mistyped event on a hook line: the help lists the names.
			o.Reason = harness.WithHint(o.Reason, "bundlectl hooks run --help")
		}
	} else {
		o, err = reg.FireEvent(ctx(), p.ev)
		if h := blockHint(o, err); h != "" {
			o.Reason = harness.WithHint(o.Reason, hg.hint(h))
		}
	}
	if host != "" && event == "SessionStart" {
		// A hook line written by an older setup may leave out events
		// the host now fires: guards on those never run, and the host
		// says nothing. Say it at the start of every session until setup
		// is run again: once per session, not on every tool call, whose
		// hot path must not read and parse the host's settings.
		if h, ok := hosts.Lookup(host); ok {
			if st, _ := hosts.CheckSetup(r.Home, h, os.Environ()); st != nil {
				o.SystemMessages = append(o.SystemMessages, harness.WithHint("bundlectl: "+st.Message(), hg.hint(st.Fix())))
			}
		}
	}
	if err != nil && !o.Blocked {
		return &codeError{code: exitFailure, err: err}
	}
	if host == "gemini" && o.Blocked && !bundle.BlockingEvent(event) && !harness.WithholdsTools(event) && !harness.StopsOnFailedGuard(event) {
		// Gemini CLI ignores a block on the events it shares with Claude
		// Code and shows only a systemMessage: a refused chain or an
		// unreadable event must not leave the user with a bare "hook
		// failed".
		o.SystemMessages = append(o.SystemMessages, o.Reason)
	}
	o.Host = bundle.Host(host)
	code, werr := harness.WriteOutcome(g.stdout, g.stderr, o)
	if werr != nil && code != 2 {
		return werr
	}
	if code != 0 {
		return &quietError{code: code}
	}
	return nil
}

// blockHint is the next step for a block that carries none of its own: a
// hook chain nested past the limit (a hook that starts bundlectl or an
// agent again: catalog lists every active hook and what it runs). A tool
// event whose input names no tool (Outcome.NoToolName) carries its own,
// from the harness.
func blockHint(o harness.Outcome, err error) string {
	if !o.Blocked || strings.Contains(o.Reason, "\nbundlectl: hint: ") {
		return ""
	}
	var ce *harness.ChainError
	if errors.As(err, &ce) && ce.Depth >= harness.MaxHookChain {
		return "bundlectl catalog"
	}
	return ""
}

// blockUnguarded blocks event, one a hook can block, because which guards
// apply cannot be told (err): exit 2 with the reason, and the fix as hg
// prints it.
func blockUnguarded(g, hg *globals, host, event string, err error) error {
	o := harness.NewOutcome(event)
	o.Host = bundle.Host(host)
	o.Blocked, o.Reason = true, "bundlectl cannot tell which guards apply, so "+event+" is blocked: "+err.Error()
	o.Reason = withErrHint(o.Reason, err, hg)
	if code, _ := harness.WriteOutcome(g.stdout, g.stderr, o); code == 0 {
		return nil // a stop (harness.StopsOnFailedGuard), read on exit 0
	}
	return &quietError{code: 2}
}

// writeNoTools answers event, one no answer can block
// (harness.WithholdsTools), with a tool configuration that offers no
// tools, and reason in the systemMessage: exit 0, which the host reads.
func writeNoTools(g *globals, event, reason string) error {
	return hookExit(harness.WriteNoTools(g.stdout, g.stderr, event, reason))
}

// withErrHint is reason with err's hint on a line of its own
// (harness.WithHint) as g prints it.
func withErrHint(reason string, err error, g *globals) string {
	h := harness.HintOf(err)
	if h == "" {
		return reason
	}
	return harness.WithHint(reason, g.hint(h))
}

// eventCwd returns the event's "cwd" as an absolute path (a relative one
// is taken from the current directory), or "" when there is none.
func eventCwd(input []byte) string {
	var ev struct {
		Cwd string `json:"cwd"`
	}
	if json.Unmarshal(input, &ev) != nil || ev.Cwd == "" || strings.IndexByte(ev.Cwd, 0) >= 0 {
		return "" // a NUL: the event is refused as malformed (harness.ParseHookEvent)
	}
	abs, err := filepath.Abs(ev.Cwd)
	if err != nil {
		return ""
	}
	return abs
}
