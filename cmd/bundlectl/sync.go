package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/lockfile"
	"github.com/bundlectl/bundlectl/sources"
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
			if err := checkTimeout(c); err != nil {
				return err
			}
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
	sealInheritedFiles() // git, and an ssh master that outlives us, get none of our caller's descriptors
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
	note, hint := syncNext(file, se)
	if note != "" {
		err = fmt.Errorf("%w; %s", err, note)
	}
	return &codeError{code: code, err: err, hint: hint}
}

// syncNext is the next step after a sync that trusted nothing: for a
// locked source whose fetch failed, the command the fetch's own error
// names (git ls-remote of the repository that failed, which shows why);
// else, for a fetched bundle whose token is not the locked one, the
// install of exactly the locked source, whose review shows what this
// machine fetches (and so what differs from the review the lockfile
// records).
func syncNext(file string, se *lifecycle.SyncError) (note, hint string) {
	for _, p := range se.Problems {
		// A catalogue Claude Code refuses for its owner is refused here
		// as at install and update; its own hint (a local marketplace's)
		// shows the catalogue, and the note says what makes it syncable.
		if errors.Is(p.Err, sources.ErrCatalogueOwner) {
			var fe *sources.Error
			if errors.As(p.Err, &fe) && fe.Fix != "" {
				hint = fe.Fix
			}
			return "it can be synced once the marketplace's catalogue names an owner (\"owner\": {\"name\": \"…\"}), as Claude Code refuses the whole marketplace without one; tell the marketplace's maintainers, or add it yourself if the marketplace is yours", hint
		}
	}
	for _, p := range se.Problems {
		// A failed fetch says itself which repository failed (for a
		// marketplace plugin, its catalogue's or its own).
		var fe *sources.Error
		if !p.Mismatch && errors.As(p.Err, &fe) && fe.Fix != "" {
			return "", fe.Fix
		}
		// A refusal to use the workspace's tmp (a planted link) says
		// what to remove.
		var h interface{ Hint() string }
		if !p.Mismatch && errors.As(p.Err, &h) && h.Hint() != "" {
			return "", h.Hint()
		}
	}
	lf, err := lockfile.Read(file)
	if err != nil {
		return "", ""
	}
	for _, p := range se.Problems {
		lb, ok := lf.Lookup(p.Name)
		if !ok {
			continue
		}
		switch {
		case p.Mismatch && strings.HasPrefix(p.Reason, "the fetched bundle does not match the locked token"):
			if h := pinnedInstall(lb); h != "" {
				return fmt.Sprintf("to see what this machine fetches for %s, install exactly its locked source and review it: the review's token is what it would trust here, and the lockfile's was recorded by another review (or edited)", bundle.Quote(p.Name)), h
			}
		}
	}
	return "", ""
}

// pinnedInstall is the install command of exactly lb's locked source
// (its commit, its archive pin) into its root under its name, or "" for
// a source install cannot pin by itself (a marketplace plugin).
func pinnedInstall(lb lockfile.Bundle) string {
	r := lb.Source
	var src string
	var flags []string
	switch r.Kind {
	case sources.KindGit:
		if r.Commit == "" {
			return ""
		}
		src = r.Location()
		flags = append(flags, "--ref", r.Commit)
	case sources.KindArchive:
		src = r.Location()
		flags = append(flags, "--sha256", r.SHA256)
	case sources.KindDir:
		src = r.Path
	default:
		return ""
	}
	if src == "" || strings.HasPrefix(src, "-") {
		return ""
	}
	if r.Subdir != "" {
		flags = append(flags, "--path", r.Subdir)
	}
	if lb.Scope == bundle.ScopeWorkspace {
		flags = append(flags, "--scope", "workspace")
	}
	flags = append(flags, "--name", lb.Name)
	cmd := "bundlectl install " + bundle.ShellArg(src)
	for i := 0; i < len(flags); i += 2 {
		cmd += " " + flags[i] + " " + bundle.ShellArg(flags[i+1])
	}
	return cmd
}
