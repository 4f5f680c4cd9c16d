package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"syscall"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
	"github.com/bundlectl/bundlectl/hosts"
	_ "github.com/bundlectl/bundlectl/hosts/claude"
	_ "github.com/bundlectl/bundlectl/hosts/codex"
	_ "github.com/bundlectl/bundlectl/hosts/gemini"
	"github.com/spf13/cobra"
)

func newExecCmd(g *globals) *cobra.Command {
	var exclusive bool
	c := &cobra.Command{
		Use:   "exec [--exclusive] -- <agent> [args...]",
		Short: "run an agent CLI (claude, codex, gemini) with exactly the active bundles",
		Long: `Exec starts a real agent CLI — claude, codex or gemini, recognised by the
program's name — with exactly the bundles active for the workspace, and
nothing else from bundlectl's roots. The agent's own arguments pass through
unchanged.

Each bundle is loaded from a host view under $BUNDLECTL_HOME/views/: a
read-only directory derived from the bundle's verified snapshot, checked at
every launch and rebuilt when it is missing or does not match. Skills,
commands, agents and other content are as reviewed; every hook, stdio MCP
server and language server in a view calls bundlectl back (hooks exec, mcp,
lsp), which checks the bundle's authority and snapshot again and then runs
the reviewed original from the snapshot.

Before the agent starts, every bundle that is not loaded is named on stderr
with the reason and the command that fixes it; a bundle whose source changed
since it was trusted loads its reviewed snapshot, and says so.

Plugins (extensions) you installed with the agent itself were never
reviewed by bundlectl. They load beside the views, and exec names each one
before the agent starts; with --exclusive they are kept out of the session
(your own settings, hooks and MCP servers are not plugins and stay).

    bundlectl exec -- claude
    bundlectl exec -- codex exec "fix the tests"
    bundlectl exec -- gemini -p "summarise the README"
    bundlectl exec --exclusive -- claude

docs/hosts.md says what each host loads, from where, and what is out of
reach.` + exitStatus(
			"the agent's own exit status; when a signal N ended the agent,\n     bundlectl ends by the same signal if it is SIGINT, SIGTERM, SIGHUP\n     or SIGKILL, and otherwise exits 128+N (as it does for every\n     signal when it is PID 1 in a container)",
			"1  the agent could not be started, or a setting of its own would keep\n     the views' guards from running",
			exit2+" (including an agent bundlectl does not know, an argument of the\n     agent's that exec refuses, and a plugin of yours --exclusive cannot\n     keep out)",
			"3  refused: an enabled bundle's guards cannot be loaded (its receipt\n     is unusable, or its directory is gone)",
			exit4),
		Args: args(cobra.MinimumNArgs(1)),
		ValidArgsFunction: func(_ *cobra.Command, a []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(a) > 0 {
				return nil, cobra.ShellCompDirectiveDefault // the agent's own arguments
			}
			return []string{"claude", "codex", "gemini"}, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, a []string) error { return runExec(g, a, exclusive) },
	}
	c.Flags().BoolVar(&exclusive, "exclusive", false, "keep the agent's own plugins (extensions) out of the session: load the active bundles alone")
	// Everything after the agent's name is the agent's: stop at it.
	c.Flags().SetInterspersed(false)
	return c
}

