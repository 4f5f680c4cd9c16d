package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/hosts"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/spf13/cobra"
)

// listEntry is one bundle in `list --json`; its field names are stable.
type listEntry struct {
	Name    string `json:"name"`
	ID      string `json:"id"`
	Scope   string `json:"scope"`
	Path    string `json:"path"`
	Version string `json:"version"`
	Status  string `json:"status"`
	Valid   bool   `json:"valid"`
	Trusted bool   `json:"trusted"`
	Enabled bool   `json:"enabled"`
	Active  bool   `json:"active"`
	// UpdatePending: the source changed since it was trusted; the reviewed
	// snapshot keeps running until the update is reviewed and trusted.
	UpdatePending bool     `json:"update_pending"`
	Reasons       []string `json:"reasons"`
	// Hint is the command that moves the bundle forward, if any.
	Hint string `json:"hint,omitempty"`
}

type listOutput struct {
	Bundles  []listEntry          `json:"bundles"`
	Problems []bundle.RootProblem `json:"problems"`
	Setup    []setupEntry         `json:"setup,omitempty"`
}

// setupEntry is a host whose hook lines, written by `bundlectl setup`,
// are out of date or gone; its field names are stable.
type setupEntry struct {
	Host    string   `json:"host"`
	Path    string   `json:"path"`
	Status  string   `json:"status"` // "stale", "gone", "off" or "unreadable"
	Missing []string `json:"missing"`
	Servers []string `json:"servers,omitempty"`
	// Unreadable, for "unreadable", says what in the file bundlectl
	// cannot read ("utf-16", "number", "depth" or "duplicate-key").
	Unreadable string `json:"unreadable,omitempty"`
	// When, for "off", says which sessions it holds in ("started with
	// --profile work"); absent when it holds in every session started
	// in the workspace.
	When string `json:"when,omitempty"`
	// Env, when set, is the assignment ("CLAUDE_CODE_USE_COWORK_PLUGINS=1")
	// under which the host reads Path, another file than in list's own
	// environment; the hint runs with it.
	Env     string `json:"env,omitempty"`
	Message string `json:"message"`
	Hint    string `json:"hint"`
}

func newListCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "list every discovered bundle with its status",
		Long: `List every bundle in every root: name, scope, version and status.

Status is the first of: shadowed, invalid, blocked, untrusted, tampered,
trusted, enabled, active. Every status but active says why. A trusted
bundle whose source changed since it was trusted is marked "update
pending review": it keeps running its reviewed snapshot until the update
is reviewed and trusted. Last come the bundles the state trusts whose
directory is no longer in its root, as "gone" (an enabled one's guards
block their events until it is restored or revoked). A host that
"bundlectl setup" wired with this home whose hook lines are out of date
or gone is named on stderr, with the setup command that brings them back
(for Claude Code, the lines of both user settings files setup wrote,
settings.json and cowork_settings.json, each as a session started with
CLAUDE_CODE_USE_COWORK_PLUGINS set as it reads that file reads it, the
command then led by that assignment);
so is one whose own settings keep it from running them in a session
started in the workspace (or in some of them: a Codex --profile, a
Gemini CLI session not started with --skip-trust in a folder a
trustedFolders.json rule does not trust, or in one no rule decides yet),
with the command that shows the setting or rule, or starts Gemini CLI
there to ask; so is one whose settings file it cannot read though the
host does (Claude Code's in UTF-16, a key written twice, values nested
past 10000), with the command that rewrites it as UTF-8 or shows the
line, and one whose file no longer parses as the host reads it, with the
command that shows the line.` + exitStatus(exit0, exit1, exit2, exit4),
		Args: args(noArgs),
		RunE: func(c *cobra.Command, _ []string) error { return runList(g) },
	}
}

