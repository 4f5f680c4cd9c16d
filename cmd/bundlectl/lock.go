package main

import (
	"errors"
	"fmt"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/spf13/cobra"
)

func newLockCmd(g *globals) *cobra.Command {
	var scope string
	var allowUnpinned bool
	var drop []string
	c := &cobra.Command{
		Use:   "lock",
		Short: "write bundlectl.lock: the exact sources and tokens of the trusted bundles",
		Long: `Lock writes <workspace>/bundlectl.lock (docs/lockfile.md): for every trusted
bundle of the user and workspace roots that bundlectl installed, its name,
scope, resolved source (the commit or the archive pin), the token it was
trusted under, and whether it is enabled. Commit it; on another machine,
bundlectl sync --locked installs exactly those sources and trusts each only
if its recomputed token equals the locked one.

A bundle is left out, and named on stderr with the reason, when it is not
trusted, was placed by hand (no recorded source), has an update pending
review (its source is not what was trusted), its snapshot fails its check,
or its source is a local directory, which has no pin (--allow-unpinned
locks it anyway: sync then copies whatever that path holds, and only the
token check decides). When no bundle can be locked, lock writes nothing
and exits 1, naming each bundle left out (a lockfile of no bundle would
sync nothing); only --drop of the last entries writes an empty one.

Nothing of the lockfile being replaced is lost by mistake: lock writes
nothing when the home does not exist (a mistyped --home or
BUNDLECTL_HOME), or when an entry's bundle is not installed here — a
clone never synced (run bundlectl sync --locked first) or a bundle
uninstalled on purpose (name it with --drop to drop its entry) — or is
installed but cannot be locked by this home (revoked here, or synced
into the workspace by another home and not trusted in this one).` + exitStatus(exit0, exit1, exit2, exit4),
		Args: args(noArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			sc, err := scopeFilter(scope, "lock")
			if err != nil {
				return err
			}
			m, err := g.manager()
			if err != nil {
				return err
			}
			res, err := m.Lock(lifecycle.LockOptions{Scope: sc, AllowUnpinned: allowUnpinned, Drop: drop})
			var hm *lifecycle.HomeMissingError
			var du *lifecycle.LockDropUnknownError
			switch {
			case errors.As(err, &hm):
				// The right home is likely a sibling of the mistyped one.
				hint := ""
				if d := existingDir(hm.Home); d != "" {
					hint = "ls -A " + bundle.ShellArg(d)
				}
				return &codeError{exitFailure, err, hint}
			case errors.As(err, &du):
				return &usageError{err, helpOf(c)}
			case err != nil:
				return err
			}
			// A command a reason or a note names works as printed, in
			// both forms: it carries this invocation's --home and
			// --workspace.
			for i := range res.Skipped {
				res.Skipped[i].Reason = bundle.CommandsIn(res.Skipped[i].Reason, g.hint)
			}
			for i := range res.Notes {
				res.Notes[i] = bundle.CommandsIn(res.Notes[i], g.hint)
			}
			if g.json {
				return writeJSON(g.stdout, res)
			}
			for _, s := range res.Skipped {
				fmt.Fprintf(g.stderr, "bundlectl: not locked: %s (%s): %s\n", bundle.Quote(s.Name), s.Scope, bundle.Sanitize(s.Reason))
			}
			for _, b := range res.Bundles {
				en := "disabled"
				if b.Enabled {
					en = "enabled"
				}
				fmt.Fprintf(g.stdout, "locked %s (%s, %s): %s\n", bundle.Quote(b.Name), b.Scope, en, b.Source.String())
				if b.Local {
					fmt.Fprintf(g.stdout, "  note: its source is a path on this machine; another machine needs the same path\n")
				}
			}
			for _, n := range res.Notes {
				fmt.Fprintf(g.stdout, "note: %s\n", bundle.Sanitize(n))
			}
			fmt.Fprintf(g.stdout, "wrote %s: %d bundle(s)\n", bundle.Quote(res.Path), len(res.Bundles))
			return nil
		},
	}
	c.Flags().StringVar(&scope, "scope", "", "lock only this root: user or workspace (default both)")
	c.Flags().StringArrayVar(&drop, "drop", nil, "drop the entry of a bundle not installed here, or that this home cannot lock; repeat for each")
	c.Flags().BoolVar(&allowUnpinned, "allow-unpinned", false, "also lock bundles installed from a local directory")
	return c
}
