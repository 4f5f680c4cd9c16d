package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The tests below assert what happened — a process is gone, a result is
// flagged, output was kept — never how fast. Waits are bounded by
// hangGuard only so that a broken protection fails instead of hanging;
// a busy machine never comes near it.
const hangGuard = 3 * time.Minute

var testEnv = []string{"PATH=/usr/bin:/bin"}

// TestMain doubles as the entry point of helper processes: the test binary
// re-executed with HARNESS_TEST_HELPER set plays bundlectl (running a
// child through Run or Exec) or an MCP server.
func TestMain(m *testing.M) {
	if mode := os.Getenv("HARNESS_TEST_HELPER"); mode != "" {
		os.Exit(helperMain(mode))
	}
	os.Exit(m.Run())
}

func helperMain(mode string) int {
	if name := os.Getenv("HARNESS_TEST_LEVEL"); name != "" {
		for _, l := range allLevels {
			if l.String() == name {
				testOnlyContainment = l
			}
		}
	}
	dir := os.Getenv("HARNESS_TEST_DIR")
	spec := Spec{Argv: []string{filepath.Join(dir, "child.sh")}, Dir: dir, Env: testEnv, Timeout: MaxTimeout}
	switch mode {
	case "run":
		_, _ = Run(context.Background(), spec)
		return 0
	case "exec":
		_, _ = Exec(context.Background(), spec, Stdio{})
		return 0
	case "mcp-server":
		return mcpServerMain()
	case "unprivileged":
		if _, err := Run(context.Background(), spec); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println(Containment())
		return 0
	}
	fmt.Fprintf(os.Stderr, "unknown helper %q\n", mode)
	return 2
}

// script writes an executable sh script into dir and returns its path.
func script(t testing.TB, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// recordPid is shell that writes the pid of the shell running it to file,
// atomically. The pid is read from /proc/self/stat by the shell itself (a
// builtin's redirection does not fork): in a PID namespace $$ and $! are
// the namespace's numbers, while /proc, not remounted, shows the outer
// ones the test checks.
func recordPid(file string) string {
	return fmt.Sprintf("read -r pid _ < /proc/self/stat; echo $pid > %q.tmp; mv %q.tmp %q", file, file, file)
}

// spawnRecorded is shell that starts, in the background, a process that
// records its pid in file and sleeps 1000 s; prefix goes before it
// ("setsid" to leave the group).
func spawnRecorded(prefix, file string) string {
	return fmt.Sprintf("%s sh -c '%s; exec sleep 1000' >/dev/null 2>&1 </dev/null &", prefix, strings.ReplaceAll(recordPid(file), "'", `'\''`))
}

// waitFiles is shell that waits until every file exists.
func waitFiles(files ...string) string {
	var cond []string
	for _, f := range files {
		cond = append(cond, fmt.Sprintf("[ ! -e %q ]", f))
	}
	return "while " + strings.Join(cond, " || ") + "; do sleep 0.01; done"
}

// processGone reports whether pid has exited (a zombie nobody reaps counts
// as gone: it runs nothing and holds nothing open).
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return true
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(data)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] == 'Z' || s[i+2] == 'X'
	}
	return false
}

// waitGone waits until pid is gone; hangGuard only turns a survivor into a
// failure instead of a hang.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d survived", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitFile waits until path exists and returns its content.
func waitFile(t *testing.T, path string) []byte {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		if data, err := os.ReadFile(path); err == nil {
			return data
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", path)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func readPid(t *testing.T, out []byte) int {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || pid <= 1 {
		t.Fatalf("no pid in %q", out)
	}
	return pid
}

func readPidFile(t *testing.T, path string) int {
	t.Helper()
	return readPid(t, waitFile(t, path))
}

// noHang runs fn in a goroutine and fails if it has not returned within
// hangGuard: for calls whose protection is that they do not wait.
func noHang[T any](t *testing.T, what string, fn func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- fn() }()
	select {
	case v := <-done:
		return v
	case <-time.After(hangGuard):
		t.Fatalf("%s did not return", what)
		panic("unreachable")
	}
}

