package main

import (
	"fmt"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/receipts"
	"github.com/spf13/cobra"
)

func newTrustCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "trust <name> <token>",
		Short: "stage a reviewed bundle and record a receipt for exactly that review",
		Long: `Trust recomputes both hashes of the bundle and refuses a token that does
not match the bundle now. It copies the tree into the store, verifies the
copy, and records a receipt. Trust does not enable: run bundlectl enable.

The token is the one bundlectl review prints: <content-hash>.<capability-hash>.` +
			exitStatus(exit0, exit1, "2  usage error (including a malformed token)", exit3, exit4),
		Args: func(c *cobra.Command, a []string) error {
			if len(a) == 1 && !strings.HasPrefix(a[0], "-") {
				// The token is what the review prints: that is the
				// command to run next, not this one's help.
				return &usageError{fmt.Errorf("%s: no token given (usage: %s); the review of %s prints the token to trust", c.CommandPath(), strings.TrimSuffix(c.UseLine(), " [flags]"), bundle.Quote(a[0])), "bundlectl review " + bundle.Operands(a[0])}
			}
			return args(cobra.ExactArgs(2))(c, a)
		},
		RunE: func(c *cobra.Command, a []string) error { return runTrust(g, a[0], a[1]) },
	}
}

func runTrust(g *globals, name, tokenText string) error {
	m, err := g.manager()
	if err != nil {
		return err
	}
	token, err := receipts.ParseToken(tokenText)
	if err != nil {
		if _, terr := receipts.ParseToken(name); terr == nil {
			// The token first, then the name: the same command with the
			// two in the order trust takes them is the fix.
			return &usageError{fmt.Errorf("bundlectl trust: the token came first, and %s is no token: trust takes the bundle's name, then the token (usage: bundlectl trust <name> <token>)", bundle.Quote(tokenText)), "bundlectl trust " + bundle.Operands(tokenText, name)}
		}
		// The review prints the exact token — of a bundle that exists: a
		// mistyped name is the first thing to fix.
		if _, ferr := m.Find(m.Discover(), name); ferr != nil {
			return &usageError{fmt.Errorf("%w; and %w", err, ferr), "bundlectl list"}
		}
		return &usageError{err, "bundlectl review " + bundle.Operands(name)}
	}
	prior := trustedHashes(m, name)
	rc, err := m.Trust(name, token)
	if err != nil {
		return err
	}
	if g.json {
		return writeJSON(g.stdout, rc)
	}
	fmt.Fprintf(g.stdout, "trusted %q at generation %d\n", name, rc.Generation)
	fmt.Fprintf(g.stdout, "snapshot: %s\n", rc.Snapshot)
	if s, err := m.LoadState(); err == nil {
		if rec, _ := s.Bundle(rc.BundleID); rec.Enabled {
			// Enabled is not active: a when that does not apply here, or
			// an option it requires, keeps the new snapshot from running,
			// and saying it runs would be untrue.
			if b, err := m.Find(m.Discover(), name); err == nil && b.ID == rc.BundleID {
				if st := m.Evaluate(b, s); !st.Active && len(st.Reasons) > 0 {
					fmt.Fprintf(g.stdout, "it was already enabled, but the new snapshot does not run: %s\n", st.Reasons[0])
					if st.Hint != "" {
						fmt.Fprintf(g.stdout, "next: %s\n", g.hint(st.Hint))
					}
					return nil
				}
			}
			if prior == [2]receipts.Digest{rc.ContentHash, rc.CapabilityHash} {
				// The same token again: nothing new runs, and "the new
				// snapshot" would claim an update that did not happen.
				fmt.Fprintln(g.stdout, "it was already enabled and trusted at this token: the same snapshot runs, unchanged")
				return nil
			}
			fmt.Fprintln(g.stdout, "it was already enabled: the new snapshot runs from now on")
			return nil
		}
	}
	fmt.Fprintf(g.stdout, "not enabled yet: %s\n", g.hint("bundlectl enable "+name))
	return nil
}

// trustedHashes is the content and capability hash of the receipt the
// bundle called name holds before this trust, or zero digests.
func trustedHashes(m *lifecycle.Manager, name string) [2]receipts.Digest {
	b, err := m.Find(m.Discover(), name)
	if err != nil {
		return [2]receipts.Digest{}
	}
	s, err := m.LoadState()
	if err != nil {
		return [2]receipts.Digest{}
	}
	rec, ok := s.Bundle(b.ID)
	if !ok || rec.Receipt == nil {
		return [2]receipts.Digest{}
	}
	return [2]receipts.Digest{rec.Receipt.ContentHash, rec.Receipt.CapabilityHash}
}
