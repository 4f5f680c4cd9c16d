package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/spf13/cobra"
)

func newSyncCmd(g *globals) *cobra.Command {
	var locked bool
	var file string
	var timeout time.Duration
	c := &cobra.Command{
		Use:   "sync --locked",
		Short: "install and trust exactly the bundles of bundlectl.lock, or nothing",
		Long: `Sync --locked reads <workspace>/bundlectl.lock (or --file) and, for every
bundle in it, fetches exactly the locked source (the same commits, the same
archive pin), recomputes the token from what it fetched, and trusts the
bundle only if that token equals the locked one; it enables the bundles
locked as enabled. It is all or nothing: if any bundle cannot be fetched,
breaks a rule, or does not match its locked token, nothing is installed or
trusted, and every such bundle is named. A bundle already installed with
exactly the locked token is kept, and the lockfile's source is recorded for
it when it has none (a tree an interrupted sync placed, or one placed by
hand).

This is the non-interactive, scoped way for CI and teammates to share one
review: the lockfile names each token, and nothing else is trusted.` +
			exitStatus("0  every locked bundle is installed and trusted", "1  a fetch failed, or the lockfile cannot be read (nothing was trusted)", exit2, "3  a bundle does not match the lockfile (nothing was trusted)", exit4, exitSignal),
		Args: args(noArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			if !locked {
				return &usageError{errors.New("sync needs --locked: it installs exactly what bundlectl.lock pins"), "bundlectl sync --help"}
			}
			ctx := cmdContext()
			return interruptedBy(ctx, runSync(ctx, g, file, timeout))
		},
	}
	c.Flags().BoolVar(&locked, "locked", false, "install exactly the lockfile's sources and trust only matching tokens (required)")
	c.Flags().StringVar(&file, "file", "", "the lockfile (default <workspace>/bundlectl.lock)")
	c.Flags().DurationVar(&timeout, "timeout", 0, "bound on each fetch (default 10m)")
	return c
}

func runSync(ctx context.Context, g *globals, file string, timeout time.Duration) error {
	m, err := g.manager()
	if err != nil {
		return err
	}
	if file == "" {
		if file, err = m.LockPath(); err != nil {
			return err
		}
	}
	res, err := m.SyncLocked(ctx, file, lifecycle.SyncOptions{Timeout: timeout})
	var se *lifecycle.SyncError
	switch {
	case errors.Is(err, fs.ErrNotExist) && res == nil:
		return &codeError{code: exitFailure, err: fmt.Errorf("no lockfile at %s: bundlectl lock writes one (on the machine whose trusted bundles it should pin), or name another with --file", bundle.Quote(file)), hint: "bundlectl lock"}
	case err != nil && !errors.As(err, &se):
		return err
	}
	if g.json {
		if werr := writeJSON(g.stdout, res); werr != nil {
			return werr
		}
	} else if se == nil {
		for _, b := range res.Bundles {
			what := "already installed"
			if b.Action == "installed" {
				what = "installed"
			}
			trust := "already trusted"
			if b.Trusted {
				trust = "trusted"
			}
			en := "not enabled"
			if b.Enabled {
				en = "enabled"
			}
			fmt.Fprintf(g.stdout, "%s %s (%s): %s, %s with the locked token\n", what, bundle.Quote(b.Name), b.Scope, en, trust)
		}
		fmt.Fprintf(g.stdout, "synced %d bundle(s) from %s\n", len(res.Bundles), bundle.Quote(res.Lockfile))
	}
	if se == nil {
		return nil
	}
	for _, p := range se.Problems {
		what := "cannot sync"
		if p.Mismatch {
			what = "mismatch"
		}
		fmt.Fprintf(g.stderr, "bundlectl: %s %s: %s\n", what, bundle.Quote(p.Name), bundle.Sanitize(p.Reason))
	}
	code := exitFailure
	if errors.Is(err, lifecycle.ErrRefused) {
		code = exitRefused
	}
	return &codeError{code: code, err: err}
}
