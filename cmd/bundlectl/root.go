package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/spf13/cobra"
)

// globals are the flags every command shares.
type globals struct {
	home      string
	workspace string
	json      bool
	// installArgs are the install options (--scope, --name) a refused
	// install was given, which the install a hint's script runs needs
	// too (hint).
	installArgs []string

	stdin          io.Reader
	stdout, stderr io.Writer
}

// roots returns the discovery roots for the CLI (it has no builtin root).
func (g *globals) roots() (bundle.Roots, error) {
	home, err := g.homeDir()
	if err != nil {
		return bundle.Roots{}, err
	}
	ws := g.workspace
	if ws == "" {
		if ws, err = os.Getwd(); err != nil {
			return bundle.Roots{}, err
		}
	}
	ws, err = filepath.Abs(ws)
	if err != nil {
		return bundle.Roots{}, err
	}
	if g.workspace != "" {
		// Each refusal hints a command that shows what is there: the
		// right workspace is likely beside a mistyped one.
		fi, err := os.Stat(ws)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			hint := ""
			if d := existingDir(ws); d != "" {
				hint = "ls -A " + bundle.ShellArg(d)
			}
			return bundle.Roots{}, &usageError{fmt.Errorf("--workspace %s does not exist", bundle.Quote(g.workspace)), hint}
		case err != nil:
			return bundle.Roots{}, &usageError{fmt.Errorf("--workspace %s cannot be read: %v", bundle.Quote(g.workspace), errors.Unwrap(err)), "ls -ld " + bundle.ShellArg(ws)}
		case !fi.IsDir():
			return bundle.Roots{}, &usageError{fmt.Errorf("--workspace %s is not a directory", bundle.Quote(g.workspace)), "ls -ld " + bundle.ShellArg(ws)}
		}
	}
	return bundle.Roots{Home: home, Workspace: ws}, nil
}

// homeDir resolves $BUNDLECTL_HOME: --home, the environment variable, then
// $XDG_DATA_HOME/bundlectl, then ~/.local/share/bundlectl.
func (g *globals) homeDir() (string, error) {
	h := g.home
	if h == "" {
		h = os.Getenv("BUNDLECTL_HOME")
	}
	if h == "" {
		if x := os.Getenv("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
			h = filepath.Join(x, "bundlectl")
		}
	}
	if h == "" {
		u, err := os.UserHomeDir()
		if err != nil || u == "" {
			// No command can know which directory is meant: the message
			// says what to set, the hint where the choice is described.
			return "", &codeError{code: exitUsage, err: errors.New("cannot find a home for bundlectl state: none of --home, BUNDLECTL_HOME, an absolute XDG_DATA_HOME or HOME is set; pass --home DIR or set BUNDLECTL_HOME"), hint: "bundlectl --help"}
		}
		h = filepath.Join(u, ".local", "share", "bundlectl")
	}
	return filepath.Abs(h)
}

// readsHome are the commands that only read the home and say what is in
// it, or (gc) clean it: on a home that does not exist they say "nothing",
// which a mistyped --home must not pass for. (lock refuses there: it
// would empty a lockfile.)
var readsHome = map[string]bool{
	"bundlectl list": true, "bundlectl show": true, "bundlectl catalog": true,
	"bundlectl verify": true, "bundlectl gc": true,
}

// noteMissingHome says on stderr, once, that the home does not exist yet
// (exit status and stdout unchanged: a fresh home is legitimate, and
// --json output stays pure), and where it came from, so a typo in --home
// or BUNDLECTL_HOME shows.
func (g *globals) noteMissingHome() {
	home, err := g.homeDir()
	if err != nil {
		return
	}
	if _, err := os.Lstat(home); !errors.Is(err, fs.ErrNotExist) {
		return
	}
	typo := ""
	switch {
	case g.home != "":
		typo = " (if --home is mistyped, give the right one)"
	case os.Getenv("BUNDLECTL_HOME") != "":
		typo = " (if BUNDLECTL_HOME is mistyped, set the right one)"
	case os.Getenv("XDG_DATA_HOME") != "":
		typo = " (it is $XDG_DATA_HOME/bundlectl)"
	}
	fmt.Fprintf(g.stderr, "bundlectl: note: the home %s does not exist yet: nothing is installed or trusted there, and it is created when a bundle first is%s\n", bundle.Quote(home), typo)
}

