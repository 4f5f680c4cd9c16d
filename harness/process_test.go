package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

var testEnv = []string{"PATH=/usr/bin:/bin"}

// script writes an executable sh script into dir and returns its path.
func script(t testing.TB, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
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

func waitGone(t *testing.T, pid int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d still alive %s after the call returned", pid, within)
		}
		time.Sleep(10 * time.Millisecond)
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
	start := time.Now()
	res, err := Run(context.Background(), Spec{Argv: []string{flood}, Dir: dir, Env: testEnv, MaxOutput: limit, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 || res.TimedOut {
		t.Fatalf("exit %d timedOut %v after %s", res.ExitCode, res.TimedOut, time.Since(start))
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
	res, err := Run(context.Background(), Spec{Argv: []string{flood}, Dir: dir, Env: testEnv})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Stdout) != DefaultMaxOutput || !res.StdoutTruncated || res.StderrTruncated {
		t.Fatalf("stdout len %d truncated %v stderr truncated %v", len(res.Stdout), res.StdoutTruncated, res.StderrTruncated)
	}
}

func TestRunTimeout(t *testing.T) {
	dir := t.TempDir()
	sleeper := script(t, dir, "sleep.sh", "echo started\nexec sleep 30\n")
	start := time.Now()
	res, err := Run(context.Background(), Spec{Argv: []string{sleeper}, Dir: dir, Env: testEnv, Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Fatalf("took %s", el)
	}
	if !res.TimedOut || res.Canceled || res.ExitCode != -1 || res.Signal != syscall.SIGKILL {
		t.Fatalf("result %+v", res)
	}
	if string(res.Stdout) != "started\n" {
		t.Fatalf("output before the timeout lost: %q", res.Stdout)
	}
	err = res.Err()
	var ee *ExitError
	if !errors.As(err, &ee) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Err() = %v", err)
	}
	if !strings.Contains(err.Error(), "timed out after 200ms") {
		t.Fatalf("message %q", err)
	}
}

func readPid(t *testing.T, out []byte) int {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || pid <= 1 {
		t.Fatalf("no grandchild pid in %q", out)
	}
	return pid
}

func TestRunKillsGrandchildOnNormalExit(t *testing.T) {
	dir := t.TempDir()
	// The grandchild inherits stdout: without the group kill Run would
	// wait 60 s for EOF.
	spawner := script(t, dir, "spawn.sh", "sleep 60 &\necho $!\nexit 0\n")
	start := time.Now()
	res, err := Run(context.Background(), Spec{Argv: []string{spawner}, Dir: dir, Env: testEnv, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("Run waited %s for a grandchild holding stdout", el)
	}
	if res.ExitCode != 0 || res.TimedOut || res.OutputHeld {
		t.Fatalf("result %+v", res)
	}
	waitGone(t, readPid(t, res.Stdout), 2*time.Second)
}

func TestRunKillsGrandchildOnTimeout(t *testing.T) {
	dir := t.TempDir()
	spawner := script(t, dir, "spawn.sh", "sleep 60 >/dev/null 2>&1 &\necho $!\nsleep 60\n")
	res, err := Run(context.Background(), Spec{Argv: []string{spawner}, Dir: dir, Env: testEnv, Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut {
		t.Fatalf("result %+v", res)
	}
	waitGone(t, readPid(t, res.Stdout), 2*time.Second)
}

func TestRunCancelKillsGroupWithinOneSecond(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	spawner := script(t, dir, "spawn.sh", "sleep 60 &\necho $! > "+pidFile+"\nsleep 60\n")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for {
			if data, err := os.ReadFile(pidFile); err == nil && bytes.HasSuffix(data, []byte("\n")) {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	canceledAt := make(chan time.Time, 1)
	go func() { <-ctx.Done(); canceledAt <- time.Now() }()
	res, err := Run(ctx, Spec{Argv: []string{spawner}, Dir: dir, Env: testEnv, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	returned := time.Now()
	if !res.Canceled || res.TimedOut {
		t.Fatalf("result %+v", res)
	}
	if d := returned.Sub(<-canceledAt); d > time.Second {
		t.Fatalf("Run returned %s after cancel", d)
	}
	if !errors.Is(res.Err(), context.Canceled) {
		t.Fatalf("Err() = %v", res.Err())
	}
	data, _ := os.ReadFile(pidFile)
	waitGone(t, readPid(t, data), time.Second)
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
	res, err := Run(context.Background(), Spec{Argv: []string{"/bin/true"}, Dir: dir, Stdin: big, Timeout: 10 * time.Second})
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
	res, err := Run(context.Background(), Spec{Argv: []string{s}, Dir: dir})
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

// TestRunChildDiesWithParent re-executes the test binary as a helper that
// starts a long child through Run; the helper is SIGKILLed and the child
// must die with it (Pdeathsig).
func TestRunChildDiesWithParent(t *testing.T) {
	if os.Getenv("HARNESS_TEST_HELPER") == "1" {
		dir := os.Getenv("HARNESS_TEST_DIR")
		s := filepath.Join(dir, "child.sh")
		_, _ = Run(context.Background(), Spec{Argv: []string{s}, Dir: dir, Env: testEnv, Timeout: 60 * time.Second})
		os.Exit(0)
	}
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	script(t, dir, "child.sh", "echo $$ > "+pidFile+".tmp\nmv "+pidFile+".tmp "+pidFile+"\nexec sleep 60\n")
	helper := exec.Command(os.Args[0], "-test.run=^TestRunChildDiesWithParent$")
	helper.Env = append(os.Environ(), "HARNESS_TEST_HELPER=1", "HARNESS_TEST_DIR="+dir)
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	deadline := time.Now().Add(10 * time.Second)
	for {
		if data, err := os.ReadFile(pidFile); err == nil {
			pid = readPid(t, data)
			break
		}
		if time.Now().After(deadline) {
			_ = helper.Process.Kill()
			t.Fatal("helper never started its child")
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // let the child reach exec sleep
	_ = helper.Process.Kill()
	_ = helper.Wait()
	waitGone(t, pid, 2*time.Second)
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
	if _, err := outR.Read(buf); err != nil || string(buf) != "ping\n" {
		t.Fatalf("read %q, %v", buf, err)
	}
	start := time.Now()
	cancel()
	select {
	case res := <-done:
		if res == nil || !res.Canceled || res.Signal != syscall.SIGKILL {
			t.Fatalf("result %+v", res)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Exec did not return after cancel")
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("cancel took %s", d)
	}
}

func TestExecForwardsSignals(t *testing.T) {
	dir := t.TempDir()
	outR, outW, _ := os.Pipe()
	defer closeAll(outR, outW)
	s := script(t, dir, "s.sh", "echo ready\nexec sleep 30\n")
	done := make(chan *Result, 1)
	go func() {
		res, err := Exec(context.Background(), Spec{Argv: []string{s}, Dir: dir, Env: testEnv}, Stdio{Out: outW})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	buf := make([]byte, 6)
	if _, err := outR.Read(buf); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // until exec sleep
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-done:
		if res == nil || res.Signal != syscall.SIGTERM {
			t.Fatalf("result %+v", res)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("SIGTERM was not forwarded")
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

// TestRunDoesNotWaitForAnEscapedProcess: a grandchild that leaves the
// group (setsid) survives the group kill — the documented limit — but
// cannot keep Run waiting on the pipe it holds.
func TestRunDoesNotWaitForAnEscapedProcess(t *testing.T) {
	setsid, err := exec.LookPath("setsid")
	if err != nil {
		t.Skip("no setsid")
	}
	dir := t.TempDir()
	s := script(t, dir, "escape.sh", setsid+" sleep 60 &\necho $!\nsleep 0.3\n") // time to leave the group
	start := time.Now()
	res, err := Run(context.Background(), Spec{Argv: []string{s}, Dir: dir, Env: testEnv})
	if err != nil {
		t.Fatal(err)
	}
	if pid, err := strconv.Atoi(strings.TrimSpace(string(res.Stdout))); err == nil {
		defer syscall.Kill(pid, syscall.SIGKILL)
	}
	if el := time.Since(start); el > DrainGrace+2*time.Second {
		t.Fatalf("Run waited %s", el)
	}
	if !res.OutputHeld || res.ExitCode != 0 {
		t.Fatalf("result %+v", res)
	}
}

func BenchmarkRunTrue(b *testing.B) {
	dir := b.TempDir()
	for b.Loop() {
		res, err := Run(context.Background(), Spec{Argv: []string{"/bin/true"}, Dir: dir})
		if err != nil || res.ExitCode != 0 {
			b.Fatal(res, err)
		}
	}
}

func TestExecCancelKillsGrandchild(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	s := script(t, dir, "s.sh", "sleep 60 &\necho $! > "+pidFile+".tmp\nmv "+pidFile+".tmp "+pidFile+"\nsleep 60\n")
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
	var data []byte
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if data, err = os.ReadFile(pidFile); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatal("child never wrote its grandchild's pid")
		}
	}
	cancel()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("Exec did not return after cancel")
	}
	waitGone(t, readPid(t, data), time.Second)
}
