package agenttest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestGeminiSessionSavesSettings: a running Gemini CLI 0.61 session that
// saves a setting writes back the copy of the user's settings.json it
// read when it started (its saveSettings writes the loaded
// originalSettings over the file, deleting each key the copy lacks,
// comments kept), so hook lines `bundlectl setup gemini` wrote after the
// session started are gone. Tried offline with an ACP session (gemini
// --acp, as an editor runs it), whose authenticate request saves
// security.auth.selectedType; an interactive session saves the same way
// (/settings, /theme, /vim, /editor, /auth: read from its code, and
// tried, TestGeminiInteractiveSavesSettings and
// TestGeminiDialogSavesSettings). bundlectl
// cannot stop that; `list` says the lines are gone and its hint, setup
// run again, puts them back (docs/gemini-cli.md).
func TestGeminiSessionSavesSettings(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), markerName)
	a := New(t, GeminiCLI, Say("done"))
	f := newTrustedFixture(t, a, marker)
	argv, env := a.Command(t, "unused") // writes the offline settings.json
	argv = append(argv[:len(argv)-2], "--acp")
	userFile, _ := setupFiles(a)

	s := startACP(t, a, argv, env)
	s.call(t, 1, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})

	// setup wires the guards while the session runs: list is content.
	// The session trusts the folder (GEMINI_CLI_TRUST_WORKSPACE, as
	// Agent sets it), and so does list here: in one no rule decides yet
	// it would report the lines off (TestGeminiUndecidedFolder).
	senv := append(setupEnv(a), "GEMINI_CLI_TRUST_WORKSPACE=true")
	if out, errOut, err := BundlectlEnv(t, f.home, senv, "--workspace", f.ws, "setup", "gemini"); err != nil {
		t.Fatalf("setup: %v\n%s%s", err, out, errOut)
	}
	if st := setupStatus(t, f, senv); st != nil {
		t.Fatalf("list right after setup reports %v", st)
	}

	// The session saves a setting: its copy, without the lines.
	s.call(t, 2, "authenticate", map[string]any{"methodId": "gemini-api-key"})
	data, err := os.ReadFile(userFile)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "hooks run") {
		t.Fatalf("Gemini CLI kept setup's lines when the session saved its settings: this test's premise no longer holds\n%s", data)
	}
	st := setupStatus(t, f, senv)
	if st == nil || st["status"] != "gone" || !strings.HasSuffix(fmt.Sprint(st["hint"]), "setup gemini") {
		t.Fatalf("list after the session saved its settings: %v, want status gone with the hint to run setup again\n%s", st, data)
	}
	// The hint, run, puts them back.
	if out, errOut, err := BundlectlEnv(t, f.home, senv, "--workspace", f.ws, "setup", "gemini"); err != nil {
		t.Fatalf("setup again: %v\n%s%s", err, out, errOut)
	}
	if st := setupStatus(t, f, senv); st != nil {
		t.Errorf("list after setup ran again reports %v", st)
	}
}

// setupStatus is the gemini entry of `bundlectl list --json`'s setup,
// nil when there is none.
func setupStatus(t *testing.T, f *execFixture, env []string) map[string]any {
	t.Helper()
	out, errOut, err := BundlectlEnv(t, f.home, env, "--workspace", f.ws, "list", "--json")
	if err != nil {
		t.Fatalf("list --json: %v\n%s%s", err, out, errOut)
	}
	var l struct {
		Setup []map[string]any `json:"setup"`
	}
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("list --json: %v\n%s", err, out)
	}
	for _, s := range l.Setup {
		if s["host"] == "gemini" {
			return s
		}
	}
	return nil
}

// acpSession is a Gemini CLI started with --acp: JSON-RPC requests on
// its stdin, answers and notifications one per line on its stdout.
type acpSession struct {
	in  io.WriteCloser
	out *bufio.Scanner
	cmd *exec.Cmd
}

func startACP(t *testing.T, a *Agent, argv, env []string) *acpSession {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = env, a.Workdir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<24)
	return &acpSession{in: in, out: sc, cmd: cmd}
}

// call sends one request and reads lines until its answer, failing the
// test on an error answer or the end of the output. Only the hang guard
// bounds it: the session is killed then, which ends the output.
func (s *acpSession) call(t *testing.T, id int, method string, params any) {
	t.Helper()
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if _, err := s.in.Write(append(req, '\n')); err != nil {
		t.Fatalf("acp %s: %v", method, err)
	}
	guard := timeAfterKill(s.cmd)
	defer guard.Stop()
	for s.out.Scan() {
		var m struct {
			ID    *int            `json:"id"`
			Error json.RawMessage `json:"error"`
		}
		if json.Unmarshal(s.out.Bytes(), &m) != nil || m.ID == nil || *m.ID != id {
			continue
		}
		if len(m.Error) > 0 {
			t.Fatalf("acp %s answered an error: %s", method, m.Error)
		}
		return
	}
	t.Fatalf("acp %s: the session ended (or passed the %v hang guard) without an answer", method, HangGuard)
}