func runExec(g *globals, argv []string, exclusive bool) error {
	if _, err := hosts.HostFor(argv[0]); err != nil {
		return &usageError{err, "bundlectl exec --help"}
	}
	r, err := g.roots()
	if err != nil {
		return err
	}
	exe, err := hosts.Executable(os.Args[0])
	if err != nil {
		return err
	}
	env := os.Environ()
	plan, err := hosts.Prepare(hosts.Options{Home: r.Home, Workspace: r.Workspace, Exe: exe, Argv: argv, Environ: env, Exclusive: exclusive})
	var ne *hosts.NotExclusiveError
	if errors.As(err, &ne) {
		return &usageError{err, againNotExclusive(g, argv, ne.Hint())}
	}
	var ae *hosts.ArgumentError
	if errors.As(err, &ae) {
		if ae.Args != nil {
			return &usageError{err, againWithout(g, argv, ae.Args, "", ae.Fix)}
		}
		return &usageError{err, ae.Fix}
	}
	var off *hosts.HooksOffError
	if errors.As(err, &off) && off.Hint() == "" {
		// An argument or a variable: the command again without it.
		cmd := "bundlectl exec -- " + off.Host
		if exclusive {
			cmd = "bundlectl exec --exclusive -- " + off.Host
		}
		prefix := ""
		switch {
		case off.Env != "":
			prefix = "env -u " + bundle.ShellArg(off.Env)
		case off.SetEnv != "":
			prefix = "env " + bundle.ShellArg(off.SetEnv)
		}
		return &codeError{code: exitFailure, err: err, hint: againWithout(g, argv, off.Args, prefix, cmd)}
	}
	if err != nil {
		return err
	}
	for _, n := range plan.Notices {
		switch {
		case n.Bundle == "":
			fmt.Fprintf(g.stderr, "bundlectl: %s\n", bundle.CommandsIn(bundle.Sanitize(n.Text), g.hint))
		case n.Loaded:
			fmt.Fprintf(g.stderr, "bundlectl: bundle %s: %s\n", bundle.Quote(n.Bundle), bundle.CommandsIn(bundle.Sanitize(n.Text), g.hint))
		default:
			fmt.Fprintf(g.stderr, "bundlectl: bundle %s is not loaded: %s\n", bundle.Quote(n.Bundle), bundle.CommandsIn(bundle.Sanitize(n.Text), g.hint))
		}
		if n.Fix != "" {
			fmt.Fprintf(g.stderr, "bundlectl: hint: %s\n", g.hint(n.Fix))
		}
	}
	l := plan.Launch
	path, err := lookAgent(l.Argv[0], l.Env)
	if err != nil {
		if l.Cleanup != nil {
			l.Cleanup()
		}
		return agentMissing(g, err, argv, exclusive, plan.Host)
	}
	if l.Cleanup == nil {
		// Nothing to undo after the session: become the agent.
		err := syscall.Exec(path, l.Argv, l.Env)
		return &codeError{code: exitFailure, err: fmt.Errorf("cannot start the agent %s: %v", bundle.Quote(path), err)}
	}
	defer l.Cleanup()
	return superviseAgent(path, l.Argv, l.Env)
}

// againWithout is this exec command again without the agent's arguments
// at drop (indexes in argv[1:]), after prefix (an env command) when it is
// not "": or, when an argument may hold a secret (rerun), fallback, a
// command without the agent's arguments.
func againWithout(g *globals, argv []string, drop []int, prefix, fallback string) string {
	cmd := g.hint(fallback)
	args := os.Args[1:]
	if i := len(args) - len(argv); i > 0 && args[i] == argv[0] {
		again := append([]string(nil), args[:i+1]...)
		for j, a := range argv[1:] {
			if !slices.Contains(drop, j) {
				again = append(again, a)
			}
		}
		if h := rerun(again); h != "" {
			cmd = h
		}
	}
	if prefix == "" {
		return cmd
	}
	return prefix + " " + cmd
}

// againNotExclusive is this exec command again without --exclusive, the
// agent's arguments kept: or, when an argument may hold a secret (rerun),
// fallback, a command without the agent's arguments.
func againNotExclusive(g *globals, argv []string, fallback string) string {
	args := os.Args[1:]
	if i := len(args) - len(argv); i > 0 && args[i] == argv[0] {
		var again []string
		for _, a := range args[:i] {
			if a != "--exclusive" && !strings.HasPrefix(a, "--exclusive=") {
				again = append(again, a)
			}
		}
		if h := rerun(append(again, args[i:]...)); h != "" {
			return h
		}
	}
	return g.hint(fallback)
}

// agentMissing is the error of an agent that cannot be found. Where the
// host knows how its agent is installed (hosts.Installer), the hint
// installs it and runs the command again with the agent by its bare name,
// keeping --exclusive (without it the agent's own plugins would load) and,
// when none may hold a secret, the agent's arguments; it runs as printed
// wherever that install puts the agent on PATH. Otherwise the hint names
// the agent by a placeholder path, which the message says is one.
func agentMissing(g *globals, err error, argv []string, exclusive bool, host hosts.Host) error {
	name := host.Name()
	install := ""
	if in, ok := host.(hosts.Installer); ok {
		install = in.Install()
	}
	agent := name
	if install == "" {
		agent = "/path/to/" + name
		err = fmt.Errorf("%w; install it, or name it by its path (%s in the hint stands for that path: bundlectl cannot know it; \"command -v %s\" prints it in a shell where %s runs)", err, agent, name, name)
	} else {
		err = fmt.Errorf("%w; the hint installs it with npm and runs this command again; or name the agent by its path in this command (\"command -v %s\" prints it in a shell where %s runs)", err, name, name)
	}
	prefixed := func(cmd string) string {
		if install == "" {
			return cmd
		}
		return install + " && " + cmd
	}
	args := os.Args[1:]
	if i := len(args) - len(argv); i > 0 && args[i] == argv[0] {
		again := append(append(append([]string(nil), args[:i]...), agent), args[i+1:]...)
		if h := rerun(again); h != "" {
			return &codeError{code: exitFailure, err: err, hint: prefixed(h)}
		}
	}
	cmd := "bundlectl exec -- " + agent
	if exclusive {
		cmd = "bundlectl exec --exclusive -- " + agent
	}
	return &codeError{code: exitFailure, err: err, hint: prefixed(g.hint(cmd))}
}

