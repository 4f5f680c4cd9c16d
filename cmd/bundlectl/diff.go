package main

import (
	"fmt"
	"os"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/review"
	"github.com/spf13/cobra"
)

// diffOutput is `diff --json`.
type diffOutput struct {
	Name    string       `json:"name"`
	ID      string       `json:"id"`
	Trusted bool         `json:"trusted"`
	Diff    *review.Diff `json:"diff"` // null when never trusted
}

func newDiffCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "diff <name>",
		Short: "what changed in a bundle since it was last trusted: files and capabilities",
		Long: `Diff compares the bundle's source with what its receipt trusted: the files
against the trusted snapshot (added, removed, changed), and the
capabilities against the trusted inventory (a new hook, a changed argv, URL
or shell string, a new host variable, a widened allowed-tools list, a
changed MCP tool filter, a new user option...). Review prints the same
section first; diff prints it alone. It exits 0 whether or not something
changed, and 1 when a half could not be compared (the snapshot fails its
check, the source is invalid now): its empty lists then say nothing.` + exitStatus(exit0, exit1, exit2, exit4),
		Args: args(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, a []string) error { return runDiff(g, a[0]) },
	}
}

func runDiff(g *globals, name string) error {
	m, b, s, err := g.namedWithState(name)
	if err != nil {
		return err
	}
	d := m.DiffSinceTrust(b, s)
	if g.json {
		if err := review.WriteJSON(g.stdout, diffOutput{Name: b.Name, ID: b.ID, Trusted: d != nil, Diff: d.WithCommand(g.hint)}); err != nil {
			return err
		}
		return notCompared(g, b, d)
	}
	if d == nil {
		fmt.Fprintf(g.stdout, "%s has not been trusted, so there is nothing to compare: all of it is new\n  %s\n", bundle.Quote(b.Name), bundle.Sanitize(g.hint("bundlectl review "+bundle.Operands(b.Name))))
		return nil
	}
	if err := review.RenderDiff(g.stdout, b.Name, d, review.RenderOptions{Color: colorOut(g), Command: g.hint}); err != nil {
		return err
	}
	if d.Changed() {
		fmt.Fprintf(g.stdout, "review it in full and trust the new token: %s\n", bundle.Sanitize(g.hint("bundlectl review "+bundle.Operands(b.Name))))
	}
	return notCompared(g, b, d)
}

// notCompared is diff's failure when a half of d could not be compared:
// its empty lists would otherwise read as "nothing changed" to a script
// checking the exit status. The hint is the check that says more: the
// source's validation when the source is invalid, else verify (a snapshot
// or receipt that fails its check).
func notCompared(g *globals, b *bundle.Bundle, d *review.Diff) error {
	if d == nil || len(d.Problems) == 0 {
		return nil
	}
	hint := "bundlectl verify " + bundle.Operands(b.Name)
	if b.Rejected() || b.Tree == nil {
		hint = "bundlectl validate " + bundle.Operands(b.Name)
	}
	why := "why: above"
	if g.json {
		why = bundle.Sanitize(d.Problems[0])
	}
	return &codeError{code: 1, err: fmt.Errorf("bundle %s: not everything since its last trust could be compared (%s)", bundle.Quote(b.Name), why), hint: g.hint(hint)}
}

// attachDiff sets the review's diff since the last trust for a bundle of
// a root that holds a receipt (review shows it first). It returns the
// error that kept it from reading the state, so that the review does not
// pass for a first one when it could not tell.
func attachDiff(g *globals, b *bundle.Bundle, rv *review.Review) error {
	if b.Scope == bundle.ScopeDir {
		return nil
	}
	m, err := g.manager()
	if err != nil {
		return err
	}
	s, err := m.LoadState()
	if err != nil {
		return err
	}
	rv.Diff = m.DiffSinceTrust(b, s)
	return nil
}

func colorOut(g *globals) bool {
	f, ok := g.stdout.(*os.File)
	return ok && isTerminal(f) && os.Getenv("NO_COLOR") == ""
}
