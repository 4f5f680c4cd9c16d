package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/review"
	"github.com/bundlectl/bundlectl/sources"
	"github.com/spf13/cobra"
)

// updateOutput is `update --json`.
type updateOutput struct {
	Updated []*lifecycle.Updated `json:"updated"`
	Errors  []updateError        `json:"errors"`
}

type updateError struct {
	Name  string `json:"name"`
	Error string `json:"error"`
}

func newUpdateCmd(g *globals) *cobra.Command {
	var timeout time.Duration
	var ref string
	var discard, force bool
	c := &cobra.Command{
		Use:   "update [<name>...]",
		Short: "fetch installed bundles again from their recorded sources; never trusts",
		Long: `Update fetches each named bundle (every bundle with a recorded source when
none is named) again from the source install recorded, following the same
ref, validates it and replaces the bundle's directory in one step.

Nothing is trusted: a trusted bundle whose new source differs from what was
trusted becomes "update pending review" and keeps running its reviewed
snapshot. Review it (the review starts with what changed since the last
trust: files and capabilities), then trust the new token. A bundle whose
directory was edited since bundlectl placed it is refused, naming the
edits, so nothing is lost; --discard-local replaces the edits. --ref moves
a git source (or a git marketplace) to another branch, tag or commit, which
later updates follow.

A workspace bundle that another bundlectl home uses too (its marker is in
<workspace>/.bundlectl/homes/<name>/) is refused, naming that home, when
the fetch brings another tree than the one in place: the update would
replace the tree for that home as well, which then has an update pending
review it did not ask for. --force updates it anyway. An update that
brings the tree in place is up to date, also when another home's update
put it there.` +
			exitStatus(exit0, "1  a fetch failed, or no bundle has that name", exit2, "3  refused (a source broke a rule or a pin, a bundle has no recorded source, it has local edits, or another home uses it)", exit4, exitSignal),
		Args: args(cobra.ArbitraryArgs),
		RunE: func(c *cobra.Command, a []string) error {
			if err := checkTimeout(c); err != nil {
				return err
			}
			if ref != "" && len(a) != 1 {
				return &usageError{errors.New("--ref applies to one named bundle"), "bundlectl update --help"}
			}
			ctx := cmdContext()
			return interruptedBy(ctx, runUpdate(ctx, g, a, lifecycle.UpdateOptions{Timeout: timeout, Ref: ref, DiscardLocal: discard, Force: force}))
		},
	}
	c.Flags().DurationVar(&timeout, "timeout", 0, "bound on each fetch (default 10m)")
	c.Flags().StringVar(&ref, "ref", "", "follow this branch, tag or commit from now on (one git bundle)")
	c.Flags().BoolVar(&force, "force", false, "also update a workspace bundle other bundlectl homes use (replaces it for them too)")
	c.Flags().BoolVar(&discard, "discard-local", false, "replace edits made in the bundle's directory since bundlectl placed it")
	return c
}

func runUpdate(ctx context.Context, g *globals, names []string, opts lifecycle.UpdateOptions) error {
	sealInheritedFiles() // git, and an ssh master that outlives us, get none of our caller's descriptors
	m, err := g.manager()
	if err != nil {
		return err
	}
	var ups []*lifecycle.Updated
	var errs []error
	if len(names) == 0 {
		ups, errs, err = m.UpdateAll(ctx, opts)
		if err != nil {
			return err
		}
	} else {
		for _, n := range names {
			up, err := m.Update(ctx, n, opts)
			if errors.Is(err, lifecycle.ErrStateUnusable) {
				return err
			}
			if err != nil {
				errs = append(errs, err)
				continue
			}
			ups = append(ups, up)
		}
	}
	if len(names) == 1 && len(errs) == 1 {
		return sourceUsage(errs[0])
	}
	if g.json {
		out := updateOutput{Updated: ups, Errors: []updateError{}}
		if out.Updated == nil {
			out.Updated = []*lifecycle.Updated{}
		}
		for _, e := range errs {
			out.Errors = append(out.Errors, updateError{Name: errName(e), Error: e.Error()})
		}
		if err := review.WriteJSON(g.stdout, out); err != nil {
			return err
		}
	} else {
		if len(ups) == 0 && len(errs) == 0 {
			fmt.Fprintln(g.stdout, "no installed bundle has a recorded source: nothing to update")
		}
		for _, up := range ups {
			printUpdated(g, up)
		}
		for _, e := range errs {
			report(g.stderr, e, g)
		}
	}
	if len(errs) > 0 {
		code := exitFailure
		for _, e := range errs {
			if exitCode(e) == exitRefused {
				code = exitRefused
			}
		}
		return &quietError{code: code}
	}
	return nil
}

func errName(err error) string {
	var se *lifecycle.SourceError
	if errors.As(err, &se) {
		return se.Bundle
	}
	var nf *lifecycle.NotFoundError
	if errors.As(err, &nf) {
		return nf.Name
	}
	return ""
}

// printUpdated says in one line what changed, then the command that
// reviews it.
func printUpdated(g *globals, up *lifecycle.Updated) {
	w := g.stdout
	q := bundle.Quote(up.Name)
	src := sourceMove(up.From, up.To)
	if up.Completed {
		fmt.Fprintf(w, "%s: an earlier update was interrupted after it replaced the directory, before it recorded the source; the tree in place is the one it placed (no local edit), and this update records what it fetched\n", q)
	}
	if !up.Changed {
		if up.Replaced {
			fmt.Fprintf(w, "%s is up to date (%s): exactly the tree its source brings was put in place while this update ran (by another home's update of this workspace bundle?), so nothing was replaced\n", q, src)
		} else {
			fmt.Fprintf(w, "%s is up to date (%s)\n", q, src)
		}
		if up.Pending {
			fmt.Fprintf(w, "  update pending review from before: %s\n", g.hint("bundlectl review "+bundle.ShellArg(up.Name)))
		}
		return
	}
	f := up.Files
	line := fmt.Sprintf("updated %s (%s): %d file(s) added, %d removed, %d changed", q, src, len(f.Added), len(f.Removed), len(f.Changed))
	switch {
	case up.Pending:
		fmt.Fprintf(w, "%s; update pending review, the reviewed snapshot keeps running\n", line)
		fmt.Fprintf(w, "  review what changed since the last trust: %s\n", g.hint("bundlectl review "+bundle.ShellArg(up.Name)))
	case up.Trusted:
		fmt.Fprintf(w, "%s; it matches what was trusted\n", line)
	default:
		fmt.Fprintf(w, "%s; not trusted: %s\n", line, g.hint("bundlectl review "+bundle.ShellArg(up.Name)))
	}
}

// sourceMove describes the move from one resolved source to the next.
func sourceMove(from, to sources.Resolved) string {
	short := func(c string) string {
		if len(c) > 12 {
			return c[:12]
		}
		return c
	}
	switch {
	case from.Commit != "" && to.Commit != "" && from.Commit != to.Commit:
		return "commit " + short(from.Commit) + " → " + short(to.Commit)
	case from.Commit != "" && from.Commit == to.Commit:
		return "commit " + short(to.Commit)
	case from.String() == to.String():
		return to.String()
	}
	return from.String() + " → " + to.String()
}
