package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair: the master, read and written by
// the test as a user's keyboard and screen, and the slave a child gets as
// its controlling terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

// screen collects what the child writes to its terminal.
type screen struct {
	buf  bytes.Buffer
	more chan []byte
}

func watch(m *os.File) *screen {
	s := &screen{more: make(chan []byte, 64)}
	go func() {
		for {
			b := make([]byte, 4096)
			n, err := m.Read(b)
			if n > 0 {
				s.more <- b[:n]
			}
			if err != nil {
				close(s.more)
				return
			}
		}
	}()
	return s
}

// waitFor reads the screen until it shows want; the bound is a hang guard.
func (s *screen) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(5 * time.Minute)
	for !strings.Contains(s.buf.String(), want) {
		select {
		case b, ok := <-s.more:
			if !ok {
				t.Fatalf("the terminal closed before showing %q:\n%s", want, s.buf.String())
			}
			s.buf.Write(b)
		case <-deadline:
			t.Fatalf("the terminal never showed %q:\n%s", want, s.buf.String())
		}
	}
}

// promptFixture is a workspace with one bundle declaring a sensitive
// option, and the command that prompts for it on the terminal slave.
func promptFixture(t *testing.T, slave *os.File, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := exec.LookPath("bundlectl")
	if err != nil {
		t.Skipf("no bundlectl on PATH: %v", err)
	}
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	p := filepath.Join(ws, ".bundlectl", "bundles", "p", ".claude-plugin")
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := `{"name": "p", "version": "1.0.0", "userConfig": {"key": {"type": "string", "title": "Key", "description": "a key", "sensitive": true}}}`
	if err := os.WriteFile(filepath.Join(p, "plugin.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	if len(args) == 0 {
		args = []string{"key"}
	}
	cmd := exec.Command(exe, append([]string{"--workspace", ws, "configure", "p"}, args...)...)
	cmd.Env = append(os.Environ(), "BUNDLECTL_HOME="+filepath.Join(dir, "home"))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	return cmd
}

// startPrompt starts configure on a fresh terminal and waits for its
// hidden prompt.
func startPrompt(t *testing.T) (master, slave *os.File, cmd *exec.Cmd, scr *screen) {
	return startConfigure(t, "(not shown): ")
}

// startConfigure starts configure p with args (default: key) on a fresh
// terminal and waits for the screen to show want.
func startConfigure(t *testing.T, want string, args ...string) (master, slave *os.File, cmd *exec.Cmd, scr *screen) {
	t.Helper()
	master, slave = openPTY(t)
	cmd = promptFixture(t, slave, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	scr = watch(master)
	scr.waitFor(t, want)
	return master, slave, cmd, scr
}

// storedValue is the value configure stored for key in cmd's home ("" and
// false when none is).
func storedValue(t *testing.T, cmd *exec.Cmd, key string) (string, bool) {
	t.Helper()
	home := strings.TrimPrefix(cmd.Env[len(cmd.Env)-1], "BUNDLECTL_HOME=")
	files, _ := filepath.Glob(filepath.Join(home, "config", "*.json"))
	if len(files) != 1 {
		return "", false
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Values map[string]string }
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	v, ok := doc.Values[key]
	return v, ok
}

// Ctrl-C at configure's hidden prompt ends it as the signal does, and
// leaves the terminal echoing again.
func TestPromptCtrlCRestoresEcho(t *testing.T) {
	master, slave, cmd, _ := startPrompt(t)
	if _, err := master.Write([]byte("sec\x03")); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGINT {
		t.Fatalf("configure ended with %v, want death by SIGINT", err)
	}
	tio, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	if tio.Lflag&unix.ECHO == 0 {
		t.Fatal("the terminal was left without echo")
	}
}

// A value that fills the terminal's line buffer may have been cut by the
// terminal: it is refused, nothing is stored, and --stdin is named.
func TestPromptRefusesALineTheTerminalMayHaveCut(t *testing.T) {
	master, _, cmd, scr := startPrompt(t)
	if _, err := master.Write(append(bytes.Repeat([]byte("a"), 5000), '\n')); err != nil {
		t.Fatal(err)
	}
	scr.waitFor(t, "configure --stdin key p")
	// The hint works as printed: it holds no placeholder for a file.
	scr.waitFor(t, "bundlectl: hint: ")
	hint := func() string { _, h, _ := strings.Cut(scr.buf.String(), "bundlectl: hint: "); return h }
	for !strings.Contains(hint(), "\n") {
		b, ok := <-scr.more
		if !ok {
			t.Fatalf("the terminal closed inside the hint line:\n%s", scr.buf.String())
		}
		scr.buf.Write(b)
	}
	if h, _, _ := strings.Cut(hint(), "\n"); strings.TrimSpace(h) != "bundlectl configure --help" {
		t.Fatalf("hint %q, want bundlectl configure --help", h)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("configure ended with %v, want exit 2", err)
	}
	if !strings.Contains(scr.buf.String(), "as long as a terminal line can be") || strings.Contains(scr.buf.String(), "aaaa") || strings.Contains(scr.buf.String(), "< FILE") {
		t.Fatalf("screen:\n%s", scr.buf.String())
	}
}

// --stdin KEY on a terminal reads the value as the prompt does, without
// echo: the command the README and the hints name never shows the secret.
func TestStdinOnTerminalDoesNotEcho(t *testing.T) {
	master, _, cmd, scr := startConfigure(t, "(not shown; end it with Ctrl-D on a line of its own): ", "--stdin", "key")
	if _, err := master.Write([]byte("typed-s3cret\n\x04")); err != nil {
		t.Fatal(err)
	}
	scr.waitFor(t, `"key" (string, sensitive): set`)
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(scr.buf.String(), "typed-s3cret") {
		t.Fatalf("the value was echoed:\n%s", scr.buf.String())
	}
}

// An empty line or the end of input at the prompt stores nothing: the
// value stored before is kept, not replaced with "", and the message says
// so.
func TestPromptEmptyOrEOFStoresNothing(t *testing.T) {
	for name, typed := range map[string]string{"empty line": "\n", "end of input": "\x04"} {
		t.Run(name, func(t *testing.T) {
			master, slave := openPTY(t)
			cmd := promptFixture(t, slave)
			store := exec.Command(cmd.Path, append(cmd.Args[1:len(cmd.Args)-1:len(cmd.Args)-1], "--stdin", "key")...)
			store.Env, store.Stdin = cmd.Env, strings.NewReader("old-value")
			if out, err := store.CombinedOutput(); err != nil {
				t.Fatalf("storing a value first: %v\n%s", err, out)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			scr := watch(master)
			scr.waitFor(t, "(not shown): ")
			if _, err := master.Write([]byte(typed)); err != nil {
				t.Fatal(err)
			}
			scr.waitFor(t, "nothing was stored")
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 2 {
				t.Fatalf("configure ended with %v, want exit 2", err)
			}
			if v, ok := storedValue(t, cmd, "key"); !ok || v != "old-value" {
				t.Fatalf("the stored value is now %d bytes (set %v), want the one stored before", len(v), ok)
			}
		})
	}
}

// A key the bundle does not declare is refused before a value is asked for.
func TestPromptUndeclaredKeyRefusedFirst(t *testing.T) {
	for _, args := range [][]string{{"nope"}, {"--stdin", "nope"}} {
		_, _, cmd, scr := startConfigure(t, "is not declared by the bundle", args...)
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() == 0 {
			t.Fatalf("%v: configure ended with %v, want a failure", args, err)
		}
		if strings.Contains(scr.buf.String(), "(not shown)") {
			t.Fatalf("%v: prompted before refusing the key:\n%s", args, scr.buf.String())
		}
	}
}

// --stdin KEY on a terminal reads up to the end of input, as from a pipe: a
// value pasted in several lines is stored whole, and none of its lines is
// left in the terminal's input for the shell to read, echo and run.
func TestStdinOnTerminalReadsEveryLine(t *testing.T) {
	master, slave, cmd, scr := startConfigure(t, "(not shown", "--stdin", "key")
	if _, err := master.Write([]byte("-----BEGIN-----\nmiddle-s3cret\n-----END-----\n\x04")); err != nil {
		t.Fatal(err)
	}
	scr.waitFor(t, `"key" (string, sensitive): set`)
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(scr.buf.String(), "s3cret") {
		t.Fatalf("the value was echoed:\n%s", scr.buf.String())
	}
	if v, _ := storedValue(t, cmd, "key"); v != "-----BEGIN-----\nmiddle-s3cret\n-----END-----" {
		t.Errorf("stored %d bytes, want the 43 pasted", len(v))
	}
	fd := int(slave.Fd()) // once: each Fd call makes the file blocking again
	if err := unix.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	if n, _ := unix.Read(fd, make([]byte, 4096)); n > 0 {
		t.Errorf("%d bytes of the value were left in the terminal's input", n)
	}
}

// A configure started ignoring SIGINT (a script's background job) keeps
// ignoring it at its hidden prompt: Ctrl-C neither ends it nor turns echo
// back on for the rest of the value. It used to catch the signal, restore
// the terminal and then, its own signal ignored, read on with echo on.
func TestPromptKeepsIgnoredInterrupt(t *testing.T) {
	master, slave := openPTY(t)
	cmd := promptFixture(t, slave)
	cmd.Args = append([]string{"sh", "-c", `trap "" INT; exec "$0" "$@"`, cmd.Path}, cmd.Args[1:]...)
	cmd.Path = "/bin/sh"
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	scr := watch(master)
	scr.waitFor(t, "(not shown): ")
	if !ignored(t, fmt.Sprintf("/proc/%d/status", cmd.Process.Pid), syscall.SIGINT) {
		t.Fatal("configure started ignoring SIGINT no longer ignores it at the prompt")
	}
	// The terminal drops the line typed before Ctrl-C.
	if _, err := master.Write([]byte("sec\x03")); err != nil {
		t.Fatal(err)
	}
	if _, err := master.Write([]byte("typed-s3cret\n")); err != nil {
		t.Fatal(err)
	}
	scr.waitFor(t, `"key" (string, sensitive): set`)
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(scr.buf.String(), "typed-s3cret") {
		t.Fatalf("the value was echoed:\n%s", scr.buf.String())
	}
	if v, _ := storedValue(t, cmd, "key"); v != "typed-s3cret" {
		t.Fatalf("stored %d bytes, want the line typed after Ctrl-C", len(v))
	}
}

// Ctrl-\ at configure's hidden prompt ends it with exit status 131 and
// echo back on, as quietly as Ctrl-C: it used to end in Go's crash report
// for SIGQUIT (a goroutine dump, exit 2; a core holding the value typed
// so far with GOTRACEBACK=crash).
func TestPromptQuitExitsQuietly(t *testing.T) {
	master, slave, cmd, scr := startPrompt(t)
	if _, err := master.Write([]byte("sec\x1c")); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 128+int(syscall.SIGQUIT) {
		t.Fatalf("configure ended with %v, want exit status %d", err, 128+int(syscall.SIGQUIT))
	}
	// All configure wrote is on the screen before this.
	if _, err := slave.Write([]byte("--end--")); err != nil {
		t.Fatal(err)
	}
	scr.waitFor(t, "--end--")
	if strings.Contains(scr.buf.String(), "goroutine") {
		t.Fatalf("configure printed a crash report:\n%s", scr.buf.String())
	}
	tio, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	if tio.Lflag&unix.ECHO == 0 {
		t.Fatal("the terminal was left without echo")
	}
}
