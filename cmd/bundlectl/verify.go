package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/hosts"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/spf13/cobra"
)

type verifyOutput struct {
	Checked   int             `json:"checked"`
	OK        bool            `json:"ok"`
	Problems  []verifyProblem `json:"problems"`
	Unchecked []verifyProblem `json:"unchecked"`
}

// verifyProblem is a problem with the command that fixes it, the one the
// text form prints as a hint (carrying --home and --workspace).
type verifyProblem struct {
	lifecycle.Problem
	Hint string `json:"hint,omitempty"`
}

func newVerifyCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "verify [<name>...]",
		Short: "re-hash trusted bundles' sources and snapshots in full",
		Long: `Verify re-hashes, with no caches, the source and the snapshot of every
bundle that has a receipt (or of the named ones: a name or an id each), and
the receipt's inventory, and names each mismatch. A source that lies under
no root of this invocation, a bundle of another workspace, is listed as not
checked; its snapshot and receipt are verified.` + exitStatus("0  everything checked matches its receipt", "1  at least one mismatch, or a name no receipt holds", exit2, exit4),
		Args: args(cobra.ArbitraryArgs),
		RunE: func(c *cobra.Command, a []string) error { return runVerify(g, a) },
	}
}

func runVerify(g *globals, names []string) error {
	m, err := g.manager()
	if err != nil {
		return err
	}
	v, err := m.Verify(names...)
	if err != nil {
		return err
	}
	fixes, fixOf := verifyFixes(v, g.hint)
	out := verifyOutput{Checked: v.Checked, OK: len(v.Problems) == 0, Problems: []verifyProblem{}, Unchecked: []verifyProblem{}}
	for _, p := range v.Problems {
		out.Problems = append(out.Problems, verifyProblem{Problem: p, Hint: fixOf[p.Bundle]})
	}
	for _, p := range v.Unchecked {
		out.Unchecked = append(out.Unchecked, verifyProblem{Problem: p, Hint: verifyThere(g, p.Bundle)})
	}
	if g.json {
		if err := writeJSON(g.stdout, out); err != nil {
			return err
		}
	} else {
		for _, p := range v.Problems {
			where := ""
			if p.Path != "" {
				where = " " + bundle.Quote(p.Path)
			}
			fmt.Fprintf(g.stdout, "MISMATCH %s %s%s: %s\n", p.Bundle, p.What, where, bundle.Sanitize(p.Reason))
		}
		for _, p := range out.Unchecked {
			fmt.Fprintf(g.stdout, "NOT CHECKED %s %s: %s\n", p.Bundle, p.What, bundle.Sanitize(p.Reason))
			fmt.Fprintf(g.stdout, "  hint: %s\n", p.Hint)
		}
		fmt.Fprintf(g.stdout, "verified %d trusted bundle(s): %d mismatch(es)", v.Checked, len(v.Problems))
		if len(v.Unchecked) > 0 {
			fmt.Fprintf(g.stdout, ", %d source(s) not checked", len(v.Unchecked))
		}
		fmt.Fprintln(g.stdout)
	}
	if len(v.Problems) > 0 {
		if !g.json {
			for _, fix := range fixes {
				note, cmd := splitFix(fix)
				if note != "" {
					fmt.Fprintf(g.stderr, "bundlectl: %s\n", note)
				}
				fmt.Fprintf(g.stderr, "bundlectl: hint: %s\n", cmd)
			}
		}
		return &quietError{code: exitFailure}
	}
	return nil
}

// verifyThere is the command that verifies the bundle id of another
// workspace, run in that workspace: its path is not recorded (the id holds
// only a digest of it), so the command carries --home but no --workspace,
// and the workspace is the directory it runs in.
func verifyThere(g *globals, id string) string {
	h := *g
	h.workspace = ""
	return h.hint("bundlectl verify " + bundle.ShellArg(id))
}

// splitFix splits a fix that wraps its command in prose (a bundle of
// another workspace's "… review it from there, or bundlectl revoke ID")
// into the prose and the command, so that the hint line is a command that
// works as printed.
func splitFix(fix string) (note, cmd string) {
	if i := strings.Index(fix, ", or bundlectl "); i >= 0 {
		return fix[:i] + ", or revoke it", fix[i+len(", or "):]
	}
	return "", fix
}

// verifyFixes returns one hint per mismatched bundle, in the order of the
// problems and without repeats, and the hint of each bundle by id; each is
// a command that works as printed (hint carries --home and
// --workspace): revoke a bundle by id when its source is gone (nothing is
// left to review); a bundle of another workspace is reviewed from there,
// or revoked from here; any other is reviewed (the review prints the
// trust command that stages a fresh snapshot).
func verifyFixes(v *lifecycle.Verification, hint func(string) string) ([]string, map[string]string) {
	elsewhere := map[string]bool{}
	for _, p := range v.Unchecked {
		elsewhere[p.Bundle] = true
	}
	var order []string
	gone := map[string]bool{}
	for _, p := range v.Problems {
		if _, ok := gone[p.Bundle]; !ok {
			order = append(order, p.Bundle)
		}
		gone[p.Bundle] = gone[p.Bundle] || p.What == "source" && !p.Pending
	}
	own := map[string]string{}
	for _, p := range v.Problems {
		if p.Fix != "" {
			own[p.Bundle] = p.Fix
		}
	}
	fixes := make([]string, 0, len(order))
	of := make(map[string]string, len(order))
	seen := map[string]bool{}
	for _, id := range order {
		fix := ""
		switch {
		case own[id] != "":
			fix = own[id] // the store's: one for every bundle
		case gone[id]:
			fix = hint("bundlectl revoke " + id)
		case elsewhere[id]:
			fix = id + " belongs to another workspace: review it from there, or " + hint("bundlectl revoke "+id)
		default:
			fix = hint("bundlectl review " + id[strings.LastIndexByte(id, '/')+1:])
		}
		// The hint of each problem in --json is the command alone, as
		// the hint line prints it.
		_, of[id] = splitFix(fix)
		if !seen[fix] {
			seen[fix] = true
			fixes = append(fixes, fix)
		}
	}
	return fixes, of
}

func newGCCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "gc",
		Short: "remove unreferenced snapshots and stale temporary directories",
		Long: `GC removes, under the state lock, every snapshot that no current receipt
references, every stale temporary directory of the store, the harness's
verified records of bundles without a receipt, the host views of tokens no
receipt holds, the session directories of exec launches whose bundlectl
was killed, and what a killed install or update left behind (temporary
trees, and the empty directories a killed or failed install or sync made;
each is listed). A snapshot
or view a receipt references is never removed. In a home that does not
exist it says so, removes nothing and creates nothing.` + exitStatus(exit0, exit1, exit2, exit4),
		Args: args(noArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			m, err := g.manager()
			if err != nil {
				return err
			}
			removed, err := m.GC()
			if err != nil {
				return err
			}
			// The session of an exec whose bundlectl was killed (a view
			// there can hold option values), as the next exec would.
			removed = append(removed, hosts.SweepSessions(filepath.Join(m.Roots.Home, "views"))...)
			if removed == nil {
				removed = []string{}
			}
			if g.json {
				return writeJSON(g.stdout, map[string]any{"removed": removed})
			}
			for _, r := range removed {
				fmt.Fprintf(g.stdout, "removed %s\n", r)
			}
			fmt.Fprintf(g.stdout, "removed %d item(s)\n", len(removed))
			return nil
		},
	}
}