// exitStatus is the EXIT STATUS section appended to every command's help.
func exitStatus(lines ...string) string {
	return "\n\nEXIT STATUS\n  " + strings.Join(lines, "\n  ")
}

const (
	exit0 = "0  success"
	exit1 = "1  failure"
	exit2 = "2  usage error"
	exit3 = "3  refused (untrusted, tampered, disabled, blocked, token mismatch, switched off)"
	// exit3Any is the root's: every command's refusals, each command's
	// --help saying which are its own.
	exit3Any = "3  refused (untrusted, tampered, disabled, blocked, token mismatch, switched off, a source that breaks a rule or a pin, a component enable or disable names that the bundle does not have, a bundle bundlectl did not install; each command's --help says which)"
	exit4    = "4  state unusable (malformed or unsafe state file, lock not acquired)"
	// exitSignal: interruptedBy.
	exitSignal = "SIGINT, SIGTERM  interrupted (Ctrl-C, kill): bundlectl stops what it\n     started, then ends by the same signal ($? reads 130 or 143)"
)

// command is a command of the table: the name it is invoked by, and what
// builds it.
type command struct {
	name string
	new  func(*globals) *cobra.Command
}

// commands are bundlectl's commands, in the order help lists them, each
// with the name it is invoked by.
var commands = []command{
	{"list", newListCmd}, {"validate", newValidateCmd}, {"show", newShowCmd},
	{"review", newReviewCmd}, {"trust", newTrustCmd}, {"enable", newEnableCmd},
	{"disable", newDisableCmd}, {"revoke", newRevokeCmd}, {"verify", newVerifyCmd},
	{"gc", newGCCmd}, {"catalog", newCatalogCmd}, {"run", newRunCmd},
	{"hooks", newHooksCmd}, {"mcp", newMCPCmd}, {"lsp", newLSPCmd},
	{"install", newInstallCmd}, {"update", newUpdateCmd}, {"uninstall", newUninstallCmd},
	{"diff", newDiffCmd}, {"lock", newLockCmd}, {"sync", newSyncCmd},
	{"configure", newConfigureCmd}, {"exec", newExecCmd}, {"setup", newSetupCmd},
}

// newRoot builds the whole command tree.
func newRoot(stdin io.Reader, stdout, stderr io.Writer) (*cobra.Command, *globals) {
	return newRootFor("", stdin, stdout, stderr)
}

// invoked is the command args invoke, when it plainly is one of
// bundlectl's: the first argument past the root's own flags (--home,
// --workspace, --json). Anything else — help, completion, --version, a
// flag the root does not have, a mistyped name — is "", for which the
// whole tree is built, so cobra's answers (help, suggestions) are as
// they would be.
func invoked(args []string) string {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--home" || a == "--workspace":
			i++ // its value
		case strings.HasPrefix(a, "--home=") || strings.HasPrefix(a, "--workspace=") || a == "--json" || strings.HasPrefix(a, "--json="):
		case strings.HasPrefix(a, "-"):
			return ""
		default:
			for _, c := range commands {
				if c.name == a {
					return a
				}
			}
			return ""
		}
	}
	return ""
}

