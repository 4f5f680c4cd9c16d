package main

import (
	"fmt"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/spf13/cobra"
)

func newUninstallCmd(g *globals) *cobra.Command {
	var scope string
	var force bool
	c := &cobra.Command{
		Use:   "uninstall <name>",
		Short: "remove an installed bundle, its receipt, switches, source record and options",
		Long: `Uninstall moves the bundle's directory out of its root and forgets its state
(receipt, enabled bit, switches, recorded source) in one step, then deletes
the directory and the bundle's stored options. A running harness sees the
bundle gone and stops it; bundlectl gc reclaims its snapshot.

A bundle bundlectl did not install (placed in a root by hand) may be the
only copy of its files: uninstall refuses it unless --force is given. A
bundle whose directory is already gone has its state record forgotten.` +
			exitStatus(exit0, exit1, exit2, "3  refused (not installed by bundlectl; pass --force)", exit4),
		Args: args(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, a []string) error {
			sc, err := scopeFilter(scope, "uninstall")
			if err != nil {
				return err
			}
			m, err := g.manager()
			if err != nil {
				return err
			}
			out, err := m.Uninstall(a[0], lifecycle.UninstallOptions{Scope: sc, Force: force})
			if err != nil {
				return err
			}
			if g.json {
				return writeJSON(g.stdout, out)
			}
			if len(out.SharedWith) > 0 {
				fmt.Fprintf(g.stdout, "forgot %s in this home; kept its directory %s: another bundlectl home installed it too (%s)\n", bundle.Quote(out.Name), bundle.Quote(out.Path), quotedList(out.SharedWith))
				fmt.Fprintf(g.stdout, "to delete it for every home: %s\n", g.hint("bundlectl uninstall --force --scope workspace "+bundle.ShellArg(out.Name)))
				if out.Planted != "" {
					fmt.Fprintln(g.stdout, out.Planted)
				}
			} else if len(out.Removed) == 0 || out.Removed[0] != out.Path {
				fmt.Fprintf(g.stdout, "forgot %s: its directory %s was already gone\n", bundle.Quote(out.Name), bundle.Quote(out.Path))
			} else {
				fmt.Fprintf(g.stdout, "uninstalled %s: removed %s\n", bundle.Quote(out.Name), bundle.Quote(out.Path))
			}
			if out.Trusted {
				fmt.Fprintf(g.stdout, "its snapshot stays in the store until %s\n", g.hint("bundlectl gc"))
			}
			return nil
		},
	}
	c.Flags().StringVar(&scope, "scope", "", "the root to uninstall from when both have the name: user or workspace")
	c.Flags().BoolVar(&force, "force", false, "also remove a bundle bundlectl did not install")
	return c
}

// quotedList quotes each path and joins them with ", ".
func quotedList(ps []string) string {
	q := make([]string, len(ps))
	for i, p := range ps {
		q[i] = bundle.Quote(p)
	}
	return strings.Join(q, ", ")
}
