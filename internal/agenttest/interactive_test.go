package agenttest

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Interactive sessions: the agents as most people run them, in a terminal,
// with no -p or exec subcommand. The CLI runs in a pseudo-terminal made by
// script(1); the test waits for the model stand-in's requests, never for
// the clock, and then ends the session.

// interactiveCommand is Agent.Command for an interactive session on
// prompt: the initial prompt as the CLI takes it on its command line, and
// the configuration that keeps its first-run and trust dialogs away.
func interactiveCommand(t testing.TB, a *Agent, prompt string) (argv, env []string) {
	t.Helper()
	argv, env = a.Command(t, prompt)
	switch a.Host {
	case Claude:
		// Command starts with claude -p prompt; the prompt alone, first
		// (--allowedTools would take a later one as a value), starts an
		// interactive session on it.
		argv = append([]string{argv[0], prompt}, argv[3:]...)
		// ~/.claude.json: onboarding done, the working directory trusted,
		// the API key in the environment approved.
		ws, err := filepath.EvalSymlinks(a.Workdir)
		if err != nil {
			t.Fatal(err)
		}
		key := "sk-ant-agenttest"
		writeJSONFile(t, a.Home, ".claude.json", map[string]any{
			"hasCompletedOnboarding": true,
			"theme":                  "dark",
			"projects": map[string]any{
				ws:        map[string]any{"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true},
				a.Workdir: map[string]any{"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true},
			},
			"customApiKeyResponses": map[string]any{"approved": []string{key[len(key)-min(20, len(key)):]}},
		})
	case Codex:
		// Command starts with codex exec --skip-git-repo-check; the TUI
		// takes neither, and asks instead whether to trust the folder
		// unless config.toml already does.
		if argv[1] != "exec" || argv[2] != "--skip-git-repo-check" {
			t.Fatalf("agenttest: unexpected codex command %q", argv)
		}
		argv = append([]string{argv[0]}, argv[3:]...)
		ws, err := filepath.EvalSymlinks(a.Workdir)
		if err != nil {
			t.Fatal(err)
		}
		// The model-upgrade notice for Command's model, acknowledged.
		a.CodexConfig += fmt.Sprintf("\n[projects.%q]\ntrust_level = \"trusted\"\n\n[notice.model_migrations]\n\"gpt-5.5\" = \"gpt-6-sol\"\n", ws)
		if err := os.WriteFile(filepath.Join(a.ConfigDir(), "config.toml"), []byte(a.CodexConfig), 0o644); err != nil {
			t.Fatal(err)
		}
	case GeminiCLI:
		argv = append(argv[:len(argv)-2], "-i", prompt) // Command ends with -p prompt
	}
	return argv, append(env, "TERM=xterm-256color")
}

// runPty runs argv (the agent's, behind a.Launcher) in a pseudo-terminal
// (script(1)) in a's working directory until done reports true or the
// program exits, then ends it, and returns what the terminal showed. It
// ends the session as a user's terminal would: SIGTERM to the program
// script started (bundlectl, or the agent it became), whose exit the test
// waits for — bundlectl passes it on and removes its session — and then
// SIGKILL to whatever is left in the group. stdin is kept open: an
// interactive session waits for input.
//
// A dialog is text (compared without escape sequences and white space)
// that shows the session waits for an answer the test will not give: the
// test fails at once, naming it.
func runPty(t testing.TB, a *Agent, argv, env []string, dialogs []string, done func() bool) string {
	t.Helper()
	return runPtyAnswering(t, a, argv, env, dialogs, nil, done)
}

// runPtyAnswering is runPty that, the first time the screen shows a key
// of answers (compared as dialogs are), types its value once.
func runPtyAnswering(t testing.TB, a *Agent, argv, env []string, dialogs []string, answers map[string]string, done func() bool) string {
	t.Helper()
	var list []ptyAnswer
	for prompt, keys := range answers {
		list = append(list, ptyAnswer{prompt: prompt, keys: keys})
	}
	return runPtyAnswers(t, a, argv, env, dialogs, list, done)
}

// ptyAnswer is keys to type once the screen shows prompt (compared as
// dialogs are). With taken set, they are typed again, a second's polls
// after the last time, for as long as taken reports they were not: a key
// typed while the TUI still reads its terminal's replies can be lost,
// and the screen, which only grows, cannot tell.
type ptyAnswer struct {
	prompt, keys string
	taken        func() bool
}

// runPtyAnswers is runPty typing answers.
func runPtyAnswers(t testing.TB, a *Agent, argv, env []string, dialogs []string, answers []ptyAnswer, done func() bool) string {
	t.Helper()
	since := map[int]int{} // polls since an answer was last typed, by index
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script(1) is not installed")
	}
	if len(a.Launcher) > 0 {
		argv = append(append([]string(nil), a.Launcher...), argv...)
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	var line strings.Builder
	// script(1) sizes the terminal from its own stdin, a pipe here: 0x0,
	// in which Codex draws nothing. The shell sets a size, writes its pid,
	// then becomes the program: that pid is the program's.
	fmt.Fprintf(&line, "stty rows 40 cols 120; echo $$ > '%s'; exec ", pidFile)
	for _, x := range argv {
		line.WriteString(shellQuote(x) + " ")
	}
	cmd := exec.Command("script", "-qfec", line.String(), "/dev/null")
	cmd.Env = env
	cmd.Dir = a.Workdir
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	defer func() {
		killProgramGroup(pidFile) // script(1) puts the program in a session of its own
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	}()
	guard := time.After(HangGuard)
	for !done() {
		screen := squash(out.String())
		for i, ans := range answers {
			if !strings.Contains(screen, squash(ans.prompt)) {
				continue
			}
			n, typed := since[i]
			since[i] = n + 1
			if !typed || ans.taken != nil && n >= 10 && !ans.taken() {
				since[i] = 0
				io.WriteString(in, ans.keys)
			}
		}
		for _, d := range dialogs {
			if strings.Contains(screen, squash(d)) {
				t.Fatalf("agenttest: interactive %s waits on a dialog: %q\n%s\n%s", a.Host, d, out.String(), a.Model.Dump())
			}
		}
		select {
		case <-exited:
			return out.String()
		case <-guard:
			t.Fatalf("agenttest: interactive %s did not get that far within the %v hang guard\n%s\n%s", a.Host, HangGuard, out.String(), a.Model.Dump())
		case <-time.After(100 * time.Millisecond):
		}
	}
	b, err := os.ReadFile(pidFile)
	pid, perr := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || perr != nil || pid <= 0 {
		t.Fatalf("agenttest: no pid in %s (%v %v)", pidFile, err, perr)
	}
	syscall.Kill(pid, syscall.SIGTERM)
	select {
	case <-exited:
	case <-guard:
		t.Fatalf("agenttest: interactive %s still running after SIGTERM, at the %v hang guard\n%s", a.Host, HangGuard, out.String())
	}
	return out.String()
}

// squash drops a terminal's escape sequences and all white space: a TUI
// moves the cursor between words instead of writing spaces.
func squash(s string) string {
	s = ansiSeq.ReplaceAllString(s, "")
	return strings.Join(strings.Fields(s), "")
}

var ansiSeq = regexp.MustCompile(`\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])`)

// syncBuffer is a bytes.Buffer that script's output and the test may use
// at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// interactiveDialogs are the dialogs seen while writing these tests.
var interactiveDialogs = []string{
	// Claude Code 2.1.332's default auto mode checks a tool call on the
	// server; the stand-in cannot answer that check.
	"Enter to stay in auto mode",
	// Codex 0.171's model-upgrade notice (interactiveCommand acknowledges it).
	"1. Try new model",
}

// sessionCalls is Model.CallsAt(n) without Codex's title requests: the
// TUI asks the model for a thread title beside the session, offering it a
// tool, so the stand-in answers those from the script too (Codex refuses
// the call: "unsupported call").
func sessionCalls(a *Agent, n int) []Request {
	var out []Request
	for _, r := range a.Model.CallsAt(n) {
		if !bytes.Contains(r.Body, []byte(`"codex_output_schema"`)) {
			out = append(out, r)
		}
	}
	return out
}

// checkInteractiveGuard is execFixture.checkGuard for a session whose
// script is the marker command alone: the marker was not made, the guard
// ran from the snapshot, and its reason reached the model in the
// session's next request.
func checkInteractiveGuard(t *testing.T, a *Agent, f *execFixture, res *Result) {
	t.Helper()
	f.checkBlockedFromSnapshot(t, a, res)
	rs := sessionCalls(a, 1)
	if len(rs) == 0 || !rs[len(rs)-1].Contains(blockReason) {
		t.Errorf("the guard's reason did not reach the model\n%s\n%s", res, a.Model.Dump())
	}
}

// TestExecInteractive: under bundlectl exec -- claude and -- codex, in an
// interactive session in a terminal, the trusted plugin's PreToolUse guard
// runs from the snapshot and blocks the marker command the model asks to
// run, and its reason reaches the model, as in TestExec. The same session
// without bundlectl runs the command: nothing else in an interactive
// session (a permission dialog, a folder-trust prompt) stops it, so the
// guard is what does.
func TestExecInteractive(t *testing.T) {
	t.Parallel()
	for _, h := range []Host{Claude, Codex} {
		t.Run(string(h), func(t *testing.T) {
			t.Parallel()
			for _, mode := range []string{"unguarded", "exec", "exec-auto-mode"} {
				guarded := mode != "unguarded"
				if mode == "exec-auto-mode" && h != Claude {
					continue
				}
				t.Run(mode, func(t *testing.T) {
					marker := filepath.Join(t.TempDir(), markerName)
					a := New(t, h, ShellCall(h, "touch "+marker), Say("done"))
					f := newTrustedFixture(t, a, marker)
					allowExecTools(a)
					if h == Claude && mode != "exec-auto-mode" {
						// Auto mode, Claude Code 2.1.332's default, sets
						// --allowedTools Bash aside and asks the server
						// (interactiveDialogs), so that without a guard
						// the command would wait for an answer; the guard
						// runs before that check.
						a.Args = append(a.Args, "--permission-mode", "default")
					}
					if guarded {
						a.Launcher = f.launcher(t)
					}
					argv, env := interactiveCommand(t, a, "make the marker")
					out := runPty(t, a, argv, env, interactiveDialogs, func() bool { return len(sessionCalls(a, 1)) > 0 })
					res := &Result{Stdout: out, Exit: -1, Requests: a.Model.Requests()}
					if !guarded {
						if _, err := os.Stat(marker); err != nil {
							t.Fatalf("without bundlectl the interactive session did not run the marker command\n%s\n%s", out, a.Model.Dump())
						}
						return
					}
					checkInteractiveGuard(t, a, f, res)
					f.checkLeftovers(t, a)
				})
			}
		})
	}
}

// TestExecInteractiveTamper: TestExecTamper in an interactive session.
// The model replaces the snapshot's guard (a command the intact guard lets
// through), then asks for the marker command: bundlectl's check of the
// snapshot fails, the event is blocked with a reason naming the bundle,
// and the replaced guard never runs.
func TestExecInteractiveTamper(t *testing.T) {
	t.Parallel()
	for _, h := range []Host{Claude, Codex} {
		t.Run(string(h), func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			marker := filepath.Join(tmp, markerName)
			a := New(t, h)
			f := newTrustedFixture(t, a, marker)
			snap := f.snapshot(t)
			writeFile(t, tmp, "evil-guard", "#!/bin/sh\ntouch "+f.tamper+"\nexit 0\n", 0o755)
			guard := filepath.Join(snap, "bin", "guard.sh")
			tamper := fmt.Sprintf("chmod u+w %s && cat %s > %s", guard, filepath.Join(tmp, "evil-guard"), guard)
			a.Model.Script = []Turn{ShellCall(h, tamper), ShellCall(h, "touch "+marker), Say("done")}
			allowExecTools(a)
			if h == Claude {
				a.Args = append(a.Args, "--permission-mode", "default")
			}
			a.Launcher = f.launcher(t)
			argv, env := interactiveCommand(t, a, "tamper, then make the marker")
			out := runPty(t, a, argv, env, interactiveDialogs, func() bool { return len(sessionCalls(a, 2)) > 0 })
			res := &Result{Stdout: out, Exit: -1, Requests: a.Model.Requests()}

			if b, err := os.ReadFile(guard); err != nil || !strings.Contains(string(b), f.tamper) {
				t.Fatalf("the tamper command did not replace the snapshot's guard (%v)\n%s\n%s", err, res, a.Model.Dump())
			}
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("the guarded command ran after the snapshot was tampered with\n%s\n%s", res, a.Model.Dump())
			}
			if _, err := os.Stat(f.tamper); err == nil {
				t.Errorf("the tampered guard ran")
			}
			rs := sessionCalls(a, 2)
			if len(rs) == 0 || !rs[len(rs)-1].Contains("cannot run, so the event is blocked") || !rs[len(rs)-1].Contains(pluginName) {
				t.Errorf("the block reason naming the bundle did not reach the model\n%s\n%s", res, a.Model.Dump())
			}
			f.checkLeftovers(t, a)
		})
	}
}