// timeAfterKill kills cmd's process group at the hang guard.
func timeAfterKill(cmd *exec.Cmd) *time.Timer {
	return time.AfterFunc(HangGuard, func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
}

// TestGeminiInteractiveSavesSettings: the same in an interactive session
// in a terminal: /vim, typed after setup wired the guards, saves
// general.vimMode and writes back the settings the session read when it
// started, without setup's lines; list says they are gone.
func TestGeminiInteractiveSavesSettings(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script(1) is not installed")
	}
	marker := filepath.Join(t.TempDir(), markerName)
	a := New(t, GeminiCLI, Say("done"))
	f := newTrustedFixture(t, a, marker)
	argv, env := a.Command(t, "unused")
	argv = argv[:len(argv)-2] // no -p: interactive
	userFile, _ := setupFiles(a)

	var line strings.Builder
	line.WriteString("stty rows 40 cols 120; exec ")
	for _, x := range argv {
		line.WriteString(shellQuote(x) + " ")
	}
	cmd := exec.Command("script", "-qfec", line.String(), "/dev/null")
	cmd.Env, cmd.Dir = append(env, "TERM=xterm-256color"), a.Workdir
	var screen syncBuffer
	cmd.Stdout, cmd.Stderr = &screen, &screen
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		in.Close()
		// script(1) puts gemini in a session of its own: its group is
		// gemini's pid's, which ps finds under script.
		killSessionUnder(cmd.Process.Pid)
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	})
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		guard := time.After(HangGuard)
		for !ok() {
			select {
			case <-exited:
				t.Fatalf("gemini exited before %s\n%s", what, screen.String())
			case <-guard:
				t.Fatalf("no %s within the %v hang guard\n%s", what, HangGuard, screen.String())
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	waitFor("prompt", func() bool { return strings.Contains(squash(screen.String()), squash("Type your message")) })

	// The session trusts the folder (GEMINI_CLI_TRUST_WORKSPACE, as
	// Agent sets it), and so does list here: in one no rule decides yet
	// it would report the lines off (TestGeminiUndecidedFolder).
	senv := append(setupEnv(a), "GEMINI_CLI_TRUST_WORKSPACE=true")
	if out, errOut, err := BundlectlEnv(t, f.home, senv, "--workspace", f.ws, "setup", "gemini"); err != nil {
		t.Fatalf("setup: %v\n%s%s", err, out, errOut)
	}
	if st := setupStatus(t, f, senv); st != nil {
		t.Fatalf("list right after setup reports %v", st)
	}
	io.WriteString(in, "/vim")
	// The completion names the command once Gemini CLI has loaded its
	// commands; before that an Enter sends "/vim" to the model.
	waitFor("/vim's completion", func() bool { return strings.Contains(squash(screen.String()), squash("Toggle vim mode on/off")) })
	// Enter, again while nothing is saved: one may go to the command
	// completion the typing opened, and an Enter on an empty line does
	// nothing.
	waitFor("vimMode saved", func() bool {
		data, _ := os.ReadFile(userFile)
		if strings.Contains(string(data), "vimMode") {
			return true
		}
		io.WriteString(in, "\r")
		return false
	})
	data, _ := os.ReadFile(userFile)
	if strings.Contains(string(data), "hooks run") {
		t.Fatalf("Gemini CLI kept setup's lines when /vim saved its settings: this test's premise no longer holds\n%s", data)
	}
	if st := setupStatus(t, f, senv); st == nil || st["status"] != "gone" {
		t.Fatalf("list after /vim saved the settings: %v, want status gone\n%s", st, data)
	}
}

// killSessionUnder SIGKILLs the process group of each child of pid
// (script(1)'s child leads a session and group of its own).
func killSessionUnder(pid int) {
	out, err := exec.Command("ps", "-o", "pid=", "--ppid", fmt.Sprint(pid)).Output()
	if err != nil {
		return
	}
	for _, f := range strings.Fields(string(out)) {
		var child int
		if _, err := fmt.Sscan(f, &child); err == nil && child > 1 {
			syscall.Kill(-child, syscall.SIGKILL)
		}
	}
}
