package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/review"
	"github.com/spf13/cobra"
)

func newReviewCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "review <name|dir>",
		Short: "show exactly what a bundle contains and may do, and the command that trusts it",
		Long: `Review prints the bundle's source, every component with what it will run,
its permissions, inactive declarations, skipped components, ignored fields,
both hashes, and the exact command that trusts this review:

    bundlectl trust <name> <content-hash>.<capability-hash>

Every string that came from the bundle is escaped, so bundle content cannot
move the cursor, recolour, clear or fake lines. An invalid bundle's review
shows its findings and no trust command. A directory argument (containing a
slash or starting with a dot) reviews a bundle anywhere, for its author;
where a bundle and a directory here share a name, the bundle's is
reviewed and a note says so.
When the state file is unusable, the review is printed without what
changed since the last trust, and stderr says why and how to repair it.` +
			exitStatus(exit0+" (also when components are skipped: the rest can be trusted)", "1  the bundle is rejected (invalid as a whole: no trust command), or no bundle or directory has that name", exit2),
		Args: args(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, a []string) error { return runReview(g, a[0]) },
	}
}

func runReview(g *globals, arg string) error {
	b, err := g.bundleArg("review", arg)
	if err != nil {
		return err
	}
	if _, err := printReviewOf(g, b); err != nil {
		return err
	}
	if b.Rejected() {
		// A bundle with skipped components is not rejected: its review
		// has a token, and a script checking the exit status must not
		// throw a trustable review away.
		return &quietError{code: exitFailure}
	}
	return nil
}

// printReviewOf renders the review of b on stdout (JSON with --json).
func printReviewOf(g *globals, b *bundle.Bundle) (*review.Review, error) {
	rv, err := review.New(b)
	if err != nil {
		return nil, err
	}
	// What changed since the last trust comes first (diff.go). Without
	// the state there is no telling whether the bundle was trusted, and
	// the review says so rather than look like a first one.
	if err := attachDiff(g, b, rv); err != nil {
		defer report(g.stderr, fmt.Errorf("the review cannot show what changed since the last trust: %w", err), g)
	}
	if g.json {
		return rv, review.RenderJSONWith(g.stdout, rv, review.RenderOptions{Command: g.hint})
	}
	color := false
	if f, ok := g.stdout.(*os.File); ok && isTerminal(f) && os.Getenv("NO_COLOR") == "" {
		color = true
	}
	subject := b.Name
	if b.Scope == bundle.ScopeDir {
		subject = b.Dir
	}
	var stored map[string]bool
	enabled := false
	if m, err := g.manager(); err == nil && b.Scope != bundle.ScopeDir {
		stored = m.StoredOptions(b)
		if s, err := m.LoadState(); err == nil {
			rec, _ := s.Bundle(b.ID)
			enabled = rec.Enabled
		}
	}
	return rv, review.Render(g.stdout, rv, review.RenderOptions{Color: color, Command: g.hint, Subject: subject, Stored: stored, Enabled: enabled})
}

// isRefusedForTrust reports an enable refused because the bundle needs a
// (new) review and trust.
func isRefusedForTrust(err error) bool {
	var re *lifecycle.RefusedError
	return errors.As(err, &re) && strings.HasPrefix(re.Fix, "bundlectl review")
}