func runList(g *globals) error {
	m, err := g.manager()
	if err != nil {
		return err
	}
	d, sts, gone, err := m.List()
	if err != nil {
		return err
	}
	out := listOutput{Bundles: []listEntry{}, Problems: d.Problems}
	// reviewHint[i]: bundle i's hint is its review, decided on the hint
	// as lifecycle gives it, before g.hint puts --home and --workspace
	// after "bundlectl".
	reviewHint := make([]bool, 0, len(d.Bundles)+len(gone))
	if out.Problems == nil {
		out.Problems = []bundle.RootProblem{}
	}
	for i, b := range d.Bundles {
		st := sts[i]
		out.Bundles = append(out.Bundles, listEntry{
			Name: b.Name, ID: b.ID, Scope: string(b.Scope), Path: b.Dir, Version: b.Meta.Version,
			Status: st.Word, Valid: st.Valid, Trusted: st.Trusted, Enabled: st.Enabled, Active: st.Active,
			UpdatePending: st.UpdatePending, Reasons: st.Reasons, Hint: g.hint(st.Hint),
		})
		reviewHint = append(reviewHint, strings.HasPrefix(st.Hint, "bundlectl review "))
	}
	for _, gb := range gone {
		st := gb.Status
		out.Bundles = append(out.Bundles, listEntry{
			Name: gb.Name, ID: gb.ID, Scope: gb.Scope, Status: st.Word, Valid: st.Valid, Trusted: st.Trusted,
			Enabled: st.Enabled, Reasons: st.Reasons, Hint: g.hint(st.Hint),
		})
		reviewHint = append(reviewHint, strings.HasPrefix(st.Hint, "bundlectl review "))
	}
	// A host set up with this home whose hook lines are out of date or
	// gone runs no guard on the events they leave out, and says nothing.
	for _, st := range hosts.CheckSetups(m.Roots.Home, m.Roots.Workspace, os.Environ()) {
		e := setupEntry{Host: st.Host, Path: st.Path, Status: "stale", Missing: st.Missing, Env: st.Env, Message: st.Message(), Hint: g.hint(st.Fix())}
		if st.Env != "" && strings.HasPrefix(st.Fix(), "bundlectl ") {
			// setup writes the file of its own environment.
			e.Hint = st.Env + " " + e.Hint
		}
		switch {
		case st.Gone:
			e.Status = "gone"
		case st.Off != nil:
			e.Status, e.When = "off", st.Off.When
		case st.Unreadable != nil:
			e.Status, e.Unreadable = "unreadable", st.Unreadable.Why.String()
		}
		out.Setup = append(out.Setup, e)
	}
	// MCP entries an older setup wrote without the reviewed timeout: the
	// host may give up on the server before it starts.
	if exe, err := hosts.Executable(os.Args[0]); err == nil {
		re := hosts.Reentry{Exe: exe, Home: m.Roots.Home, Workspace: m.Roots.Workspace}
		for _, st := range hosts.CheckServerTimeoutsAll(re, os.Environ()) {
			out.Setup = append(out.Setup, setupEntry{Host: st.Host, Path: st.Path, Status: "stale", Missing: st.Missing, Servers: st.Servers, Message: st.Message(), Hint: g.hint(st.Fix())})
		}
	}
	if g.json {
		return writeJSON(g.stdout, out)
	}
	for _, p := range d.Problems {
		fmt.Fprintf(g.stderr, "bundlectl: %s root %s not scanned: %s\n", p.Scope, bundle.Quote(p.Path), p.Message)
	}
	for _, st := range out.Setup {
		fmt.Fprintf(g.stderr, "bundlectl: %s: %s\nbundlectl: hint: %s\n", st.Host, bundle.Sanitize(st.Message), bundle.Sanitize(st.Hint))
	}
	if len(out.Bundles) == 0 {
		fmt.Fprintln(g.stdout, "no bundles found")
		return nil
	}
	// tabwriter writes cell by cell: one write(2) for any table under
	// 64 KiB (about 500 bundles).
	bw := bufio.NewWriterSize(g.stdout, 64<<10)
	tw := tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSCOPE\tVERSION\tSTATUS\tREASON")
	for i, e := range out.Bundles {
		reason := ""
		switch {
		case e.UpdatePending && e.Status != lifecycle.StatusTampered && (e.Status != lifecycle.StatusEnabled || len(e.Reasons) == 0):
			// An enabled bundle that is not active says why first (its
			// receipt cannot be used, its when does not apply).
			reason = "update pending review: " + e.Hint
		case e.Status == lifecycle.StatusUntrusted && reviewHint[i]:
			// The review says how to trust what it shows; the table
			// says which command shows it.
			reason = "not trusted: " + e.Hint
		case e.Status != lifecycle.StatusActive && e.Status != lifecycle.StatusUntrusted && len(e.Reasons) > 0 && e.Hint != "":
			// (A name trust refuses is renamed by an mv of two long
			// paths: show prints it.)
			reason = e.Reasons[0] + ": " + e.Hint
		case e.Status != lifecycle.StatusActive && len(e.Reasons) > 0:
			reason = e.Reasons[0]
		case len(e.Reasons) > 0 && e.Hint != "":
			// Active, with something to do (a required option not set).
			reason = e.Reasons[0] + ": " + e.Hint
		}
		v := e.Version
		if v == "" {
			v = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", bundle.Sanitize(e.Name), e.Scope, bundle.Sanitize(v), e.Status, bundle.Sanitize(reason))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return bw.Flush()
}