// newRootFor builds the root with only the command named only (every
// command when only is ""). Building the others would cost each one-shot
// call about 1 ms of a process start (their flags, help texts and
// cobra's completion commands), for nothing: a command never reaches a
// sibling.
func newRootFor(only string, stdin io.Reader, stdout, stderr io.Writer) (*cobra.Command, *globals) {
	g := &globals{stdin: stdin, stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:   "bundlectl",
		Short: "review, trust and run agent plugin bundles",
		Long: `bundlectl decides which agent plugin bundles may run.

Every discovered bundle starts untrusted and disabled. Review shows exactly
what a bundle contains and may do; trust binds that review to its content
and capability hashes and stages a read-only snapshot; enable lets a harness
load it; a harness runs only from snapshots whose receipts still match.

Roots, in precedence order: user ($BUNDLECTL_HOME/bundles), then workspace
(<workspace>/.bundlectl/bundles). A later bundle with an earlier name is
shadowed and never becomes active.` + exitStatus(exit0, exit1, exit2, exit3Any, exit4),
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       version(),
	}
	root.SetVersionTemplate("bundlectl {{.Version}}\n")
	root.SuggestionsMinimumDistance = 2
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &usageError{err, helpOf(c)} })
	root.PersistentPreRun = func(c *cobra.Command, _ []string) {
		if readsHome[c.CommandPath()] {
			g.noteMissingHome()
		}
	}
	pf := root.PersistentFlags()
	pf.StringVar(&g.home, "home", "", "bundlectl state directory (env BUNDLECTL_HOME; default $XDG_DATA_HOME/bundlectl or ~/.local/share/bundlectl)")
	pf.StringVar(&g.workspace, "workspace", "", "workspace directory (default the current directory)")
	pf.BoolVar(&g.json, "json", false, "machine-readable output on stdout")

	for _, c := range commands {
		if only == "" || c.name == only {
			root.AddCommand(c.new(g))
		}
	}
	g.wireCompletion(root)
	if only != "" {
		// Completion goes through the whole tree (its commands are
		// "completion" and "__complete", never a command of the table).
		root.CompletionOptions.DisableDefaultCmd = true
	}
	// cobra's own completion and help commands get the section too.
	root.InitDefaultCompletionCmd()
	root.InitDefaultHelpCmd()
	// Their usage errors exit 2 as every other command's do, not help
	// and 0 (cobra's own: "help nosuch", "completion nosuch").
	for _, c := range root.Commands() {
		switch c.Name() {
		case "help":
			show := c.Run
			c.Run = nil
			c.RunE = func(c *cobra.Command, a []string) error {
				if len(a) > 0 {
					if t, _, err := root.Find(a); err != nil || t == root {
						return &usageError{fmt.Errorf("no help topic %s", bundle.Quote(strings.Join(a, " "))), "bundlectl --help"}
					}
				}
				show(c, a)
				return nil
			}
		case "completion":
			c.Args = cobra.ArbitraryArgs
			c.RunE = func(c *cobra.Command, a []string) error {
				if len(a) == 0 {
					return &usageError{errors.New(c.CommandPath() + " needs a shell: bash, zsh, fish or powershell"), helpOf(c)}
				}
				return &usageError{fmt.Errorf("unknown shell %s for %q: bash, zsh, fish or powershell", bundle.Quote(a[0]), c.CommandPath()), helpOf(c)}
			}
		}
	}
	for _, c := range root.Commands() {
		if !strings.Contains(c.Long, "EXIT STATUS") {
			if c.Long == "" {
				c.Long = c.Short
			}
			c.Long += exitStatus(exit0, exit2)
		}
		for _, sub := range c.Commands() {
			if !strings.Contains(sub.Long, "EXIT STATUS") {
				sub.Long += exitStatus(exit0, exit2)
			}
		}
	}
	return root, g
}

// args wraps a cobra positional-argument check so that its failure is a
// usage error (exit 2).
func args(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(c *cobra.Command, a []string) error {
		if err := check(c, a); err != nil {
			// cobra's "accepts 2 arg(s), received 1" says how many, not
			// which: the usage line names them.
			return &usageError{fmt.Errorf("%s: %v (usage: %s)", c.CommandPath(), err, strings.TrimSuffix(c.UseLine(), " [flags]")), helpOf(c)}
		}
		return nil
	}
}