// lookAgent finds the agent's program on the PATH it will be started with.
func lookAgent(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		// Checked before the session starts, so that the error names
		// the file rather than a bare "permission denied".
		fi, err := os.Stat(name)
		switch {
		case err != nil:
			return "", fmt.Errorf("agent %s: %v", bundle.Quote(name), errors.Unwrap(err))
		case fi.IsDir():
			return "", fmt.Errorf("agent %s is a directory, not the agent's program", bundle.Quote(name))
		case fi.Mode()&0o111 == 0:
			return "", fmt.Errorf("agent %s is not executable (chmod +x it, or name the agent's program)", bundle.Quote(name))
		}
		return name, nil
	}
	for _, kv := range env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			os.Setenv("PATH", p)
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("agent %s not found on PATH", bundle.Quote(name))
	}
	return p, nil
}

// superviseAgent runs the agent in bundlectl's process group and terminal
// and waits for it, so that the session can be cleaned up afterwards.
//
//   - A terminal's interrupt and quit reach the agent directly, the whole
//     foreground group getting them; bundlectl catches and drops them. It
//     does not ignore them: an ignored signal stays ignored across exec,
//     and an agent that does not reset its signals (a Python or shell
//     agent; node resets them) could not be interrupted.
//   - A termination or hang-up sent to bundlectl alone is passed on.
//   - A signal bundlectl was started ignoring (SIGHUP under nohup, SIGINT
//     in a script's background job) is neither caught nor passed on, and
//     the agent starts ignoring it too, as it would started directly.
//   - Job control: when the agent stops (Ctrl-Z, or an agent in raw
//     terminal mode stopping itself), bundlectl stops too, so that the
//     shell sees the job stopped and takes the terminal back; fg and bg
//     continue the whole group, the agent with it.
//   - The agent gets SIGTERM if bundlectl dies (Linux's parent-death
//     signal): a SIGKILLed bundlectl leaves no agent running on a session
//     whose views the next launch sweeps away.
func superviseAgent(path string, argv, env []string) error {
	// A full channel drops a signal rather than blocking: nothing needs
	// to read this one.
	harness.NotifyHeeded(make(chan os.Signal, 1), syscall.SIGINT, syscall.SIGQUIT)
	sigs := make(chan os.Signal, 4)
	harness.NotifyHeeded(sigs, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	// The parent-death signal is tied to the thread that starts the
	// agent, which must not exit before the agent does.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	proc, err := os.StartProcess(path, argv, &os.ProcAttr{
		Env:   env,
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		Sys:   agentProcAttr(),
	})
	if err != nil {
		return &codeError{code: exitFailure, err: fmt.Errorf("cannot start the agent %s: %v", bundle.Quote(path), errors.Unwrap(err))}
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case s := <-sigs:
				proc.Signal(s)
			case <-done:
				return
			}
		}
	}()
	for {
		var ws syscall.WaitStatus
		_, err := syscall.Wait4(proc.Pid, &ws, syscall.WUNTRACED, nil)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return fmt.Errorf("waiting for the agent: %v", err)
		case ws.Stopped():
			stopWithAgent(proc.Pid, ws.StopSignal())
			continue
		case ws.Signaled():
			return &quietError{code: 128 + int(ws.Signal()), signal: ws.Signal()}
		}
		if code := ws.ExitStatus(); code != 0 {
			return &quietError{code: code}
		}
		return nil
	}
}

// stopWithAgent stops bundlectl as the agent was stopped (a job-control
// signal, else SIGSTOP), so that the shell sees the job stopped, unless
// the agent is running again already (its group was continued between
// its stop and this look). It returns when bundlectl is continued.
//
// bundlectl never continues the agent itself: the shell's fg and bg
// continue the job's whole group, agent included, and a SIGCONT passed on
// could undo a stop the agent makes right after it was continued, which
// bundlectl cannot tell from one it has not been continued from yet.
func stopWithAgent(agent int, sig syscall.Signal) {
	if !agentStopped(agent) {
		return
	}
	switch sig {
	case syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU:
	default:
		sig = syscall.SIGSTOP
	}
	syscall.Kill(os.Getpid(), sig)
}