func TestRunInputNeverReachesAShell(t *testing.T) {
	dir := t.TempDir()
	payload := "$(touch PWNED) `touch PWNED2`; touch PWNED3"
	// Input on stdin, read by a script that handles it as data.
	readStdin := script(t, dir, "read.sh", `read -r line; printf '%s' "$line"`)
	res, err := Run(context.Background(), Spec{Argv: []string{readStdin}, Dir: dir, Env: testEnv, Stdin: []byte(payload + "\n")})
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Stdout) != payload {
		t.Fatalf("stdout %q, want %q", res.Stdout, payload)
	}
	// The same text as an argv element is one argument, not a command line.
	res, err = Run(context.Background(), Spec{Argv: []string{"/bin/echo", payload}, Dir: dir, Env: testEnv})
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(res.Stdout)) != payload {
		t.Fatalf("echo printed %q", res.Stdout)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "PWNED") {
			t.Fatalf("%s was created: input reached a shell", e.Name())
		}
	}
}

func TestRunFloodIsTruncatedNotWedged(t *testing.T) {
	dir := t.TempDir()
	const limit = 64 << 10
	flood := script(t, dir, "flood.sh", "head -c 5242880 /dev/zero\nhead -c 3000000 /dev/zero >&2\necho done >&2\n")
	// The timeout is a hang guard: a child blocked on a full pipe would
	// run into it, a slow machine does not.
	res, err := Run(context.Background(), Spec{Argv: []string{flood}, Dir: dir, Env: testEnv, MaxOutput: limit, Timeout: MaxTimeout})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 || res.TimedOut {
		t.Fatalf("exit %d timedOut %v", res.ExitCode, res.TimedOut)
	}
	if len(res.Stdout) != limit || !res.StdoutTruncated {
		t.Fatalf("stdout len %d truncated %v, want %d true", len(res.Stdout), res.StdoutTruncated, limit)
	}
	if len(res.Stderr) != limit || !res.StderrTruncated {
		t.Fatalf("stderr len %d truncated %v, want %d true", len(res.Stderr), res.StderrTruncated, limit)
	}
	if cap(res.Stdout) > 2*limit {
		t.Fatalf("stdout buffer capacity %d: retention is not bounded", cap(res.Stdout))
	}
}

func TestRunDefaultCapIsOneMiB(t *testing.T) {
	dir := t.TempDir()
	flood := script(t, dir, "flood.sh", "head -c 3000000 /dev/zero\n")
	res, err := Run(context.Background(), Spec{Argv: []string{flood}, Dir: dir, Env: testEnv, Timeout: MaxTimeout})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Stdout) != DefaultMaxOutput || !res.StdoutTruncated || res.StderrTruncated {
		t.Fatalf("stdout len %d truncated %v stderr truncated %v", len(res.Stdout), res.StdoutTruncated, res.StderrTruncated)
	}
}

// TestRunTimeout: a child still running at its timeout is killed, the
// result says so, and what it printed before is kept. The timeout starts
// short and doubles until the child got as far as printing before it
// fired: progress, not the clock, decides when the check applies.
func TestRunTimeout(t *testing.T) {
	dir := t.TempDir()
	sleeper := script(t, dir, "sleep.sh", "echo started\nexec sleep 1000\n")
	for timeout := 200 * time.Millisecond; ; timeout *= 2 {
		res, err := Run(context.Background(), Spec{Argv: []string{sleeper}, Dir: dir, Env: testEnv, Timeout: timeout})
		if err != nil {
			t.Fatal(err)
		}
		if !res.TimedOut || res.Canceled || res.ExitCode != -1 || res.Signal != syscall.SIGKILL {
			t.Fatalf("result %+v", res)
		}
		err = res.Err()
		var ee *ExitError
		if !errors.As(err, &ee) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Err() = %v", err)
		}
		if !strings.Contains(err.Error(), "timed out after "+timeout.String()) {
			t.Fatalf("message %q", err)
		}
		if len(res.Stdout) == 0 && timeout < MaxTimeout/2 {
			continue // killed before it printed: the machine is busy
		}
		if string(res.Stdout) != "started\n" {
			t.Fatalf("output before the timeout lost: %q", res.Stdout)
		}
		return
	}
}

// TestRunKillsGrandchildOnNormalExit: a grandchild that stays in the group
// and holds stdout neither outlives the call nor keeps Run waiting for the
// EOF it would give only after 1000 s.
func TestRunKillsGrandchildOnNormalExit(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "grandchild.pid")
	spawner := script(t, dir, "spawn.sh", fmt.Sprintf("sh -c '%s; exec sleep 1000' &\n%s\nexit 0\n",
		strings.ReplaceAll(recordPid(pidFile), "'", `'\''`), waitFiles(pidFile)))
	res := noHang(t, "Run with a grandchild holding stdout", func() *Result {
		res, err := Run(context.Background(), Spec{Argv: []string{spawner}, Dir: dir, Env: testEnv, Timeout: MaxTimeout})
		if err != nil {
			t.Error(err)
		}
		return res
	})
	if res == nil || res.ExitCode != 0 || res.TimedOut || res.OutputHeld {
		t.Fatalf("result %+v", res)
	}
	waitGone(t, readPidFile(t, pidFile))
}

