package main

import (
	"fmt"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/spf13/cobra"
)

type verifyOutput struct {
	Checked  int                 `json:"checked"`
	OK       bool                `json:"ok"`
	Problems []lifecycle.Problem `json:"problems"`
}

func newVerifyCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "verify",
		Short: "re-hash every trusted bundle's source and snapshot in full",
		Long: `Verify re-hashes, with no caches, the source and the snapshot of every
bundle that has a receipt, and names each mismatch.` + exitStatus("0  everything matches its receipt", "1  at least one mismatch", exit2, exit4),
		Args: args(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error { return runVerify(g) },
	}
}

func runVerify(g *globals) error {
	m, err := g.manager()
	if err != nil {
		return err
	}
	n, problems, err := m.Verify()
	if err != nil {
		return err
	}
	out := verifyOutput{Checked: n, OK: len(problems) == 0, Problems: problems}
	if out.Problems == nil {
		out.Problems = []lifecycle.Problem{}
	}
	if g.json {
		if err := writeJSON(g.stdout, out); err != nil {
			return err
		}
	} else {
		for _, p := range problems {
			fmt.Fprintf(g.stdout, "MISMATCH %s %s %s: %s\n", p.Bundle, p.What, bundle.Quote(p.Path), bundle.Sanitize(p.Reason))
		}
		fmt.Fprintf(g.stdout, "verified %d trusted bundle(s): %d mismatch(es)\n", n, len(problems))
	}
	if len(problems) > 0 {
		if !g.json {
			fmt.Fprintln(g.stderr, "bundlectl: hint: review each mismatched bundle again (bundlectl review <name>) and trust it, or revoke it")
		}
		return &quietError{code: exitFailure}
	}
	return nil
}

func newGCCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "gc",
		Short: "remove unreferenced snapshots and stale temporary directories",
		Long: `GC removes, under the state lock, every snapshot that no current receipt
references, every stale temporary directory of the store, the harness's
verified records of bundles without a receipt, the host views of tokens no
receipt holds, and what a killed install or update left behind. A snapshot
or view a receipt references is never removed.` + exitStatus(exit0, exit1, exit2, exit4),
		Args: args(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			m, err := g.manager()
			if err != nil {
				return err
			}
			removed, err := m.GC()
			if err != nil {
				return err
			}
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
