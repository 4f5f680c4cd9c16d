package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"
)

func newHooksCmd(g *globals) *cobra.Command {
	hooks := &cobra.Command{
		Use:   "hooks",
		Short: "fire bundle hooks for an existing harness",
		Args:  args(cobra.NoArgs),
	}
	var host string
	run := &cobra.Command{
		Use:   "run <Event>",
		Short: "fire every matching active hook for one event read on stdin",
		Long: `Hooks run reads one hook input object on stdin, fires every matching hook
of every active bundle in precedence order (serially, stopping at the first
block; each bundle re-checked before its hook runs, and each hook run from
the bundle's reviewed snapshot), and writes the combined outcome in Claude
Code's hook contract. One line in an existing harness's hook configuration
puts every reviewed hook behind its receipt:

    {"type": "command", "command": "bundlectl hooks run PreToolUse"}

The workspace is the nearest ancestor of the event's "cwd" that holds a
.bundlectl directory (--workspace overrides it). A guard never fails open:
for an event a hook can block (PreToolUse, PermissionRequest,
UserPromptSubmit, Stop, BeforeTool, ...), a bundle whose hooks cannot run
(its snapshot fails its check, its receipt or the state file is unusable)
blocks the event, naming the bundle and the fix. Every bundle that did not
run its hooks for any other reason is named in the systemMessage.

The event names are those of Claude Code, Codex and Gemini CLI (for
example SessionStart, UserPromptSubmit, PreToolUse, PermissionRequest,
PostToolUse, Stop, BeforeTool, AfterTool).` + exitStatus(
			"0  proceed (stdout may carry a JSON outcome)",
			"1  bundlectl itself failed on an event no hook can block (reported, non-blocking, as the hook convention has it)",
			"2  block: stderr is the reason"),
		Args: args(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, a []string) error { return runHooks(g, a[0], host) },
	}
	run.Flags().StringVar(&host, "host", "", "fire only bundlectl's own hooks and those this host's manifest declares (claude, codex, gemini; default all)")
	hooks.AddCommand(run)
	return hooks
}

func runHooks(g *globals, event, host string) error {
	input, err := io.ReadAll(io.LimitReader(g.stdin, harness.MaxHookEventBytes+1))
	if err != nil {
		return err
	}
	switch host {
	case "", "claude", "codex", "gemini":
	default:
		return &usageError{errors.New("--host must be claude, codex or gemini")}
	}
	r, err := g.roots()
	if err != nil {
		return err
	}
	if g.workspace == "" {
		if cwd := eventCwd(input); cwd != "" {
			r.Workspace = workspaceOf(cwd)
		}
	}
	reg, err := harness.Load(harness.Options{Home: r.Home, Workspace: r.Workspace, NoWatch: true, Host: bundle.Host(host)})
	if err != nil {
		if bundle.BlockingEvent(event) {
			// The guards cannot even be listed: fail closed.
			o := harness.NewOutcome(event)
			o.Blocked, o.Reason = true, "bundlectl cannot tell which guards apply, so "+event+" is blocked: "+err.Error()
			if h := hintOf(err); h != "" {
				o.Reason += " (fix: " + g.hint(h) + ")"
			}
			harness.WriteOutcome(g.stdout, g.stderr, o)
			return &quietError{code: 2}
		}
		// A harness treats exit 1 as a non-blocking error shown to the user.
		return &codeError{code: exitFailure, err: err}
	}
	defer reg.Close()
	o, err := reg.FireHooks(cmdContext(), event, input)
	if err != nil && !o.Blocked {
		return &codeError{code: exitFailure, err: err}
	}
	code, werr := harness.WriteOutcome(g.stdout, g.stderr, o)
	if werr != nil {
		return werr
	}
	if code != 0 {
		return &quietError{code: code}
	}
	return nil
}

func hintOf(err error) string {
	var h interface{ Hint() string }
	if errors.As(err, &h) {
		return h.Hint()
	}
	if errors.Is(err, lifecycle.ErrStateUnusable) {
		return "bundlectl list"
	}
	return ""
}

// eventCwd returns the event's "cwd" when it is an absolute path.
func eventCwd(input []byte) string {
	var ev struct {
		Cwd string `json:"cwd"`
	}
	if json.Unmarshal(input, &ev) != nil || !filepath.IsAbs(ev.Cwd) {
		return ""
	}
	return filepath.Clean(ev.Cwd)
}

// workspaceOf returns the nearest ancestor of dir (dir itself included)
// that holds a .bundlectl directory owned by the current user, or dir when
// none does: a directory of someone else's cannot name the workspace.
func workspaceOf(dir string) string {
	uid := uint32(os.Geteuid())
	for p := dir; ; {
		var st unix.Stat_t
		if unix.Lstat(filepath.Join(p, ".bundlectl"), &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR && st.Uid == uid {
			return p
		}
		parent := filepath.Dir(p)
		if parent == p || strings.HasSuffix(parent, string(filepath.Separator)+"..") {
			return dir
		}
		p = parent
	}
}
