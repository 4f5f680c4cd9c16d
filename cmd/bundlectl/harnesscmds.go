package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/spf13/cobra"
)

// registry loads the harness registry the CLI adapters use; only, when
// given, restricts it to those bundles.
func (g *globals) registry(only ...string) (*harness.Registry, error) {
	r, err := g.roots()
	if err != nil {
		return nil, err
	}
	// The CLI adapters are one-shot: no change notification (see NoWatch).
	return harness.Load(harness.Options{Home: r.Home, Workspace: r.Workspace, Only: only, NoWatch: true, FixCommand: g.hint})
}

func newCatalogCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "catalog",
		Short: "what a harness would load now: skills, commands, agents, tools, hooks, MCP servers",
		Long: `Catalog loads the harness registry exactly as an embedding harness would
and lists what it exposes, plus every bundle it did not load and why,
and every loaded bundle whose source changed since it was trusted
("update pending review": the reviewed snapshot listed keeps running until
the update is reviewed; the sources are checked by fingerprint, as list does).
Each hook is listed with its event, its matcher, what it runs in the form
it was reviewed (its argv; shell "…" for a shell line; its URL), its id,
and "switched off" when disable --hook turned it off.` + exitStatus(exit0, exit1, exit2, exit4),
		Args: args(noArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			reg, err := g.registry()
			if err != nil {
				return err
			}
			defer reg.Close()
			cat := reg.Catalog()
			// The library's fixes are bare (harness.Options.FixCommand):
			// they are printed with this invocation's --home and
			// --workspace, to work when pasted anywhere.
			for i := range cat.Inactive {
				if cat.Inactive[i].Fix != "" {
					cat.Inactive[i].Fix = g.hint(cat.Inactive[i].Fix)
				}
			}
			for i := range cat.Refused {
				if cat.Refused[i].Fix != "" {
					cat.Refused[i].Fix = g.hint(cat.Refused[i].Fix)
				}
			}
			out := catalogOutput{Catalog: cat, UpdatesPending: g.updatesPending(reg.Bundles())}
			if g.json {
				return writeJSON(g.stdout, out)
			}
			printCatalog(g.stdout, out)
			return nil
		},
	}
}

// catalogOutput is the catalogue with the loaded bundles whose source
// changed since they were trusted: what runs is still the reviewed
// snapshot, and the catalogue says an update awaits review, as list does.
type catalogOutput struct {
	harness.Catalog
	UpdatesPending []lifecycle.PendingUpdate `json:"updates_pending"`
}

// updatesPending is lifecycle's UpdatesPending for the loaded bundles,
// each fix as this invocation prints it. The registry itself never reads
// a source: this is the command's, not the runtime's, and a failure to
// look only says so.
func (g *globals) updatesPending(loaded []harness.ActiveBundle) []lifecycle.PendingUpdate {
	if len(loaded) == 0 {
		return []lifecycle.PendingUpdate{}
	}
	ids := make([]string, len(loaded))
	for i, b := range loaded {
		ids[i] = b.ID
	}
	m, err := g.manager()
	var out []lifecycle.PendingUpdate
	if err == nil {
		out, err = m.UpdatesPending(ids)
	}
	if err != nil {
		fmt.Fprintf(g.stderr, "bundlectl: cannot tell whether an update is pending review: %s\nbundlectl: hint: %s\n", bundle.Sanitize(err.Error()), g.hint("bundlectl list"))
		return []lifecycle.PendingUpdate{}
	}
	for i := range out {
		out[i].Hint = g.hint(out[i].Hint)
	}
	return out
}