func TestRunKillsGrandchildOnTimeout(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "grandchild.pid")
	spawner := script(t, dir, "spawn.sh", spawnRecorded("", pidFile)+"\nexec sleep 1000\n")
	// Double the timeout until the grandchild had started before it fired.
	for timeout := 300 * time.Millisecond; ; timeout *= 2 {
		res, err := Run(context.Background(), Spec{Argv: []string{spawner}, Dir: dir, Env: testEnv, Timeout: timeout})
		if err != nil {
			t.Fatal(err)
		}
		if !res.TimedOut {
			t.Fatalf("result %+v", res)
		}
		if _, err := os.Stat(pidFile); err != nil && timeout < MaxTimeout/2 {
			continue
		}
		waitGone(t, readPidFile(t, pidFile))
		return
	}
}

func TestRunCancelKillsGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	spawner := script(t, dir, "spawn.sh", spawnRecorded("", pidFile)+"\nexec sleep 1000\n")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		waitFile(t, pidFile)
		cancel()
	}()
	res := noHang(t, "Run after cancel", func() *Result {
		res, err := Run(ctx, Spec{Argv: []string{spawner}, Dir: dir, Env: testEnv, Timeout: MaxTimeout})
		if err != nil {
			t.Error(err)
		}
		return res
	})
	if res == nil || !res.Canceled || res.TimedOut || res.Signal != syscall.SIGKILL {
		t.Fatalf("result %+v", res)
	}
	if !errors.Is(res.Err(), context.Canceled) {
		t.Fatalf("Err() = %v", res.Err())
	}
	waitGone(t, readPidFile(t, pidFile))
}

func TestRunRefusesDoneContext(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	marker := filepath.Join(dir, "ran")
	s := script(t, dir, "s.sh", "touch "+marker+"\n")
	if _, err := Run(ctx, Spec{Argv: []string{s}, Dir: dir}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("child ran under a done context")
	}
}

func TestRunUnreadStdinDoesNotHang(t *testing.T) {
	dir := t.TempDir()
	big := bytes.Repeat([]byte("x"), 8<<20)
	res, err := Run(context.Background(), Spec{Argv: []string{"/bin/true"}, Dir: dir, Stdin: big, Timeout: MaxTimeout})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 || res.TimedOut {
		t.Fatalf("result %+v", res)
	}
}

func TestRunStreamsSeparateAndExitCode(t *testing.T) {
	dir := t.TempDir()
	s := script(t, dir, "s.sh", "echo out\necho err >&2\nexit 3\n")
	res, err := Run(context.Background(), Spec{Argv: []string{s}, Dir: dir, Timeout: MaxTimeout})
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Stdout) != "out\n" || string(res.Stderr) != "err\n" || res.ExitCode != 3 {
		t.Fatalf("result %+v", res)
	}
	if res.Err() == nil || res.Err().Error() != "exited with status 3" {
		t.Fatalf("Err() = %v", res.Err())
	}
}

