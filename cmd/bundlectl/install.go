package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/sources"
	"github.com/spf13/cobra"
)

type installOptions struct {
	scope   string
	ref     string
	path    string
	sha256  string
	name    string
	format  string
	timeout time.Duration
}

// installOutput is `install --json`.
type installOutput struct {
	*lifecycle.Installed
	ReviewCommand string `json:"review_command"`
}

func newInstallCmd(g *globals) *cobra.Command {
	var o installOptions
	c := &cobra.Command{
		Use:   "install <source>",
		Short: "fetch a bundle into the user (or workspace) root and record its source; never trusts",
		Long: `Install fetches a bundle and places it in the user root
($BUNDLECTL_HOME/bundles/<name>), or with --scope workspace in the
workspace root (<workspace>/.bundlectl/bundles/<name>), and records where it
came from, so that update can fetch it again and lock can pin it.

A source is one of:
  a local directory                 ./my-plugin, /path/to/plugin
  a git repository                  https://host/repo.git, file:///path/repo,
                                    user@host:repo, or a path with --ref
  a marketplace plugin              <plugin>@<marketplace dir or git repository>
                                    (Claude Code .claude-plugin/marketplace.json
                                    or Codex .agents/plugins/marketplace.json)
  an archive with its sha256 pin    https://host/p.tar.gz --sha256 <hex>, or a
                                    local ./p.tar.gz (.tgz, .zip) the same way
                                    (sha256sum ./p.tar.gz prints a file's pin)

The fetch happens in a temporary directory inside the home; the tree is
validated (links that leave it, bounds, names, and every rule of review) and
renamed into the root only when it passes: a failed install leaves nothing
in the root, and removes the home and root it created (a mistyped --home
is not left behind). An install killed before it recorded the source leaves the
tree in the root with none; the same install run again records it. Network access happens only here and in update, only to the
source named. Install never trusts and never enables: review the bundle,
then trust the exact token the review prints.` +
			exitStatus(exit0, "1  the fetch failed", "2  usage error (including a malformed source)", "3  refused (the source breaks a rule, the name is taken, a pin does not match)", exit4, exitSignal),
		Args: args(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, a []string) error {
			if err := checkTimeout(c); err != nil {
				return err
			}
			ctx := cmdContext()
			return interruptedBy(ctx, runInstall(ctx, g, a[0], o))
		},
	}
	f := c.Flags()
	f.StringVar(&o.scope, "scope", "user", "root to install into: user or workspace")
	f.StringVar(&o.ref, "ref", "", "git branch, tag or commit (a git source or a git marketplace)")
	f.StringVar(&o.path, "path", "", "the bundle's subdirectory inside the directory, repository or archive")
	f.StringVar(&o.sha256, "sha256", "", "sha256 pin of an archive (64 hex digits)")
	f.StringVar(&o.name, "name", "", "install under this name instead of the derived one")
	f.StringVar(&o.format, "format", "", "marketplace catalogue to read when both exist: claude or codex")
	f.DurationVar(&o.timeout, "timeout", 0, "bound on the whole fetch (default 10m)")
	return c
}

// checkTimeout refuses a --timeout that bounds nothing: zero or less
// would otherwise silently mean the default.
func checkTimeout(c *cobra.Command) error {
	d, err := c.Flags().GetDuration("timeout")
	if err != nil || !c.Flags().Changed("timeout") || d > 0 {
		return nil
	}
	return &usageError{fmt.Errorf("--timeout %s: must be more than zero (a duration such as 90s or 5m; the default is 10m)", d), "bundlectl " + c.Name() + " --help"}
}

func parseScope(s, command string) (bundle.Scope, error) {
	switch s {
	case "", "user":
		return bundle.ScopeUser, nil
	case "workspace":
		return bundle.ScopeWorkspace, nil
	}
	return "", &usageError{errors.New("--scope must be user or workspace"), "bundlectl " + command + " --help"}
}

// scopeFilter reads a --scope that narrows a command to one root; "" is
// every root.
func scopeFilter(s, command string) (bundle.Scope, error) {
	if s == "" {
		return "", nil
	}
	return parseScope(s, command)
}

func runInstall(ctx context.Context, g *globals, src string, o installOptions) error {
	sealInheritedFiles() // git, and an ssh master that outlives us, get none of our caller's descriptors
	scope, err := parseScope(o.scope, "install")
	if err != nil {
		return err
	}
	m, err := g.manager()
	if err != nil {
		return err
	}
	if scope != bundle.ScopeUser {
		g.installArgs = append(g.installArgs, "--scope", string(scope))
	}
	if o.name != "" {
		g.installArgs = append(g.installArgs, "--name", bundle.ShellArg(o.name))
	}
	q := sources.Request{Source: src, Ref: o.ref, Subdir: o.path, SHA256: o.sha256, Format: o.format}
	in, err := m.Install(ctx, q, lifecycle.InstallOptions{Scope: scope, Name: o.name, Timeout: o.timeout})
	if err != nil {
		return sourceUsage(err)
	}
	reviewCmd := g.hint("bundlectl review " + bundle.ShellArg(in.Name))
	if g.json {
		return writeJSON(g.stdout, installOutput{Installed: in, ReviewCommand: reviewCmd})
	}
	w := g.stdout
	if in.Recovered {
		fmt.Fprintf(w, "recovered %s in the %s root: %s (already there, exactly what the source brings; nothing was replaced)\n", bundle.Quote(in.Name), in.Scope, bundle.Quote(in.Path))
	} else {
		fmt.Fprintf(w, "installed %s into the %s root: %s\n", bundle.Quote(in.Name), in.Scope, bundle.Quote(in.Path))
	}
	fmt.Fprintf(w, "source:    %s\n", in.Source.String())
	for _, p := range in.Generated {
		fmt.Fprintf(w, "generated: %s (the marketplace entry's definitions; reviewed like the rest)\n", bundle.EscapePath(p))
	}
	for _, n := range in.Notes {
		fmt.Fprintf(w, "note:      %s\n", bundle.Sanitize(n))
	}
	if in.Trusted {
		enabled := "not enabled"
		if in.Enabled {
			enabled = "enabled"
		}
		fmt.Fprintf(w, "trusted as it was, %s: its receipt covers exactly this tree; see its status:\n  %s\n", enabled, g.hint("bundlectl show "+bundle.ShellArg(in.Name)))
		return nil
	}
	fmt.Fprintf(w, "not trusted, not enabled: review it, then trust the token the review prints:\n  %s\n", reviewCmd)
	return nil
}

// sourceUsage makes a malformed source request a usage error (exit 2).
func sourceUsage(err error) error {
	if errors.Is(err, sources.ErrInvalid) {
		return &codeError{code: exitUsage, err: err, hint: "bundlectl install --help"}
	}
	return err
}