func printCatalog(w io.Writer, out catalogOutput) {
	c := out.Catalog
	q := bundle.Quote
	section := func(title string, n int) bool {
		fmt.Fprintf(w, "%s (%d)\n", title, n)
		return n > 0
	}
	if section("skills", len(c.Skills)) {
		for _, s := range c.Skills {
			fmt.Fprintf(w, "  %s  %s\n", q(s.Name), bundle.Sanitize(s.Description))
		}
	}
	if section("commands", len(c.Commands)) {
		for _, s := range c.Commands {
			fmt.Fprintf(w, "  %s  %s\n", q(s.Name), bundle.Sanitize(s.Description))
		}
	}
	if section("agents", len(c.Agents)) {
		for _, s := range c.Agents {
			fmt.Fprintf(w, "  %s  %s\n", q(s.Name), bundle.Sanitize(s.Description))
		}
	}
	if section("tools", len(c.Tools)) {
		for _, t := range c.Tools {
			fmt.Fprintf(w, "  %s  %s\n", q(t.Name), bundle.Sanitize(t.Description))
		}
	}
	if section("hooks", len(c.Hooks)) {
		for _, h := range c.Hooks {
			// What the hook runs, in the form it was reviewed: a shell
			// line or a URL is not an argv, and an empty one would read
			// as a hook that runs nothing.
			runs := q(strings.Join(h.Argv, " "))
			switch {
			case h.Shell != "":
				runs = "shell " + q(h.Shell)
			case h.URL != "":
				runs = h.Type + " " + q(h.URL)
			case len(h.Argv) == 0:
				runs = h.Type
			}
			off := ""
			if h.Off {
				off = ", switched off"
			}
			fmt.Fprintf(w, "  %s %s matcher %s  (%s)  [hook %s%s]\n", h.Bundle, h.Event, q(h.Matcher), runs, h.ID, off)
		}
	}
	if section("mcp servers", len(c.MCP)) {
		for _, s := range c.MCP {
			if s.URL != "" {
				fmt.Fprintf(w, "  %s  %s %s\n", q(s.Name), s.Transport, q(s.URL))
			} else {
				argv, _ := json.Marshal(s.Argv)
				fmt.Fprintf(w, "  %s  %s %s\n", q(s.Name), s.Transport, bundle.Sanitize(string(argv)))
			}
		}
	}
	if len(out.UpdatesPending) > 0 {
		fmt.Fprintf(w, "update pending review (%d)\n", len(out.UpdatesPending))
		for _, u := range out.UpdatesPending {
			reason := ""
			if len(u.Reasons) > 0 {
				reason = ": " + bundle.Sanitize(strings.TrimPrefix(u.Reasons[0], "update pending review: "))
			}
			fmt.Fprintf(w, "  %s  update pending review%s\n", q(u.Name), reason)
			fmt.Fprintf(w, "    hint: %s\n", bundle.Sanitize(u.Hint))
		}
	}
	if len(c.Inactive) > 0 {
		fmt.Fprintf(w, "not loaded (%d)\n", len(c.Inactive))
		for _, i := range c.Inactive {
			reason := ""
			if len(i.Reasons) > 0 {
				reason = ": " + bundle.Sanitize(i.Reasons[0])
			}
			fmt.Fprintf(w, "  %s  %s%s\n", q(i.Name), i.Status, reason)
			// The fix on a line of its own, as every hint: it runs as
			// printed, whatever its paths hold.
			if i.Fix != "" {
				fmt.Fprintf(w, "    hint: %s\n", bundle.Sanitize(i.Fix))
			}
		}
	}
	for _, r := range c.Refused {
		fmt.Fprintf(w, "refused %s: %s\n", q(r.Bundle), bundle.Sanitize(r.Reason))
		if r.Fix != "" {
			fmt.Fprintf(w, "  hint: %s\n", bundle.Sanitize(r.Fix))
		}
	}
	fmt.Fprintf(w, "children are contained by: %s\n", c.Containment)
}

type runOutput struct {
	ExitCode        int    `json:"exit_code"`
	Stdout          string `json:"stdout"`
	Stderr          string `json:"stderr"`
	StdoutTruncated bool   `json:"stdout_truncated"`
	StderrTruncated bool   `json:"stderr_truncated"`
	TimedOut        bool   `json:"timed_out"`
}

func newRunCmd(g *globals) *cobra.Command {
	var input string
	c := &cobra.Command{
		Use:   "run <name> <tool> [--input JSON|-]",
		Short: "call one tool of an active bundle through the harness",
		Long: `Run calls a tool of an active bundle exactly as a harness would: the input
(default {}) is validated against the tool's params schema, the bundle's
authority and snapshot are re-checked, and the tool runs from the snapshot
with the input as JSON on stdin. The tool's stdout is printed; --json prints
exit_code, stdout, stderr, truncation and timed_out. At most 1 MiB of each
stream is kept: without --json, output cut there is an error (exit 1), since
what was printed is not all the tool wrote.` +
			exitStatus("0  the tool exited 0", "1  the tool failed, timed out, or its input was rejected; or, without --json, its output was cut at 1 MiB; or the bundle has no such tool, or no bundle has that name", exit2, exit3, exit4, exitSignal),
		Args: args(cobra.ExactArgs(2)),
		RunE: func(c *cobra.Command, a []string) error { return runRun(g, a[0], a[1], input) },
	}
	c.Flags().StringVar(&input, "input", "{}", "tool input as JSON, or - to read it from stdin")
	return c
}

