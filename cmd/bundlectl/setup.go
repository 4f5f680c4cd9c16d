package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
	"github.com/bundlectl/bundlectl/hosts"
	"github.com/spf13/cobra"
)

func newSetupCmd(g *globals) *cobra.Command {
	var undo bool
	c := &cobra.Command{
		Use:   "setup <claude|codex|gemini> [--undo]",
		Short: "wire bundlectl into an agent's own configuration, for sessions not started with exec",
		Long: `Setup writes the single-line wiring into an agent's own configuration, for
users who start the agent directly rather than through bundlectl exec:

  claude  ~/.claude/settings.json (cowork_settings.json under
          CLAUDE_CODE_USE_COWORK_PLUGINS): a hook with matcher "*" for every event,
          calling bundlectl hooks run <Event> --host claude; the workspace's
          .mcp.json: one entry per stdio MCP server of the active bundles,
          calling bundlectl mcp, approved for that workspace only in its
          .claude/settings.local.json (enabledMcpjsonServers)
  codex   $CODEX_HOME/config.toml: a hook for every Codex event calling
          bundlectl hooks run <Event> --host codex, each recorded as trusted
          by its hash under [hooks.state], and the MCP servers
  gemini  ~/.gemini/settings.json: a hook with matcher "*" for every event;
          the workspace's .gemini/settings.json: the MCP servers

Each file is written atomically, only when it changes (running setup again
is harmless, refreshes the MCP entries after trusting more bundles, and
adds the hook lines for events an older bundlectl's setup did not know,
which hooks run --host <agent> names at the start of every session until then); its
content before the first setup is kept under $BUNDLECTL_HOME/setup/. --undo
restores each file exactly as it was, or, if it changed since, takes out
bundlectl's entries only: the files of setups run with this $HOME (those
of another $HOME are named, with the command that undoes them). A file you made read-only, one in a directory you
made read-only, or one with other hard links, is not replaced: setup names
it and the command that fixes it.

For Codex, the trust recorded is for the one bundlectl command: what runs
behind it is decided by bundlectl's receipts. Editing or moving a line
breaks its trust hash, and Codex then skips it silently. docs/hosts.md shows
every snippet.` + exitStatus(exit0, exit1, exit2, exit4),
		Args: args(cobra.ExactArgs(1)),
		ValidArgsFunction: func(_ *cobra.Command, a []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(a) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return []string{"claude", "codex", "gemini"}, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, a []string) error { return runSetup(g, a[0], undo) },
	}
	c.Flags().BoolVar(&undo, "undo", false, "restore the files setup changed")
	return c
}

