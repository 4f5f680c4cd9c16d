package main

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/receipts"
	"github.com/bundlectl/bundlectl/staging"
	"github.com/bundlectl/bundlectl/state"
	"github.com/spf13/cobra"
)

type showOutput struct {
	Name        string             `json:"name"`
	ID          string             `json:"id"`
	Scope       string             `json:"scope"`
	Path        string             `json:"path"`
	Format      string             `json:"format"`
	Meta        bundle.Metadata    `json:"metadata"`
	Components  any                `json:"components"` // bundle.Components, redacted when refused for a secret
	Permissions bundle.Permissions `json:"permissions"`
	When        bundle.When        `json:"when"`
	Inactive    []bundle.Inactive  `json:"inactive"`
	Errors      []finding          `json:"errors"`
	Warnings    []finding          `json:"warnings"`
	lifecycle.Status
	Generation uint64            `json:"generation"`
	Receipt    *receipts.Receipt `json:"receipt"`
	// Snapshot is the directory the runtime runs the bundle from, derived
	// from the home and the content hash as the runtime derives it;
	// receipt.snapshot is only what state.json says.
	Snapshot string        `json:"snapshot,omitempty"`
	Audit    []state.Event `json:"audit"`

	showSources // source, switches, options (show_sources.go)
}

func newShowCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "show <name>",
		Short: "show a bundle's metadata, inventory, state and receipt",
		Long:  `Show everything bundlectl knows about one bundle.` + exitStatus(exit0, exit1, exit2, exit4),
		Args:  args(cobra.ExactArgs(1)),
		RunE:  func(c *cobra.Command, a []string) error { return runShow(g, a[0]) },
	}
}

func runShow(g *globals, name string) error {
	m, b, s, err := g.namedWithState(name)
	if err != nil {
		return err
	}
	st := m.Evaluate(b, s)
	if st.Hint != "" {
		st.Hint = g.hint(st.Hint) // works pasted as printed, like every hint
	}
	rec, _ := s.Bundle(b.ID)
	out := showOutput{
		Name: b.Name, ID: b.ID, Scope: string(b.Scope), Path: b.Dir, Format: string(b.Format),
		Meta: b.Meta, Components: b.Components, Permissions: b.Permissions, When: b.When,
		Inactive: b.Inactive, Errors: findings(b.Report.Errors()), Warnings: findings(b.Report.Warnings()),
		Status: st, Generation: rec.Generation, Receipt: rec.Receipt, Audit: rec.Audit,
		showSources: sourcesOf(m, b, rec),
	}
	if rec.Receipt != nil {
		out.Snapshot = (&staging.Store{Dir: filepath.Join(m.Roots.Home, "store")}).Path(rec.Receipt.ContentHash)
	}
	if out.Audit == nil {
		out.Audit = []state.Event{}
	}
	if out.Inactive == nil {
		out.Inactive = []bundle.Inactive{}
	}
	if g.json {
		// A bundle refused for a literal credential still has it in
		// its components: what the secret rules flagged, and any
		// credential shape, is never printed back.
		c, err := bundle.DisplayComponents(b)
		if err != nil {
			return err
		}
		out.Components = c
		var buf bytes.Buffer
		if err := writeJSON(&buf, out); err != nil {
			return err
		}
		_, err = io.WriteString(g.stdout, bundle.RedactTokens(buf.String()))
		return err
	}
	w := g.stdout
	q := bundle.Quote
	fmt.Fprintf(w, "name:     %s\n", q(b.Name))
	if b.Meta.DisplayName != "" {
		fmt.Fprintf(w, "display:  %s\n", q(b.Meta.DisplayName))
	}
	fmt.Fprintf(w, "id:       %s\n", bundle.Sanitize(b.ID)) // the id ends in the directory name
	fmt.Fprintf(w, "source:   %s %s\n", b.Scope, q(b.Dir))
	fmt.Fprintf(w, "format:   %s\n", b.Format)
	if b.Meta.Version != "" {
		fmt.Fprintf(w, "version:  %s\n", q(b.Meta.Version))
	}
	if b.Meta.Description != "" {
		fmt.Fprintf(w, "about:    %s\n", bundle.Sanitize(b.Meta.Description))
	}
	fmt.Fprintf(w, "status:   %s\n", st.Word)
	for _, r := range st.Reasons {
		fmt.Fprintf(w, "          %s\n", bundle.Sanitize(r))
	}
	c := b.Components
	var names []string
	for _, s := range c.Skills {
		names = append(names, "skill "+q(s.Name))
	}
	for _, d := range c.Commands {
		names = append(names, "command "+q(d.Name))
	}
	for _, d := range c.Agents {
		names = append(names, "agent "+q(d.Name))
	}
	for _, t := range c.Tools {
		names = append(names, "tool "+q(t.Name))
	}
	for _, h := range c.Hooks {
		names = append(names, "hook "+bundle.EscapePath(h.Event)+" "+q(h.Matcher))
	}
	for _, s := range c.MCP {
		names = append(names, "mcp "+bundle.EscapePath(string(s.Transport))+" "+q(s.Name))
	}
	if len(names) > 0 {
		fmt.Fprintf(w, "components:\n  %s\n", strings.Join(names, "\n  "))
	}
	out.showSources.print(w)
	fmt.Fprintf(w, "state:    generation %d, enabled %v\n", rec.Generation, rec.Enabled)
	if rc := rec.Receipt; rc != nil {
		fmt.Fprintf(w, "receipt:  token %s\n", rc.Token())
		fmt.Fprintf(w, "          snapshot %s\n", q(out.Snapshot))
		if rc.Snapshot != out.Snapshot {
			// The runtime never reads the receipt's path: an edited
			// state.json cannot make show name a directory nothing runs.
			fmt.Fprintf(w, "          (state.json names %s instead; ignored: the runtime derives the snapshot from the home and the content hash)\n", q(rc.Snapshot))
		}
		fmt.Fprintf(w, "          reviewed %s at generation %d\n", rc.ReviewedAt.Format(time.RFC3339), rc.Generation)
	} else {
		fmt.Fprintf(w, "receipt:  none\n")
	}
	if len(rec.Audit) > 0 {
		fmt.Fprintf(w, "audit (latest %d):\n", len(rec.Audit))
		for _, ev := range rec.Audit {
			tok := "-"
			if ev.Receipt != nil {
				tok = ev.Receipt.Token.Content.Short() + "." + ev.Receipt.Token.Capability.Short()
			}
			fmt.Fprintf(w, "  %s  generation %-4d %-8s %s\n", ev.Time.Format(time.RFC3339), ev.Generation, ev.Action, tok)
		}
	}
	if st.Hint != "" {
		fmt.Fprintf(w, "next:     %s\n", bundle.Sanitize(st.Hint))
	}
	return nil
}
