package main

import (
	"fmt"
	"io"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/spf13/cobra"
)

type validateOutput struct {
	Name     string            `json:"name"`
	ID       string            `json:"id"`
	Path     string            `json:"path"`
	Format   string            `json:"format"`
	Valid    bool              `json:"valid"`
	Blocked  bool              `json:"blocked"`
	Inactive []bundle.Inactive `json:"inactive"`
	Errors   []finding         `json:"errors"`
	Warnings []finding         `json:"warnings"`
}

func newValidateCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "validate <name|dir>",
		Short: "print the full validation report of a bundle",
		Long: `Validate a discovered bundle by name, or any bundle directory by path (an
argument containing a slash or starting with a dot is a path: use ./name
for a directory in the current one; where a bundle and a directory here
share the name, the bundle's is validated and a note says so).

Every broken rule is reported at once, each with its path and rule id.
Findings that reject the whole bundle are errors; a component that breaks
its own rule is skipped (the rest of the bundle still loads, as the Agent
Plugins specification requires) but still fails validation. Inactive
declarations (native, filesystem_roots, lifecycle_mutation) do not make
a bundle invalid; they block enabling it, and validate says so.` + exitStatus(
			"0  the bundle is valid (it may still be blocked)",
			"1  the bundle breaks at least one rule, or no bundle or directory has that name",
			exit2),
		Args: args(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, a []string) error { return runValidate(g, a[0]) },
	}
}

func runValidate(g *globals, arg string) error {
	b, err := g.bundleArg("validate", arg)
	if err != nil {
		return err
	}
	if b.Rejected() && b.Dir != "" {
		// Load stops at what rejects the bundle; the rest of it is read
		// here too, so that every finding is reported at once.
		have := map[bundle.Finding]bool{}
		for _, f := range b.Report.Findings {
			have[f] = true
		}
		for _, f := range bundle.AllFindings(b.Dir, b.Scope, bundle.Limits{}).Findings {
			// Past a rejection, a finding can quote text the rejection was
			// about (a control character in a name): escape it.
			f.Path, f.Message = bundle.Sanitize(f.Path), bundle.Sanitize(f.Message)
			if !have[f] {
				have[f] = true
				b.Report.Findings = append(b.Report.Findings, f)
			}
		}
	}
	if !bundle.ValidBundleName(b.Name) {
		// Valid as a tree, but review would refuse to trust it.
		why := fmt.Sprintf("the directory name %s cannot be trusted: a bundle name is %s", bundle.Quote(b.Name), bundle.BundleNameRule)
		if s := bundle.SuggestBundleName(b.Name); s != "" {
			why += "; rename the directory, e.g. to " + bundle.Quote(s)
		}
		b.Report.Warnf(bundle.EscapePath(b.Name), "bundle.name", "%s", why)
	}
	out := validateOutput{
		Name: b.Name, ID: b.ID, Path: b.Dir, Format: string(b.Format),
		Valid: b.Valid(), Blocked: b.Blocked(), Inactive: b.Inactive,
		Errors: findings(b.Report.Errors()), Warnings: findings(b.Report.Warnings()),
	}
	if out.Inactive == nil {
		out.Inactive = []bundle.Inactive{}
	}
	if g.json {
		if err := writeJSON(g.stdout, out); err != nil {
			return err
		}
	} else {
		printValidation(g.stdout, b)
	}
	if !out.Valid {
		return &quietError{code: exitFailure}
	}
	return nil
}

func printValidation(w io.Writer, b *bundle.Bundle) {
	fmt.Fprintf(w, "bundle %s (%s, %s)\n", bundle.Quote(b.Name), b.Scope, bundle.Quote(b.Dir))
	if b.Format != "" {
		fmt.Fprintf(w, "format: %s\n", b.Format)
	}
	var errs, skips []bundle.Finding
	for _, f := range b.Report.Errors() {
		if f.Severity == bundle.Skip {
			skips = append(skips, f)
		} else {
			errs = append(errs, f)
		}
	}
	section := func(title string, fs []bundle.Finding) {
		if len(fs) == 0 {
			return
		}
		fmt.Fprintf(w, "%s:\n", title)
		for _, f := range fs {
			fmt.Fprintf(w, "  %s\n", f)
		}
	}
	section("errors (the bundle is rejected)", errs)
	section("skipped components", skips)
	section("warnings", b.Report.Warnings())
	if b.Blocked() && !b.Rejected() {
		fmt.Fprintln(w, "blocked: these inactive declarations parse and are reviewed, but bundlectl cannot enable them:")
		for _, in := range b.Inactive {
			name := ""
			if in.Name != "" {
				name = " " + bundle.Quote(in.Name)
			}
			fmt.Fprintf(w, "  %s%s %s\n", in.Surface, name, bundle.Sanitize(in.Detail))
		}
	}
	switch {
	case b.Valid() && b.Blocked():
		fmt.Fprintln(w, "valid, blocked")
	case b.Valid():
		fmt.Fprintln(w, "valid")
	case b.Rejected():
		fmt.Fprintf(w, "invalid: %d finding(s)\n", len(errs)+len(skips))
	default:
		fmt.Fprintf(w, "invalid: %d component(s) skipped; the rest of the bundle loads\n", len(skips))
	}
}