func runSetup(g *globals, name string, undo bool) error {
	host, ok := hosts.Lookup(name)
	if !ok {
		return &usageError{fmt.Errorf("setup: unknown agent %s (want claude, codex or gemini)", bundle.Quote(name)), "bundlectl setup --help"}
	}
	r, err := g.roots()
	if err != nil {
		return err
	}
	exe, err := hosts.Executable(os.Args[0])
	if err != nil {
		return err
	}
	in := hosts.SetupInput{Reentry: hosts.Reentry{Exe: exe, Home: r.Home, Workspace: r.Workspace}, Environ: os.Environ()}
	if undo {
		if _, err := os.Lstat(r.Home); errors.Is(err, fs.ErrNotExist) {
			// Setup's record is in the home: none there, nothing to
			// undo, and a mistyped --home must neither be created nor
			// pass for a home whose setup has nothing to undo.
			g.noteMissingHome()
			fmt.Fprintf(g.stdout, "nothing to undo for %s\n", name)
			return nil
		}
		res, err := hosts.Undo(r.Home, host, in)
		done, kept := 0, 0
		for _, u := range res {
			switch {
			case u.Kept != "":
				fmt.Fprintf(g.stdout, "%s: %s\n", bundle.Quote(u.Path), u.Kept)
				kept++
				continue
			case u.OtherHome != "":
				continue // said below, with the command for it
			case u.LinkKept != "":
				fmt.Fprintf(g.stdout, "kept %s: setup created it, and it is a symbolic link now (to %s), not setup's to remove\n", bundle.Quote(u.Path), bundle.Quote(u.LinkKept))
				// (A link to a directory, a FIFO or in a loop holds no
				// entries, and setup refuses it.)
				if fi, err := os.Stat(u.Path); err == nil && fi.Mode().IsRegular() && !slices.ContainsFunc(res, func(o hosts.UndoResult) bool { return o.Path == u.LinkKept && o.Kept == "" }) {
					fmt.Fprintf(g.stdout, "  %s is not in setup's record: if it holds bundlectl's entries, take them out with: %s, then: %s\n", bundle.Quote(u.LinkKept), g.hint("bundlectl setup "+name), g.hint("bundlectl setup "+name+" --undo"))
				}
			case u.Removed:
				fmt.Fprintf(g.stdout, "removed %s (setup had created it)\n", bundle.Quote(u.Path))
			case u.Restored:
				fmt.Fprintf(g.stdout, "restored %s\n", bundle.Quote(u.Path))
			default:
				fmt.Fprintf(g.stdout, "took bundlectl's entries out of %s (it changed since setup; the rest is kept)\n", bundle.Quote(u.Path))
			}
			done++
		}
		switch {
		case err != nil || done > 0:
		case len(res) > kept: // others' only
			fmt.Fprintf(g.stdout, "nothing to undo for %s with this HOME\n", name)
		default:
			fmt.Fprintf(g.stdout, "nothing to undo for %s\n", name)
		}
		g.sayOtherHomes(name, r.Home, res)
		return err
	}
	bundles, notices, err := hosts.ActiveBundles(r.Home, r.Workspace, name)
	if err != nil {
		return err
	}
	in.Bundles = bundles
	stale, _ := hosts.CheckSetup(r.Home, host, in.Environ)
	notes := make([]int, len(bundles))
	for i, b := range bundles {
		notes[i] = len(b.Notes)
	}
	short, _ := hosts.CheckServerTimeouts(r.Home, host, in)
	for i, b := range bundles {
		b.Notes = b.Notes[:notes[i]] // said once, by Setup below
	}
	res, err := hosts.Setup(r.Home, host, in)
	var caveats []*hosts.SetupCaveat
	if err == nil {
		caveats = hosts.SetupCaveats(host, in)
	}
	for _, s := range res {
		verb := "unchanged"
		if s.Changed {
			verb = "wrote"
		}
		fmt.Fprintf(g.stdout, "%s %s: %s\n", verb, bundle.Quote(s.Path), s.What)
		if stale != nil && s.Changed && s.Path == stale.Path && len(stale.Missing) > 0 {
			fmt.Fprintf(g.stdout, "  added hook lines for %s, which the earlier setup left out\n", strings.Join(stale.Missing, ", "))
		}
		if stale != nil && s.Changed && s.Path == stale.Path && stale.Timeout > 0 {
			fmt.Fprintf(g.stdout, "  raised the hook lines' timeout from %d %s to %d %s, so a chain of guards is not cut\n", stale.Timeout, stale.Unit, stale.Want, stale.Unit)
		}
		if short != nil && s.Changed && s.Path == short.Path {
			fmt.Fprintf(g.stdout, "  gave the MCP entries %s the timeout the review gives their server, which the earlier setup left out\n", strings.Join(short.Servers, ", "))
		}
		for _, n := range s.Notes {
			fmt.Fprintf(g.stdout, "  note: %s\n", bundle.CommandsIn(bundle.Sanitize(n), g.hint))
		}
	}
	if len(res) > 0 && res[0].Backup != "" {
		fmt.Fprintf(g.stdout, "the files as they were before the first setup are kept under %s; undo with: %s\n", bundle.Quote(hosts.SetupDir(r.Home)), g.hint("bundlectl setup "+name+" --undo"))
	} else if len(res) > 0 {
		fmt.Fprintf(g.stdout, "undo with: %s\n", g.hint("bundlectl setup "+name+" --undo"))
	}
	for _, b := range bundles {
		for _, n := range b.Notes {
			fmt.Fprintf(g.stderr, "bundlectl: bundle %s: %s\n", bundle.Quote(b.Name), bundle.CommandsIn(bundle.Sanitize(n), g.hint))
		}
	}
	for _, n := range notices {
		fmt.Fprintf(g.stderr, "bundlectl: bundle %s: %s\n", bundle.Quote(n.Bundle), bundle.CommandsIn(bundle.Sanitize(n.Text), g.hint))
		if n.Fix != "" {
			fmt.Fprintf(g.stderr, "bundlectl: hint: %s\n", bundle.Sanitize(g.hint(n.Fix)))
		}
	}
	if err == nil && len(res) > 0 {
		g.sayNotOnPath(name, in.Environ)
	}
	// Sessions that run none of the lines though this workspace's do:
	// written all the same, and said last, where it is seen.
	for _, c := range caveats {
		fmt.Fprintf(g.stderr, "bundlectl: %s: %s\nbundlectl: hint: %s\n", name, bundle.CommandsIn(bundle.Sanitize(c.Message()), g.hint), bundle.Sanitize(g.hint(c.Hint())))
	}
	return err
}

