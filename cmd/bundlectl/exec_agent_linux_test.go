package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/bundlectl/bundlectl/internal/testtree"
)

// startExec starts this test binary as bundlectl exec -- <dir>/gemini, in
// a process group of its own as an interactive shell starts a job (with
// interrupt and hang-up at their defaults: see defaultSignals), with the
// agent script given.
// The example repo-guard is trusted and enabled first: a Gemini CLI
// session with a view is supervised (bundlectl waits for the agent to
// remove the session), where one with none is an exec.
func startExec(t *testing.T, agent string) *os.Process {
	t.Helper()
	return startJob(t, agent, false)
}

// startExecIgnoring is startExec with bundlectl started ignoring SIGHUP
// and SIGINT, as nohup or a script's background job starts it.
func startExecIgnoring(t *testing.T, agent string) *os.Process {
	t.Helper()
	return startJob(t, agent, true)
}

func startJob(t *testing.T, agent string, ignoring bool) *os.Process {
	t.Helper()
	argv, env := execFixture(t, agent)
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	prog := argv[0]
	if ignoring {
		prog, argv = "/bin/sh", append([]string{"sh", "-c", `trap "" HUP INT; exec "$0" "$@"`}, argv...)
	}
	p, err := os.StartProcess(prog, argv, &os.ProcAttr{
		Dir:   argv[len(argv)-4], // the workspace
		Env:   env,
		Files: []*os.File{devnull, devnull, devnull},
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	// A failed test leaves nothing of the job behind, stopped or not.
	t.Cleanup(func() { syscall.Kill(-p.Pid, syscall.SIGKILL) })
	return p
}

// execFixture makes a workspace with the example repo-guard trusted and
// enabled, and a Gemini CLI agent script; it returns the command line that
// runs bundlectl exec -- <that agent> (the test binary by its path as
// argv[0]) and the environment to run it in.
func execFixture(t *testing.T, agent string) (argv, env []string) {
	t.Helper()
	bin, ws, env := exampleFixture(t, nil)
	gemini := filepath.Join(filepath.Dir(ws), "gemini")
	if err := os.WriteFile(gemini, []byte("#!/bin/sh\n"+agent), 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{bin, "--workspace", ws, "exec", "--", gemini}, env
}

// replaceRepoGuardFile writes body as the file rel of the example
// repo-guard in workspace ws (mode 0755), and raises the tools' timeout
// from 10 s to 600 s, so that the tool's own timeout never ends a test's
// long-running stand-in first on a busy machine.
func replaceRepoGuardFile(t *testing.T, ws, rel, body string) {
	t.Helper()
	g := filepath.Join(ws, ".bundlectl/bundles/repo-guard")
	if err := os.WriteFile(filepath.Join(g, rel), []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	m := filepath.Join(g, "plugin.json")
	b, err := os.ReadFile(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(m, []byte(strings.Replace(string(b), `"timeout_sec": 10`, `"timeout_sec": 600`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// exampleFixture makes a directory holding this test binary as bundlectl,
// a home, a user directory and a copy of examples/workspace, lets edit
// change that copy, and trusts and enables its repo-guard. It returns the
// bundlectl to run, the workspace and the environment to run it in.
func exampleFixture(t *testing.T, edit func(ws string)) (bin, ws string, env []string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin = filepath.Join(dir, "bundlectl")
	if err := os.Symlink(self, bin); err != nil {
		t.Fatal(err)
	}
	user := filepath.Join(dir, "user")
	ws = filepath.Join(dir, "ws")
	if err := os.MkdirAll(filepath.Join(user, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := testtree.Copy("../../examples/workspace", ws); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(ws)
	}
	env = []string{"HOME=" + user, "BUNDLECTL_HOME=" + filepath.Join(dir, "home"), "PATH=" + os.Getenv("PATH"), "GORACE=" + goraceQuickExit}
	bctl := func(args ...string) []byte {
		t.Helper()
		c := exec.Command(bin, append([]string{"--workspace", ws}, args...)...)
		c.Env = env
		out, err := c.Output()
		if err != nil {
			t.Fatalf("bundlectl %v: %v\n%s", args, err, out)
		}
		return out
	}
	var rv struct{ Token string }
	if err := json.Unmarshal(bctl("review", "--json", "repo-guard"), &rv); err != nil {
		t.Fatal(err)
	}
	bctl("trust", "repo-guard", rv.Token)
	bctl("enable", "repo-guard")
	return bin, ws, env
}

// waitStopOrExit waits for pid, this test's child, to stop or end.
func waitStopOrExit(t *testing.T, pid int) syscall.WaitStatus {
	t.Helper()
	for {
		var ws syscall.WaitStatus
		_, err := syscall.Wait4(pid, &ws, syscall.WUNTRACED, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		return ws
	}
}

func procState(pid int) byte {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(string(b), ')')
	return b[i+2]
}

// TestExecAgentSignalsAndJobControl: the agent a supervised session
// starts gets interrupt, quit and the job-control signals at their
// defaults (bundlectl used to ignore them, and an ignored signal stays
// ignored across exec: a shell or Python agent could then be neither
// interrupted nor suspended), and when the agent stops bundlectl stops
// too, so a shell sees the job stopped; continuing the job's group (fg)
// continues both. Every wait is on an event (so where bundlectl does not
// stop, the test hangs until go test's timeout).
func TestExecAgentSignalsAndJobControl(t *testing.T) {
	out := t.TempDir()
	p := startExec(t, `out=`+out+`
grep '^SigIgn' /proc/self/status > "$out/sigign"
echo $$ > "$out/pid"
kill -TSTP $$
kill -STOP $$
echo resumed > "$out/resumed"
exit 7
`)
	for round := range 2 { // stopped by SIGTSTP, then by SIGSTOP
		ws := waitStopOrExit(t, p.Pid)
		if !ws.Stopped() {
			t.Fatalf("round %d: bundlectl did not stop with its agent: wait status %#x", round, ws)
		}
		b, err := os.ReadFile(filepath.Join(out, "pid"))
		if err != nil {
			t.Fatal(err)
		}
		agent, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		if s := procState(agent); s != 'T' {
			t.Fatalf("round %d: bundlectl stopped, the agent is in state %q", round, s)
		}
		syscall.Kill(-p.Pid, syscall.SIGCONT) // fg: the job's whole group
	}
	if ws := waitStopOrExit(t, p.Pid); !ws.Exited() || ws.ExitStatus() != 7 {
		t.Fatalf("bundlectl exec ended with wait status %#x, want the agent's exit status 7", ws)
	}
	if _, err := os.Stat(filepath.Join(out, "resumed")); err != nil {
		t.Fatal("the agent did not run on after it was continued")
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU} {
		if ignored(t, filepath.Join(out, "sigign"), sig) {
			t.Errorf("the agent starts with %v ignored", sig)
		}
	}
}

// ignored reports whether the SigIgn line in file (/proc/<pid>/status,
// or a copy of the line) holds sig.
func ignored(t *testing.T, file string, sig syscall.Signal) bool {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "SigIgn:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			return mask&(1<<(uint(sig)-1)) != 0
		}
	}
	t.Fatalf("%s holds no SigIgn line: %q", file, b)
	return false
}

// TestExecAgentKeepsIgnoredSignals: a bundlectl exec started ignoring
// hang-up and interrupt (nohup, a script's background job) does not die
// of them, and its agent starts ignoring them too, as it would started
// directly. bundlectl used to subscribe to them, which
// made Go's runtime start the agent with both at their defaults: under
// nohup, the hang-up that closing the terminal sends killed the agent.
func TestExecAgentKeepsIgnoredSignals(t *testing.T) {
	out := t.TempDir()
	p := startExecIgnoring(t, `out=`+out+`
grep '^SigIgn' /proc/self/status > "$out/sigign"
kill -HUP $PPID
kill -INT $PPID
exit 5
`)
	if ws := waitStopOrExit(t, p.Pid); !ws.Exited() || ws.ExitStatus() != 5 {
		t.Fatalf("bundlectl exec ended with wait status %#x, want the agent's exit status 5", ws)
	}
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGINT} {
		if !ignored(t, filepath.Join(out, "sigign"), sig) {
			t.Errorf("the agent of a bundlectl started ignoring %v starts with it at its default", sig)
		}
	}
}

// TestExecDiesOfAgentsSignal: when a signal ends the agent, bundlectl
// removes the session and then ends by the same signal where it can, so
// that a calling shell script stops on a Ctrl-C that killed its agent (it
// goes on after a child that merely exited 130); for the others it exits
// 128+N.
func TestExecDiesOfAgentsSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGKILL, syscall.SIGUSR1} {
		t.Run(sig.String(), func(t *testing.T) {
			out := t.TempDir()
			p := startExec(t, `echo "$GEMINI_CLI_HOME" > `+out+`/session
kill -`+strconv.Itoa(int(sig))+` $$
exit 9
`)
			ws := waitStopOrExit(t, p.Pid)
			switch sig {
			case syscall.SIGUSR1:
				if !ws.Exited() || ws.ExitStatus() != 128+int(sig) {
					t.Fatalf("bundlectl exec ended with wait status %#x, want exit status %d", ws, 128+int(sig))
				}
			default:
				if !ws.Signaled() || ws.Signal() != sig {
					t.Fatalf("bundlectl exec ended with wait status %#x, want to be ended by %v", ws, sig)
				}
			}
			b, err := os.ReadFile(filepath.Join(out, "session"))
			if err != nil {
				t.Fatal(err)
			}
			session := strings.TrimSpace(string(b))
			if session == "" {
				t.Fatal("the agent was started without GEMINI_CLI_HOME")
			}
			if _, err := os.Lstat(session); !os.IsNotExist(err) {
				t.Fatalf("the session %s is still there after bundlectl ended (%v)", session, err)
			}
		})
	}
}

// TestExecAgentEndsWithBundlectl: a SIGKILLed bundlectl exec leaves no
// agent running (its session's views are swept by the next launch): the
// agent gets SIGTERM. The agent holds a FIFO open for writing; the test
// reads it to the end, which comes when the agent has exited (without the
// parent-death signal, never: the test hangs until go test's timeout).
func TestExecAgentEndsWithBundlectl(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	p := startExec(t, `exec 3>`+fifo+`
trap 'echo term >&3; exit 0' TERM
echo ready >&3
while :; do sleep 1; done
`)
	f, err := os.Open(fifo) // until the agent opens it
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := bufio.NewScanner(f)
	if !r.Scan() || r.Text() != "ready" {
		t.Fatalf("agent: %q", r.Text())
	}
	p.Kill()
	p.Wait()
	var lines []string
	for r.Scan() { // ends when the agent (and its sleep) have exited
		lines = append(lines, r.Text())
	}
	if strings.Join(lines, ",") != "term" {
		t.Fatalf("the agent of a killed bundlectl exec got %q, want SIGTERM's trap", lines)
	}
}

// TestExecCtrlCStopsCallingScript: Ctrl-C on a terminal running a bash
// loop of bundlectl exec ends the loop, as it does a loop of the agent run
// directly: the agent dies of SIGINT, and bundlectl dies of it too. bash
// goes on with the next command after a child that exited 130 (it takes
// that child to have handled the interrupt), which bundlectl used to do.
func TestExecCtrlCStopsCallingScript(t *testing.T) {
	argv, env := execFixture(t, `echo "agent ready"
exec sleep 1000
`)
	ctrlCStopsScript(t, argv, env, func(scr *screen) { scr.waitFor(t, "agent ready") })
}

// ctrlCStopsScript runs argv twice in a bash loop, in a pseudo-terminal
// of its own, and types Ctrl-C once ready has seen the first one start:
// bash must die of SIGINT, which it does only when argv died of it too,
// and never start the second. It returns what the terminal showed.
func ctrlCStopsScript(t *testing.T, argv, env []string, ready func(*screen)) string {
	t.Helper()
	master, slave := openPTY(t)
	script := `for i in 1 2; do "$@"; echo "after $i"; done`
	cmd := exec.Command("bash", append([]string{"-c", script, "bash"}, argv...)...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	scr := watch(master)
	ready(scr)
	if _, err := master.Write([]byte{0x03}); err != nil { // Ctrl-C
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	more := scr.more
	for {
		select {
		case b, ok := <-more:
			if !ok {
				more = nil
				continue
			}
			scr.buf.Write(b)
			if strings.Contains(scr.buf.String(), "after 1") {
				t.Fatalf("the script went on after Ctrl-C:\n%s", scr.buf.String())
			}
		case err := <-exited:
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGINT {
				t.Fatalf("the script ended with %v, want death by SIGINT:\n%s", err, scr.buf.String())
			}
			slave.Close() // the last of the terminal's writers: more closes once read
			for b := range more {
				scr.buf.Write(b)
			}
			return scr.buf.String()
		}
	}
}

// TestExecAsNamespaceInitExitsForAgentsSignal: bundlectl exec as PID 1 of
// a PID namespace (a container's entry point) cannot die of a signal it
// raises, the kernel dropping it; it exits 128+N for the signal that ended
// its agent, as it does for the signals it does not end by. It used to
// raise it anyway, and Go's runtime, still alive, exited 2 (a usage
// error) when the agent died of SIGINT, SIGTERM or SIGHUP.
func TestExecAsNamespaceInitExitsForAgentsSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			argv, env := execFixture(t, `kill -`+strconv.Itoa(int(sig))+` $$
exit 9
`)
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Env = env
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Cloneflags: syscall.CLONE_NEWPID}
			if uid, gid := os.Getuid(), os.Getgid(); uid != 0 {
				cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWUSER
				cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
				cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
			}
			out, err := cmd.CombinedOutput()
			if cmd.Process == nil {
				if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOSPC) {
					t.Skipf("this host does not let the test make a PID namespace: %v", err)
				}
				t.Fatal(err)
			}
			ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if !ws.Exited() || ws.ExitStatus() != 128+int(sig) {
				t.Fatalf("bundlectl exec as a namespace's init ended with wait status %#x, want exit status %d:\n%s", ws, 128+int(sig), out)
			}
		})
	}
}
