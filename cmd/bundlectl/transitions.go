package main

import (
	"fmt"

	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/spf13/cobra"
)

type transitionOutput struct {
	Name    string `json:"name"`
	ID      string `json:"id"`
	Action  string `json:"action"`
	Changed bool   `json:"changed"`
	Instead string `json:"instead_of,omitempty"`
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

When the bundle the name finds has nothing to disable (it is untrusted, or
disabled already), the one trusted bundle of that name it shadows, or whose
directory is gone from its root (list shows it as gone; its guards block
their events), is disabled instead, and the output names it by id. With
several such bundles it refuses and prints the command for each, by id.` + switchHelp + exitStatus(exit0, exit1, exit2, "3  refused (no such component)", exit4),
		Args: args(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, a []string) error {
			if sw.any() {
				return runSwitches(g, a[0], sw, true)
			}
			return runTransition(g, a[0], "disable", func(name string) (lifecycle.Acted, error) {
				m, err := g.manager()
				if err != nil {
					return lifecycle.Acted{}, err
				}
				return m.DisableNamed(name)
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

When the bundle the name finds holds no trust, the one trusted bundle of
that name it shadows, or whose directory is gone from its root (list shows
it as gone; its guards block their events), is revoked instead: the name is
taken to mean the bundle that holds trust, and the output names it by id.
Several such bundles are refused, with the command for each, by id.` + exitStatus(exit0, exit1, exit2, exit4),
		Args: args(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, a []string) error {
			return runTransition(g, a[0], "revoke", func(name string) (lifecycle.Acted, error) {
				m, err := g.manager()
				if err != nil {
					return lifecycle.Acted{}, err
				}
				return m.RevokeNamed(name)
			})
		},
	}
}

func runEnable(g *globals, name string) error {
	m, err := g.manager()
	if err != nil {
		return err
	}
	err = runTransition(g, name, "enable", m.EnableNamed)
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

func runTransition(g *globals, name, action string, fn func(string) (lifecycle.Acted, error)) error {
	a, err := fn(name)
	if err != nil {
		return err
	}
	if g.json {
		return writeJSON(g.stdout, transitionOutput{Name: name, ID: a.ID, Action: action, Changed: a.Changed, Instead: a.Instead})
	}
	past := map[string]string{"enable": "enabled", "disable": "disabled", "revoke": "revoked"}[action]
	// Another bundle of the name than the one it finds first: say which,
	// and why, so a user who meant the first is not misled.
	which := ""
	if a.Instead != "" {
		where := "shadowed by"
		if a.Gone {
			where = "its directory gone; the name now finds"
		}
		which = fmt.Sprintf(" (%s, %s %s, which had nothing to %s)", a.ID, where, a.Instead, action)
	}
	if a.Changed {
		fmt.Fprintf(g.stdout, "%s %q%s\n", past, name, which)
	} else {
		fmt.Fprintf(g.stdout, "%q%s was already %s; nothing changed\n", name, which, map[string]string{"enable": "enabled", "disable": "disabled", "revoke": "untrusted"}[action])
	}
	return nil
}
