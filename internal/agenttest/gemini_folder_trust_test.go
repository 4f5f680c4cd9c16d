package agenttest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runInteractive starts Gemini CLI interactively on prompt (-i), in a
// pseudo-terminal (script(1)), and stops it once the model stand-in has
// its first request — the BeforeAgent hooks have had their turn by then —
// or once it exits. It returns what the terminal showed.
func runInteractive(t *testing.T, a *Agent, prompt string) string {
	t.Helper()
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script(1) is not installed")
	}
	argv, env := a.Command(t, prompt)
	argv = append(argv[:len(argv)-2], "-i", prompt) // Command ends with -p prompt
	// script(1) starts the program in a session of its own, which a kill
	// of script's process group does not reach: the shell writes its pid,
	// then becomes the program, whose group stop kills.
	pidFile := filepath.Join(t.TempDir(), "pid")
	var line strings.Builder
	line.WriteString("echo $$ > " + shellQuote(pidFile) + "; exec ")
	for _, x := range argv {
		line.WriteString(shellQuote(x) + " ")
	}
	cmd := exec.Command("script", "-qfec", line.String(), "/dev/null")
	cmd.Env = append(env, "TERM=xterm-256color")
	cmd.Dir = a.Workdir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	in, err := cmd.StdinPipe() // kept open: the session waits for input
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	stop := func() {
		killProgramGroup(pidFile)
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
	guard := time.After(HangGuard)
	for len(a.Model.Requests()) == 0 {
		select {
		case <-done:
			killProgramGroup(pidFile) // what the program left behind
			return out.String()
		case <-guard:
			stop()
			t.Fatalf("agenttest: interactive gemini sent no request within the %v hang guard\n%s", HangGuard, out.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
	stop()
	return out.String()
}

// killProgramGroup SIGKILLs the process group of the program whose pid
// the shell under script(1) wrote to pidFile (see runInteractive): the
// program and whatever it started, which Gemini CLI, deaf to SIGTERM,
// would otherwise leave running after the test.
func killProgramGroup(pidFile string) {
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return
	}
	if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 1 {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
}

// shellQuote quotes s as one word for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestGeminiUntrustedFolderSettings: with folder trust on (Gemini CLI
// 0.61's default) and a working directory trustedFolders.json does not
// trust, Gemini CLI
//   - without a terminal (-p) stops at once (exit 55), running nothing,
//     and so does it through bundlectl exec: no guard is skipped;
//   - in an interactive session still loads the extensions and runs
//     their hooks, but reads the workspace's .gemini/settings.json as
//     empty: the user's hooksConfig.enabled false decides alone, and no
//     hook runs. bundlectl exec, which cannot know what the user will
//     answer or has answered, refuses to start when only the workspace's
//     settings turn hooks back on (hosts/gemini trustsFolder; the script
//     exec_hooks_off covers the ways to trust the folder);
//   - with --skip-trust starts, but still reads the workspace's settings
//     as empty: the switch is read after the settings.
func TestGeminiUntrustedFolderSettings(t *testing.T) {
	t.Parallel()
	userOff := map[string]any{"hooksConfig": map[string]any{"enabled": false}}
	for _, tc := range []struct {
		name  string
		trust string
		user  map[string]any
		ran   bool
	}{
		{"untrusted", "DO_NOT_TRUST", nil, true},
		{"untrusted-workspace-on", "DO_NOT_TRUST", userOff, false},
		{"trusted-workspace-on", "TRUST_FOLDER", userOff, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := t.TempDir()
			a := New(t, GeminiCLI, Say("done"))
			dir := filepath.Join(a.ConfigDir(), "extensions", "ext1")
			beforeAgentExtension(t, dir, "ext1", "touch "+filepath.Join(rec, "ext1"))
			a.Settings = tc.user
			a.Env = []string{"GEMINI_CLI_TRUST_WORKSPACE="}
			ws, err := filepath.EvalSymlinks(a.Workdir)
			if err != nil {
				t.Fatal(err)
			}
			writeJSONFile(t, a.ConfigDir(), "trustedFolders.json", map[string]any{ws: tc.trust})
			writeJSONFile(t, a.Workdir, ".gemini/settings.json", map[string]any{"hooksConfig": map[string]any{"enabled": true}})
			out := runInteractive(t, a, "hello")
			if len(a.Model.Requests()) == 0 {
				t.Fatalf("the interactive session sent the model nothing\n%s", out)
			}
			if ran := len(ranOwn(t, rec)) > 0; ran != tc.ran {
				t.Errorf("the extension's hook ran: %v, want %v\n%s", ran, tc.ran, out)
			}
		})
	}

	// --skip-trust lets a -p session start in the untrusted folder, but
	// Gemini CLI has read its settings before its arguments: the
	// workspace's are still empty, and the user's false keeps the hook off.
	t.Run("skip-trust", func(t *testing.T) {
		rec := t.TempDir()
		a := New(t, GeminiCLI, Say("done"))
		dir := filepath.Join(a.ConfigDir(), "extensions", "ext1")
		beforeAgentExtension(t, dir, "ext1", "touch "+filepath.Join(rec, "ext1"))
		a.Settings = userOff
		a.Env = []string{"GEMINI_CLI_TRUST_WORKSPACE="}
		a.Args = []string{"--skip-trust"}
		writeJSONFile(t, a.Workdir, ".gemini/settings.json", map[string]any{"hooksConfig": map[string]any{"enabled": true}})
		res := a.Run(t, "hello")
		if res.Exit != 0 || len(a.Model.Requests()) == 0 {
			t.Fatalf("with --skip-trust: %s", res)
		}
		if got := ranOwn(t, rec); len(got) != 0 {
			t.Errorf("the extension's hook ran: the workspace's settings were read\n%s", res)
		}
	})

	t.Run("headless", func(t *testing.T) {
		t.Parallel()
		marker := filepath.Join(t.TempDir(), markerName)
		a := New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+marker), Say("done"))
		f := newTrustedFixture(t, a, marker)
		a.Env = []string{"GEMINI_CLI_TRUST_WORKSPACE="}
		for _, launcher := range [][]string{nil, f.launcher(t)} {
			a.Launcher = launcher
			res := a.Run(t, "tell me about owls")
			if res.Exit != 55 || len(a.Model.Requests()) > 0 || !strings.Contains(res.Stderr, "Gemini CLI is not running in a trusted directory") {
				t.Errorf("launcher %q: want exit 55 before any model request, got exit %d, %d requests\n%s", launcher, res.Exit, len(a.Model.Requests()), res)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("the marker exists")
			}
		}
	})

	t.Run("exec-refuses", func(t *testing.T) {
		marker := filepath.Join(t.TempDir(), markerName)
		a := New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+marker), Say("done"))
		f := newTrustedFixture(t, a, marker)
		a.Settings = userOff
		a.Env = []string{"GEMINI_CLI_TRUST_WORKSPACE="}
		writeJSONFile(t, a.Workdir, ".gemini/settings.json", map[string]any{"hooksConfig": map[string]any{"enabled": true}})
		a.Launcher = f.launcher(t)
		res := a.Run(t, "tell me about owls")
		if res.Exit != 1 || len(a.Model.Requests()) > 0 || !strings.Contains(res.Stderr, "but Gemini CLI reads it only in a folder it trusts") {
			t.Errorf("exec did not refuse: exit %d, %d requests\n%s", res.Exit, len(a.Model.Requests()), res)
		}
		// --skip-trust starts the session in the untrusted folder with
		// the workspace's settings still read as empty, so it is refused
		// too; GEMINI_CLI_TRUST_WORKSPACE=true trusts the folder for the
		// session, and the guard works.
		a.Args = []string{"--skip-trust"}
		res = a.Run(t, "tell me about owls")
		if res.Exit != 1 || len(a.Model.Requests()) > 0 {
			t.Errorf("exec did not refuse --skip-trust: exit %d, %d requests\n%s", res.Exit, len(a.Model.Requests()), res)
		}
		a.Args = nil
		a.Env = []string{"GEMINI_CLI_TRUST_WORKSPACE=true"}
		res = a.Run(t, "tell me about owls")
		if res.Exit != 0 {
			t.Fatalf("with GEMINI_CLI_TRUST_WORKSPACE=true: %s", res)
		}
		f.checkGuard(t, a, res, 0)
	})
}

// beforeAgentExtension writes a Gemini CLI extension called name in dir
// whose one hook runs command on BeforeAgent, the first event of a turn.
func beforeAgentExtension(t *testing.T, dir, name, command string) {
	t.Helper()
	writeJSONFile(t, dir, "gemini-extension.json", map[string]any{"name": name, "version": "1.0.0"})
	writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"BeforeAgent": []any{map[string]any{
		"hooks": []any{map[string]any{"type": "command", "command": command}}}}}})
}