func TestRunDirAndEmptyEnv(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SECRET_TOKEN", "hunter2")
	res, err := Run(context.Background(), Spec{Argv: []string{"/usr/bin/env"}, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Stdout) != 0 {
		t.Fatalf("nil Env must be empty, child saw %q", res.Stdout)
	}
	res, err = Run(context.Background(), Spec{Argv: []string{"/bin/pwd"}, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(dir)
	if got := strings.TrimSpace(string(res.Stdout)); got != dir && got != want {
		t.Fatalf("pwd %q, want %q", got, dir)
	}
}

// TestRunEnvLastEntryWins: a name given twice reaches the child once, with
// its last value, as os/exec has always passed it (execve would pass both,
// and most programs read the first).
func TestRunEnvLastEntryWins(t *testing.T) {
	dir := t.TempDir()
	res, err := Run(context.Background(), Spec{Argv: []string{"/usr/bin/env"}, Dir: dir, Env: []string{"A=1", "B=2", "A=3", "C=", "B=4"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(res.Stdout), "A=3\nC=\nB=4\n"; got != want {
		t.Fatalf("child environment %q, want %q", got, want)
	}
}

// TestRunExitStatuses: the leader's exit code comes through as it is. (A
// death by signal is -1 with the signal: TestRunTimeout and
// TestRunCancelKillsGroup; a leader cannot signal itself here, because in
// a PID namespace it is the namespace's init.)
func TestRunExitStatuses(t *testing.T) {
	dir := t.TempDir()
	for _, code := range []int{0, 1, 7, 255} {
		s := script(t, dir, "s.sh", fmt.Sprintf("exit %d\n", code))
		res, err := Run(context.Background(), Spec{Argv: []string{s}, Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if res.ExitCode != code || res.Signal != 0 {
			t.Errorf("exit %d: got exit %d signal %v", code, res.ExitCode, res.Signal)
		}
	}
}

// TestUnwaitableLeaderIsNeverSuccess: a leader whose status could not be
// read (someone else reaped it) is a failure with exit code -1, never the
// zero a blank wait status would read as.
func TestUnwaitableLeaderIsNeverSuccess(t *testing.T) {
	c := &child{waitErr: syscall.ECHILD}
	code, sig := c.exitStatus()
	if code != -1 || sig != 0 {
		t.Fatalf("exitStatus() = %d, %v; want -1, 0", code, sig)
	}
	res := &Result{ExitCode: code, Signal: sig}
	if res.Success() || res.Err() == nil || !strings.Contains(res.Err().Error(), "without an exit status") {
		t.Fatalf("result %+v: Success %v, Err %v", res, res.Success(), res.Err())
	}
}

func TestRunSpecErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		spec  Spec
		field string
	}{
		{Spec{Dir: dir}, "argv"},
		{Spec{Argv: []string{"sh"}, Dir: dir}, "argv[0]"},
		{Spec{Argv: []string{"./x"}, Dir: dir}, "argv[0]"},
		{Spec{Argv: []string{"/bin/echo", "a\x00b"}, Dir: dir}, "argv[1]"},
		{Spec{Argv: []string{"/bin/true"}}, "dir"},
		{Spec{Argv: []string{"/bin/true"}, Dir: "rel"}, "dir"},
		{Spec{Argv: []string{"/bin/true"}, Dir: dir, Env: []string{"NOEQUALS"}}, "env[0]"},
		{Spec{Argv: []string{"/bin/true"}, Dir: dir, Timeout: MaxTimeout + time.Second}, "timeout"},
		{Spec{Argv: []string{"/bin/true"}, Dir: dir, Timeout: -1}, "timeout"},
	}
	for _, c := range cases {
		_, err := Run(context.Background(), c.spec)
		var se *SpecError
		if !errors.As(err, &se) || se.Field != c.field {
			t.Errorf("%+v: err = %v, want a SpecError on %s", c.spec, err, c.field)
		}
	}
}

func TestRunStartError(t *testing.T) {
	dir := t.TempDir()
	_, err := Run(context.Background(), Spec{Argv: []string{filepath.Join(dir, "missing")}, Dir: dir})
	var se *StartError
	if !errors.As(err, &se) || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v", err)
	}
	_, err = Run(context.Background(), Spec{Argv: []string{"/bin/true"}, Dir: filepath.Join(dir, "nodir")})
	if !errors.As(err, &se) {
		t.Fatalf("err = %v", err)
	}
}

// startHelper re-executes the test binary as bundlectl in the given mode
// ("run" or "exec") and level, with child.sh from dir as its child. Its
// stdin is a pipe the test holds open.
func startHelper(t *testing.T, mode string, level ContainmentLevel, dir string) *exec.Cmd {
	t.Helper()
	helper := exec.Command(os.Args[0])
	helper.Env = append(os.Environ(), "HARNESS_TEST_HELPER="+mode, "HARNESS_TEST_DIR="+dir, "HARNESS_TEST_LEVEL="+level.String())
	stdin, err := helper.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close() })
	helper.Stdout, helper.Stderr = io.Discard, io.Discard
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = helper.Process.Kill(); _ = helper.Wait() })
	return helper
}

// TestRunChildDiesWithParent re-executes the test binary as a helper that
// starts a long child through Run; the helper is SIGKILLed and the child
// must die with it (Pdeathsig), at every level.
func TestRunChildDiesWithParent(t *testing.T) {
	for _, level := range allLevels {
		t.Run(level.String(), func(t *testing.T) {
			forceLevel(t, level) // skips a level the host lacks
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "pid")
			script(t, dir, "child.sh", recordPid(pidFile)+"\nexec sleep 1000\n")
			helper := startHelper(t, "run", level, dir)
			pid := readPidFile(t, pidFile)
			_ = helper.Process.Kill()
			_ = helper.Wait()
			waitGone(t, pid)
		})
	}
}