// noArgs refuses any argument, for a command that takes none (cobra's
// NoArgs calls an argument an unknown command).
func noArgs(_ *cobra.Command, a []string) error {
	if len(a) > 0 {
		return fmt.Errorf("takes no arguments, got %s", bundle.Quote(a[0]))
	}
	return nil
}

// hint returns a printed command that works as printed from the same
// directory: the --home and --workspace this invocation was given are
// carried into it.
func (g *globals) hint(cmd string) string {
	if strings.HasPrefix(cmd, "sh -c '") && strings.Contains(cmd, `bundlectl "$@" `) {
		// A script of sh's that runs bundlectl with its trailing
		// arguments (sources.InstallCopyWithout): the flags go there,
		// and so do the install's own: the copy goes where, and under
		// the name, the refused install was asked to put the bundle.
		if f := append(g.hintFlags(), g.installArgs...); len(f) > 0 {
			return cmd + " " + strings.Join(f, " ")
		}
		return cmd
	}
	rest, ok := strings.CutPrefix(cmd, "bundlectl ")
	if !ok || strings.HasSuffix(rest, "--help") || !isCommandName(strings.Fields(rest)) {
		// Prose in parentheses ("bundlectl keeps at most …") is not a
		// command, and gets no flags.
		return cmd
	}
	flags := g.hintFlags()
	if len(flags) == 0 {
		return cmd
	}
	return "bundlectl " + strings.Join(flags, " ") + " " + rest
}

// hintFlags are the --home and --workspace this invocation was given, as
// words of a printed command; absolute: a fix may be pasted in another
// directory (an agent's hook line runs wherever the agent is).
func (g *globals) hintFlags() []string {
	abs := func(p string) string {
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return p
	}
	var flags []string
	if g.home != "" {
		flags = append(flags, "--home", bundle.ShellArg(abs(g.home)))
	}
	if g.workspace != "" {
		flags = append(flags, "--workspace", bundle.ShellArg(abs(g.workspace)))
	}
	return flags
}

// commandTable is commands, for isCommandName: set at init, as the table
// refers to hint (through the commands) and hint to isCommandName.
var commandTable []command

func init() { commandTable = commands }

// isCommandName reports whether the first of words names a command: one
// of the table, or cobra's help. (A scan rather than a map, which every
// process would build at init for the few that print a hint.)
func isCommandName(words []string) bool {
	if len(words) == 0 {
		return false
	}
	if words[0] == "help" {
		return true
	}
	for _, c := range commandTable {
		if c.name == words[0] {
			return true
		}
	}
	return false
}

// version is the module version and VCS revision from the build
// information: "v1.2.3 (revision abc1234, modified)", "(devel)" for a
// build from a work tree without a tag.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		v += " (revision " + rev + modified + ")"
	}
	return v + " " + runtime.Version()
}

// wireCompletion sets the completion of every command's arguments.
func (g *globals) wireCompletion(root *cobra.Command) {
	byName := map[string]completer{
		"show": g.completeBundleNames(), "review": g.completeBundleNames(), "validate": g.completeBundleNames(),
		"trust": g.completeBundleNames(), "enable": g.completeBundleNames(), "disable": g.completeBundleNames(),
		"revoke": g.completeBundleNames(), "diff": g.completeBundleNames(), "update": g.completeBundleNames(),
		"uninstall": g.completeBundleNames(), "configure": g.completeBundleNames(),
		"run": g.completeComponent("tool"), "mcp": g.completeComponent("mcp"), "lsp": g.completeComponent("lsp"),
	}
	for _, c := range root.Commands() {
		if f, ok := byName[c.Name()]; ok && c.ValidArgsFunction == nil {
			c.ValidArgsFunction = f
		}
		if c.Name() == "hooks" {
			for _, sub := range c.Commands() {
				switch sub.Name() {
				case "run":
					sub.ValidArgsFunction = completeEvents
				case "exec":
					sub.ValidArgsFunction = g.completeComponent("hook")
				}
			}
		}
	}
}