// sayOtherHomes names the files --undo left because a setup run with
// another $HOME wrote them (the record keeps them), one hint per $HOME:
// that --undo, with that HOME and this bundlectl home spelled out (the
// default home may follow $HOME).
func (g *globals) sayOtherHomes(name, home string, res []hosts.UndoResult) {
	var homes []string
	byHome := map[string][]string{}
	for _, u := range res {
		if u.OtherHome == "" {
			continue
		}
		if byHome[u.OtherHome] == nil {
			homes = append(homes, u.OtherHome)
		}
		byHome[u.OtherHome] = append(byHome[u.OtherHome], bundle.Quote(u.Path))
	}
	for _, h := range homes {
		c := *g
		c.home = home
		fmt.Fprintf(g.stderr, "bundlectl: %s: setup wrote %s with HOME=%s, not this HOME, so this --undo leaves %s: run --undo with that HOME to undo %s\n",
			name, strings.Join(byHome[h], ", "), bundle.Quote(h), map[bool]string{true: "it", false: "them"}[len(byHome[h]) == 1], map[bool]string{true: "it", false: "them"}[len(byHome[h]) == 1])
		fmt.Fprintf(g.stderr, "bundlectl: hint: %s\n", bundle.Sanitize("HOME="+bundle.ShellArg(h)+" "+c.hint("bundlectl setup "+name+" --undo")))
	}
}

// sayNotOnPath says that the agent setup wired is not on the PATH setup
// ran with: the lines are written all the same (the agent may be
// installed later, or started by its full path), but a user who mistyped
// the agent, or runs one under another name, would otherwise take the
// guards for running. The hint is the shell's own check.
func (g *globals) sayNotOnPath(name string, environ []string) {
	path := ""
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	if _, err := harness.LookPath(name, path); err == nil {
		return
	}
	if dir, ok := relativeOnPath(name, path); ok {
		// The shell's check (the hint) finds this one: "no claude found"
		// would contradict it. It is found from this directory only.
		fmt.Fprintf(g.stderr, "bundlectl: %s: %s is found on PATH only through its relative entry %s, from this directory only, and a session started elsewhere finds another or none: setup wrote the lines all the same; put the agent's directory on PATH as an absolute path\nbundlectl: hint: command -v %s\n", name, name, bundle.Quote(dir), name)
		return
	}
	fmt.Fprintf(g.stderr, "bundlectl: %s: no %s found on PATH: setup wrote the lines all the same, for a %s installed later or started by its full path; check that the agent you start is the one setup wired\nbundlectl: hint: command -v %s\n", name, name, name, name)
}

// relativeOnPath is the relative (or empty: the working directory) entry
// of path that holds an executable name, which harness.LookPath skips
// and the shell does not.
func relativeOnPath(name, path string) (string, bool) {
	for _, dir := range filepath.SplitList(path) {
		if filepath.IsAbs(dir) {
			continue
		}
		fi, err := os.Stat(filepath.Join(dir, name))
		if err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			if dir == "" {
				dir = "."
			}
			return dir, true
		}
	}
	return "", false
}
