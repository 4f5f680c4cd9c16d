package main

import (
	"errors"
	"fmt"
	"io"
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
holds a .bundlectl directory you own (--workspace overrides it). A guard never fails open:
for an event a hook can block (PreToolUse, PermissionRequest,
UserPromptSubmit, Stop, BeforeTool, ...), a bundle whose hooks cannot run
(its snapshot fails its check, its receipt or the state file is unusable)
blocks the event, naming the bundle and the fix. Every bundle that did not
run its hooks for any other reason is named in the systemMessage.

Every event name it takes: Claude Code's, then those only Codex or Gemini
CLI uses:

` + eventList(bundle.AllHookEvents()) + exitStatus(
			"0  proceed (stdout may carry a JSON outcome)",
			"1  bundlectl itself failed on an event no hook can block (reported, non-blocking, as the hook convention has it)",
			"2  block: stderr is the reason (also a usage error: a mis-wired hook line must not fail open)"),
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
			"2  blocked: the hook cannot run for an event it guards (also a usage error)",
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
		hint := he.Hint
		if hint == "" {
			// bundlectl's own failure (exit 1) carries the fix of its
			// cause, as the same failure under any other command does.
			hint = harness.HintOf(he.Err)
		}
		return &codeError{code: he.Code, err: he.Err, hint: hint}
	}
	return &quietError{code: he.Code}
}

func runHooks(g *globals, event, host string) error {
	sealInheritedFiles()
	hr := harness.HookRun{Event: event, Host: bundle.Host(host), Stdout: g.stdout, Stderr: g.stderr,
		Roots: g.roots, Home: g.homeDir, WorkspaceNamed: g.workspace != "", Fix: g.hintIn, SetupCheck: hosts.SetupStale}
	input, err := io.ReadAll(io.LimitReader(g.stdin, harness.MaxHookEventBytes+1))
	if err != nil {
		return hookExit(hr.RefuseUnread(err))
	}
	switch host {
	case "", "claude", "codex", "gemini":
	default:
		return &usageError{errors.New("--host must be claude, codex or gemini"), "bundlectl hooks run --help"}
	}
	// A hook line that names another host's event is mis-wired: it is
	// a usage error (exit 2: a block) that names the fix.
	if err := hr.CheckLine(); err != nil {
		return &usageError{err, harness.HintOf(err)}
	}
	return hookExit(hr.Answer(startContext(), input))
}

// hintIn is hint for a fix that names workspace, when not "" (with the
// home made absolute: the fix is pasted elsewhere).
func (g *globals) hintIn(cmd, workspace string) string {
	if workspace == "" {
		return g.hint(cmd)
	}
	c := *g
	c.workspace = workspace
	if c.home != "" {
		if home, err := g.homeDir(); err == nil {
			c.home = home
		}
	}
	return c.hint(cmd)
}

// eventList lays names out as an indented paragraph of lines of at most
// 76 columns, so that hooks run --help, the hint of an unknown event
// name, lists every name it accepts.
func eventList(names []string) string {
	var b strings.Builder
	line := 0
	for i, n := range names {
		switch {
		case i == 0:
			b.WriteString("  ")
			line = 2
		case line+2+len(n) > 76:
			b.WriteString(",\n  ")
			line = 2
		default:
			b.WriteString(", ")
			line += 2
		}
		b.WriteString(n)
		line += len(n)
	}
	return b.String()
}