func runRun(g *globals, name, tool, input string) error {
	sealInheritedFiles()
	data := []byte(input)
	if input == "-" {
		var err error
		if data, err = io.ReadAll(io.LimitReader(g.stdin, 16<<20)); err != nil {
			return err
		}
	}
	ctx := startContext()
	reg, err := g.registry(name)
	if err != nil {
		return err
	}
	defer reg.Close()
	if err := reg.Loaded(name); err != nil {
		return err
	}
	res, err := reg.CallTool(ctx(), harness.ToolName(name, tool), data)
	// A Ctrl-C stopped the tool (its whole process group, see CallTool):
	// that, not the SIGKILL that did it, is what happened.
	stopped := func() error {
		return interruptedBy(ctx(), fmt.Errorf("tool %q was stopped with its process group: %w", tool, context.Cause(ctx())))
	}
	if res == nil {
		if ctx().Err() != nil {
			return stopped()
		}
		if errors.Is(err, harness.ErrInput) {
			// The schema the input must meet is the snapshot's, which
			// catalog --json lists as the tool's input_schema.
			return &codeError{code: exitFailure, err: err, hint: "bundlectl catalog --json"}
		}
		return err
	}
	if g.json {
		if werr := writeJSON(g.stdout, runOutput{res.ExitCode, string(res.Stdout), string(res.Stderr), res.StdoutTruncated, res.StderrTruncated, res.TimedOut}); werr != nil {
			return werr
		}
	} else {
		g.stdout.Write(res.Stdout)
		g.stderr.Write(res.Stderr)
	}
	if ctx().Err() != nil && !res.Success() {
		return stopped()
	}
	if err != nil {
		return err
	}
	if !res.Success() {
		return &codeError{code: exitFailure, err: fmt.Errorf("tool %q %s", tool, describeFailure(res))}
	}
	if !g.json && (res.StdoutTruncated || res.StderrTruncated) {
		// Text mode has no field to say so: what was printed is not all
		// the tool wrote, and a caller must not take it for the whole.
		return &codeError{code: exitFailure, err: fmt.Errorf("tool %q succeeded, but its %s was cut at %d bytes (bundlectl keeps at most that much of each stream), so what was printed is not all it wrote; --json prints the same with stdout_truncated and stderr_truncated set", tool, truncatedStreams(res), harness.DefaultMaxOutput)}
	}
	return nil
}

// truncatedStreams names the streams of res that were cut.
func truncatedStreams(res *harness.Result) string {
	switch {
	case res.StdoutTruncated && res.StderrTruncated:
		return "stdout and stderr"
	case res.StdoutTruncated:
		return "stdout"
	}
	return "stderr"
}

func describeFailure(res *harness.Result) string {
	switch {
	case res.TimedOut:
		return fmt.Sprintf("timed out after %s and was killed with its process group", res.Timeout)
	case res.ExitCode < 0 && res.Signal != 0:
		return fmt.Sprintf("was killed by signal %d (%s)", int(res.Signal), res.Signal)
	case res.ExitCode < 0:
		return "ended without an exit status bundlectl could read"
	}
	return fmt.Sprintf("exited with status %d", res.ExitCode)
}

// stdioOf passes bundlectl's own stdio to a served child.
func stdioOf(g *globals) harness.Stdio {
	stdio := harness.Stdio{}
	if f, ok := g.stdin.(*os.File); ok {
		stdio.In = f
	}
	if f, ok := g.stdout.(*os.File); ok {
		stdio.Out = f
	}
	if f, ok := g.stderr.(*os.File); ok {
		stdio.Err = f
	}
	return stdio
}

func newLSPCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "lsp <name> <server>",
		Short: "run one language server of an active bundle, stdio passed through",
		Long: `Lsp checks the bundle's authority and snapshot, then runs the language
server from the snapshot with stdin and stdout passed straight through (a
language server has no tool filter), so it can be the command of a host's
LSP configuration:

    {"command": "bundlectl", "args": ["lsp", "<bundle>", "<server>"]}

The server is killed with every descendant if the bundle is disabled,
revoked or tampered with while it runs.` + exitStatus("0  the server exited 0", "1  the server failed, or the bundle has no such server, or no bundle has that name", exit2, exit3, exit4),
		Args: args(cobra.ExactArgs(2)),
		RunE: func(c *cobra.Command, a []string) error {
			return serveServer(g, "lsp", a[0], a[1], (*harness.Registry).ServeLSP)
		},
	}
}

func newMCPCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp <name> <server>",
		Short: "run one stdio MCP server of an active bundle, stdio passed through",
		Long: `Mcp checks the bundle's authority and snapshot, then runs the stdio MCP
server from the snapshot with stdin and stdout passed through, so it can be
the command of an existing harness's MCP entry:

    {"command": "bundlectl", "args": ["mcp", "<bundle>", "<server>"]}

The tool filter the review showed (include/exclude) is enforced between the
client and the server: a filtered tool is not listed and a call to it is
answered with an error without reaching the server. So is the server's
reviewed per-call timeout: a tool call not answered in time is answered
with an error, and only a reply of the strict shape
{"jsonrpc":"2.0","id":…,"result"|"error":…} with no other member, all
every host reads as an answer, ends a call (another is dropped with a
notice); at most 4096 calls are timed at once. With a filter or a
timeout, stdio goes through a line proxy whose limits are these: each
message is one line of at most 16 MiB (16777216 bytes), nested at most
10000 levels deep; of a batch the ids of the first 4096 messages are
read, at most 16 MiB of them together. A line past a limit is not
relayed: whoever waits for an answer to a message in it gets an error
under its id instead (a request of the client's or the server's, a reply
the client's call awaits), and the rest of the line is dropped with a
notice on stderr, as is a server line that is not one JSON message. A
message there whose id was not read (past those 4096, or those 16 MiB)
gets no error, and a notice says how many. A client line the proxy
refuses with no id it can read (not UTF-8 JSON, an id null) gets no
error either, only a notice: an error under id null answers no request.
A raw "\r", U+0085, U+2028 or U+2029 is rewritten so that no line
reader splits a message (docs/harness.md).
Without either the bytes pass unchanged. SIGINT, SIGTERM, SIGHUP and
SIGQUIT are passed on to the server, which is killed 5 s later if it is
still running. The server is killed with every
descendant if the bundle is disabled, revoked or tampered with while it
runs.` + exitStatus("0  the server exited 0", "1  the server failed, or the bundle has no such server, or no bundle has that name", exit2, exit3, exit4),
		Args: args(cobra.ExactArgs(2)),
		RunE: func(c *cobra.Command, a []string) error {
			return serveServer(g, "mcp", a[0], a[1], (*harness.Registry).ServeMCP)
		},
	}
}

// serveServer runs one stdio server of an active bundle (mcp or lsp) with
// stdio passed through, and exits 1 when the server failed.
func serveServer(g *globals, kind, name, server string, serve func(*harness.Registry, context.Context, string, harness.Stdio) (*harness.Result, error)) error {
	sealInheritedFiles()
	reg, err := g.registry(name)
	if err != nil {
		return err
	}
	defer reg.Close()
	if err := reg.Loaded(name); err != nil {
		return err
	}
	// Not cmdContext: a SIGINT or SIGTERM cancelling the context would
	// SIGKILL the server at once. Exec relays those signals to the server
	// itself and kills it only SignalGrace later, so it can shut down.
	res, err := serve(reg, context.Background(), harness.ServerName(name, server), stdioOf(g))
	var se *harness.StartError
	if errors.As(err, &se) {
		// Say whose server could not start: the command alone names
		// no bundle. Where the namespace limit refused the start, the
		// hint lists the namespaces that hold it: the bundle is not
		// what is wrong.
		hint := se.Hint()
		if hint == "" {
			hint = "bundlectl show " + bundle.ShellArg(name)
		}
		return &codeError{code: exitFailure, err: fmt.Errorf("bundle %s: %s server %s: %w", bundle.Quote(name), strings.ToUpper(kind), bundle.Quote(server), err),
			hint: hint}
	}
	if err != nil {
		return err
	}
	if !res.Success() {
		return &codeError{code: exitFailure, err: fmt.Errorf("bundle %s: %s server %s %s", bundle.Quote(name), strings.ToUpper(kind), bundle.Quote(server), describeFailure(res)),
			hint: "bundlectl show " + bundle.ShellArg(name)}
	}
	return nil
}