func TestExecPassthroughAndCancel(t *testing.T) {
	dir := t.TempDir()
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	defer closeAll(inR, inW, outR, outW)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *Result, 1)
	go func() {
		res, err := Exec(ctx, Spec{Argv: []string{"/bin/cat"}, Dir: dir}, Stdio{In: inR, Out: outW, Err: outW})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	if _, err := inW.Write([]byte("ping\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := io.ReadFull(outR, buf); err != nil || string(buf) != "ping\n" {
		t.Fatalf("read %q, %v", buf, err)
	}
	cancel()
	select {
	case res := <-done:
		if res == nil || !res.Canceled || res.Signal != syscall.SIGKILL {
			t.Fatalf("result %+v", res)
		}
	case <-time.After(hangGuard):
		t.Fatal("Exec did not return after cancel")
	}
}

// execScript runs body under Exec with stdout on a pipe, waits until the
// script printed "ready", sends SIGTERM to this process (Exec relays it),
// and returns the Result.
func execScript(t *testing.T, body string) *Result {
	t.Helper()
	dir := t.TempDir()
	outR, outW, _ := os.Pipe()
	defer closeAll(outR, outW)
	s := script(t, dir, "s.sh", body)
	done := make(chan *Result, 1)
	go func() {
		res, err := Exec(context.Background(), Spec{Argv: []string{s}, Dir: dir, Env: testEnv}, Stdio{Out: outW})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	buf := make([]byte, 6)
	if _, err := io.ReadFull(outR, buf); err != nil || string(buf) != "ready\n" {
		t.Fatalf("read %q, %v", buf, err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-done:
		if res == nil {
			t.FailNow()
		}
		return res
	case <-time.After(hangGuard):
		t.Fatal("Exec did not return after SIGTERM")
		return nil
	}
}

// TestExecForwardsSignals: a child that handles SIGTERM receives it, at
// every level (an init with a handler gets signals from outside its
// namespace).
func TestExecForwardsSignals(t *testing.T) {
	for _, level := range allLevels {
		t.Run(level.String(), func(t *testing.T) {
			forceLevel(t, level)
			res := execScript(t, "trap 'exit 7' TERM\necho ready\nsleep 1000 &\nwait\n")
			if res.ExitCode != 7 {
				t.Fatalf("result %+v, want exit 7 from the TERM trap", res)
			}
		})
	}
}

// TestExecKillsAfterSignalGrace: a child that ignores the forwarded
// signal is killed SignalGrace later. At a namespace level this is what
// happens to an init without a handler, the documented pid 1 semantics;
// below it, such a child dies of the signal itself.
func TestExecKillsAfterSignalGrace(t *testing.T) {
	testOnlySignalGrace = 100 * time.Millisecond
	defer func() { testOnlySignalGrace = 0 }()
	for _, level := range allLevels {
		t.Run(level.String(), func(t *testing.T) {
			forceLevel(t, level)
			if res := execScript(t, "trap '' TERM\necho ready\nexec sleep 1000\n"); res.Signal != syscall.SIGKILL {
				t.Fatalf("result %+v, want SIGKILL after the grace", res)
			}
			res := execScript(t, "echo ready\nexec sleep 1000\n")
			want := syscall.SIGTERM
			if level.Namespaced() {
				want = syscall.SIGKILL // pid 1 without a handler ignores SIGTERM
			}
			if res.Signal != want {
				t.Fatalf("result %+v, want %v", res, want)
			}
		})
	}
}

func TestLookPath(t *testing.T) {
	abs := t.TempDir()
	rel := t.TempDir()
	t.Chdir(rel)
	if err := os.Mkdir("bin", 0o755); err != nil {
		t.Fatal(err)
	}
	script(t, "bin", "tool", "exit 0\n")
	script(t, rel, "tool", "exit 0\n")
	if err := os.WriteFile(filepath.Join(abs, "plain"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Empty, "." and relative entries are skipped even though they hold
	// the command.
	path := strings.Join([]string{"", ".", "bin", abs}, string(os.PathListSeparator))
	if _, err := LookPath("tool", path); !errors.Is(err, exec.ErrNotFound) {
		t.Fatalf("found a command through a relative PATH entry: %v", err)
	}
	script(t, abs, "tool", "exit 0\n")
	got, err := LookPath("tool", path)
	if err != nil || got != filepath.Join(abs, "tool") {
		t.Fatalf("LookPath = %q, %v", got, err)
	}
	if _, err := LookPath("plain", abs); err == nil {
		t.Fatal("a non-executable file was found")
	}
	for _, bad := range []string{"", "./tool", "bin/tool", "/bin/sh", "..", "."} {
		var le *LookPathError
		if _, err := LookPath(bad, abs); !errors.As(err, &le) {
			t.Errorf("LookPath(%q) err = %v", bad, err)
		}
	}
}

// TestRunDoesNotWaitForAnEscapedProcess: at the process-group level a
// grandchild that leaves the group (setsid) survives the group kill — the
// documented limit of that level — but cannot keep Run waiting on the
// pipe it holds.
func TestRunDoesNotWaitForAnEscapedProcess(t *testing.T) {
	setsid, err := exec.LookPath("setsid")
	if err != nil {
		t.Skip("no setsid")
	}
	forceLevel(t, ContainProcessGroup)
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "escaped.pid")
	// The escaped process keeps stdout; the script exits once it has left.
	s := script(t, dir, "escape.sh", fmt.Sprintf("%s sh -c '%s; exec sleep 1000' &\n%s\n", setsid,
		strings.ReplaceAll(recordPid(pidFile), "'", `'\''`), waitFiles(pidFile)))
	res := noHang(t, "Run with an escaped process holding stdout", func() *Result {
		res, err := Run(context.Background(), Spec{Argv: []string{s}, Dir: dir, Env: testEnv, Timeout: MaxTimeout})
		if err != nil {
			t.Error(err)
		}
		return res
	})
	pid := readPidFile(t, pidFile)
	defer syscall.Kill(pid, syscall.SIGKILL)
	if res == nil || !res.OutputHeld || res.ExitCode != 0 {
		t.Fatalf("result %+v", res)
	}
	if processGone(pid) {
		t.Fatal("the escaped process is gone: the process-group level now covers setsid, update its documentation")
	}
}

func BenchmarkRunTrue(b *testing.B) {
	for _, level := range allLevels {
		b.Run(level.String(), func(b *testing.B) {
			forceLevel(b, level)
			dir := b.TempDir()
			for b.Loop() {
				res, err := Run(context.Background(), Spec{Argv: []string{"/bin/true"}, Dir: dir})
				if err != nil || res.ExitCode != 0 {
					b.Fatal(res, err)
				}
			}
		})
	}
}

// BenchmarkRunTrueContainmentRatio alternates a spawn at each level with
// one in a process group alone, so that both see the same machine load,
// and reports each cost and their ratio.
func BenchmarkRunTrueContainmentRatio(b *testing.B) {
	for _, level := range allLevels[:len(allLevels)-1] {
		b.Run(level.String(), func(b *testing.B) {
			forceLevel(b, level)
			dir := b.TempDir()
			var spent [2]time.Duration
			for b.Loop() {
				for i, l := range []ContainmentLevel{level, ContainProcessGroup} {
					testOnlyContainment = l
					start := time.Now()
					res, err := Run(context.Background(), Spec{Argv: []string{"/bin/true"}, Dir: dir})
					spent[i] += time.Since(start)
					if err != nil || res.ExitCode != 0 {
						b.Fatal(res, err)
					}
				}
			}
			b.ReportMetric(float64(spent[0].Nanoseconds())/float64(b.N), "level-ns/spawn")
			b.ReportMetric(float64(spent[1].Nanoseconds())/float64(b.N), "group-ns/spawn")
			b.ReportMetric(float64(spent[0])/float64(spent[1]), "ratio")
		})
	}
}

func TestExecCancelKillsGrandchild(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	s := script(t, dir, "s.sh", spawnRecorded("", pidFile)+"\nexec sleep 1000\n")
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := Exec(ctx, Spec{Argv: []string{s}, Dir: dir, Env: testEnv}, Stdio{In: devnull, Out: devnull, Err: devnull}); err != nil {
			t.Error(err)
		}
	}()
	pid := readPidFile(t, pidFile)
	cancel()
	select {
	case <-done:
	case <-time.After(hangGuard):
		t.Fatal("Exec did not return after cancel")
	}
	waitGone(t, pid)
}
