package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

type transitionOutput struct {
	Name    string `json:"name"`
	Action  string `json:"action"`
	Changed bool   `json:"changed"`
}

func newEnableCmd(g *globals) *cobra.Command {
	var sw switchFlags
	c := &cobra.Command{
		Use:   "enable <name>",
		Short: "enable a trusted bundle",
		Long: `Enable sets the enabled bit of a trusted bundle. A bundle whose source
changed since it was trusted (update pending review) can be enabled: what
runs is its reviewed snapshot. On an untrusted bundle it prints the whole
review, ending with the trust command, and exits 3; on one whose snapshot
fails its check, the review command, and exits 3; on a
blocked bundle it names each inactive surface and exits 3.` + switchHelp + exitStatus(exit0, exit1, exit2, exit3, exit4),
		Args: args(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, a []string) error {
			if sw.any() {
				return runSwitches(g, a[0], sw, false)
			}
			return runEnable(g, a[0])
		},
	}
	sw.register(g, c, "turn back on")
	return c
}

func newDisableCmd(g *globals) *cobra.Command {
	var sw switchFlags
	c := &cobra.Command{
		Use:   "disable <name>",
		Short: "disable a bundle and keep its trust",
		Long: `Disable clears the enabled bit. Trust is kept: enable turns it back on.

A trusted bundle whose directory is gone from its root (list shows it as
gone; its guards block their events) is disabled by name too, also when an
untrusted bundle of the same name is in another root.` + switchHelp + exitStatus(exit0, exit1, exit2, "3  refused (no such component)", exit4),
		Args: args(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, a []string) error {
			if sw.any() {
				return runSwitches(g, a[0], sw, true)
			}
			return runTransition(g, a[0], "disable", func(name string) (bool, error) {
				m, err := g.manager()
				if err != nil {
					return false, err
				}
				return m.Disable(name)
			})
		},
	}
	sw.register(g, c, "switch off")
	return c
}

func newRevokeCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "revoke <name>",
		Short: "remove a bundle's trust and keep its enabled bit",
		Long: `Revoke removes the current receipt. The enabled bit is kept, so the bundle
is inactive until it is trusted again; running tools and servers of the
bundle are cancelled by any harness that runs them.

A trusted bundle whose directory is gone from its root (list shows it as
gone; its guards block their events) is revoked by name too, also when an
untrusted bundle of the same name is in another root: the name is taken
to mean the bundle that holds trust. Several such bundles are named by id.` + exitStatus(exit0, exit1, exit2, exit4),
		Args: args(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, a []string) error {
			return runTransition(g, a[0], "revoke", func(name string) (bool, error) {
				m, err := g.manager()
				if err != nil {
					return false, err
				}
				return m.Revoke(name)
			})
		},
	}
}

func runEnable(g *globals, name string) error {
	m, err := g.manager()
	if err != nil {
		return err
	}
	err = runTransition(g, name, "enable", m.Enable)
	if isRefusedForTrust(err) && !g.json {
		// Show what would be trusted, so the next step is one command away.
		if d := m.Discover(); d != nil {
			if b, ferr := m.Find(d, name); ferr == nil {
				printReviewOf(g, b)
			}
		}
	}
	return err
}

func runTransition(g *globals, name, action string, fn func(string) (bool, error)) error {
	changed, err := fn(name)
	if err != nil {
		return err
	}
	if g.json {
		return writeJSON(g.stdout, transitionOutput{Name: name, Action: action, Changed: changed})
	}
	past := map[string]string{"enable": "enabled", "disable": "disabled", "revoke": "revoked"}[action]
	if changed {
		fmt.Fprintf(g.stdout, "%s %q\n", past, name)
	} else {
		fmt.Fprintf(g.stdout, "%q was already %s; nothing changed\n", name, map[string]string{"enable": "enabled", "disable": "disabled", "revoke": "untrusted"}[action])
	}
	return nil
}
