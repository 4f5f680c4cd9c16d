package agenttest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// shellProbe is a hook command that appends, to rec/shell, the argv of the
// shell running it (from /proc, NUL bytes as spaces) and "bash" when that
// shell is bash.
func shellProbe(rec string) string {
	return fmt.Sprintf(`printf '%%s|%%s\n' "$(tr '\0' ' ' < /proc/$$/cmdline)" "${BASH_VERSION:+bash}" >> %s`, filepath.Join(rec, "shell"))
}

// hostPlugin writes a plugin of host's format with hooks (a hooks.json
// "hooks" object) where that host loads it, and a copy of it as the
// workspace bundle pluginName; it returns the agent, configured to load
// the plugin.
func hostPlugin(t *testing.T, h Host, hooks map[string]any, script ...Turn) *Agent {
	t.Helper()
	a := New(t, h, script...)
	file := map[string]any{"hooks": hooks}
	ws := filepath.Join(a.Workdir, ".bundlectl", "bundles", pluginName)
	switch h {
	case Claude:
		src := filepath.Join(t.TempDir(), pluginName)
		for _, dir := range []string{src, ws} {
			writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
			writeJSONFile(t, dir, "hooks/hooks.json", file)
		}
		a.Args = []string{"--plugin-dir", src, "--allowedTools", "Bash"}
	case Codex:
		root := versionDir(filepath.Join(a.ConfigDir(), "plugins", "cache"))
		for _, dir := range []string{root, ws} {
			writeJSONFile(t, dir, ".codex-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
			writeJSONFile(t, dir, "hooks/hooks.json", file)
		}
		a.CodexConfig = fmt.Sprintf("[plugins.%q]\nenabled = true\n", codexPluginID)
		a.Args = []string{"-c", "features.plugins=true", "--dangerously-bypass-hook-trust"}
	case GeminiCLI:
		for _, dir := range []string{filepath.Join(a.ConfigDir(), "extensions", pluginName), ws} {
			writeJSONFile(t, dir, "gemini-extension.json", map[string]any{"name": pluginName, "version": "1.0.0"})
			writeJSONFile(t, dir, "hooks/hooks.json", file)
		}
	}
	return a
}

// TestHookWhichShell: the shell each host runs a shell-form command hook
// with, found by trying (the hook reads its own argv from /proc), with
// $SHELL unset and set to a bash under another name: Claude Code 2.1.332
// runs /bin/sh -c, Codex 0.171 the user's shell from the password
// database (here root's /bin/bash) with -c, Gemini CLI 0.61 bash -c
// (bash from PATH). None of them reads $SHELL. harness/hookshell.go
// follows this.
func TestHookWhichShell(t *testing.T) {
	t.Parallel()
	probe := filepath.Join(t.TempDir(), "probesh")
	if err := os.Symlink("/bin/bash", probe); err != nil {
		t.Fatal(err)
	}
	want := map[Host]string{Claude: "/bin/sh -c ", Codex: "/bin/bash -c ", GeminiCLI: "bash -c "}
	if sh := passwdShellOf(t); sh != "/bin/bash" {
		t.Skipf("the user's login shell is %q, not the /bin/bash these facts were found with", sh)
	}
	for _, h := range []Host{Claude, Codex, GeminiCLI} {
		for _, shell := range []string{"", probe} {
			rec := t.TempDir()
			a := hostPlugin(t, h, map[string]any{"SessionStart": []any{map[string]any{
				"hooks": []any{map[string]any{"type": "command", "command": shellProbe(rec)}}}}}, Say("done"))
			if shell != "" {
				a.Env = append(a.Env, "SHELL="+shell)
			}
			res := a.Run(t, "hello")
			b, err := os.ReadFile(filepath.Join(rec, "shell"))
			if err != nil {
				t.Fatalf("%s ran no SessionStart hook: %v\n%s", h, err, res)
			}
			if got := string(b); !strings.HasPrefix(got, want[h]) {
				t.Errorf("%s (SHELL=%q) ran the hook as %q, want %q…", h, shell, got, want[h])
			}
		}
	}
}

func passwdShellOf(t *testing.T) string {
	b, err := os.ReadFile("/etc/passwd")
	if err != nil {
		t.Skip(err)
	}
	uid := fmt.Sprint(os.Getuid())
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Split(l, ":"); len(f) == 7 && f[2] == uid {
			return f[6]
		}
	}
	return ""
}

// bashGuard blocks (exit 2) a tool call that mentions the marker, with a
// test only bash has: under dash, "[[" is a command not found (127), the
// && list stops there, and the hook exits 0 — the tool runs. It saves the
// input the host gave it as rec/input.
func bashGuard(rec string) string {
	return fmt.Sprintf(`input=$(cat); printf '%%s' "$input" > %s; [[ $input == *%s* ]] && { echo blocked by the bash guard >&2; exit 2; }; exit 0`,
		filepath.Join(rec, "input"), markerName)
}

// TestHookShellParity: a guard written for bash blocks the marker's shell
// command in each host; `bundlectl hooks run --host <host>`, given the
// input the host gave the guard, must decide alike, and so must the host
// started through `bundlectl exec` (its view runs `bundlectl hooks exec`,
// which runs the string). bundlectl ran every shell-form hook with
// /bin/sh -c, where this guard (for Codex and Gemini CLI, whose hosts run
// bash) exited 0 and let the command through, both ways.
func TestHookShellParity(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		h      Host
		event  string
		match  string
		blocks bool // hooks run blocks too: the host's shell is bash
	}{
		{Claude, "PreToolUse", "Bash", false},
		{Codex, "PreToolUse", "Bash", true},
		{GeminiCLI, "BeforeTool", "run_shell_command", true},
	} {
		t.Run(string(tc.h), func(t *testing.T) {
			t.Parallel()
			rec := t.TempDir()
			marker := filepath.Join(rec, markerName)
			a := hostPlugin(t, tc.h, map[string]any{tc.event: []any{map[string]any{"matcher": tc.match,
				"hooks": []any{map[string]any{"type": "command", "command": bashGuard(rec)}}}}},
				ShellCall(tc.h, "touch "+marker), Say("done"))
			res := a.Run(t, "touch it")
			input, err := os.ReadFile(filepath.Join(rec, "input"))
			if err != nil {
				t.Fatalf("%s ran no %s hook: %v\n%s", tc.h, tc.event, err, res)
			}
			// Claude Code runs it with /bin/sh (dash here): the guard
			// fails open in the host itself, and bundlectl does the same.
			if _, err := os.Stat(marker); (err == nil) == tc.blocks {
				t.Fatalf("%s: marker made %v, want %v\n%s\n%s", tc.h, err == nil, !tc.blocks, res, a.Model.Dump())
			}

			home := filepath.Join(t.TempDir(), "bundlectl-home")
			t.Cleanup(func() { Writable(home) })
			trustBundle(t, home, a.Workdir, pluginName)
			ctx, cancel := context.WithTimeout(context.Background(), HangGuard)
			defer cancel()
			cmd := exec.CommandContext(ctx, Bundlectl(t), "--home", home, "--workspace", a.Workdir, "hooks", "run", tc.event, "--host", string(tc.h))
			cmd.Env = append(os.Environ(), "BUNDLECTL_HOME="+home)
			cmd.Stdin = bytes.NewReader(input)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err = cmd.Run()
			code := cmd.ProcessState.ExitCode()
			if blocked := code == 2; blocked != tc.blocks {
				t.Errorf("bundlectl hooks run %s --host %s: exit %d (%v), blocked %v; %s blocked %v\n%s%s", tc.event, tc.h, code, err, blocked, tc.h, tc.blocks, stdout.Bytes(), stderr.Bytes())
			}

			// Through bundlectl exec the host runs `bundlectl hooks exec`,
			// which runs the string: it must block alike.
			marker2 := filepath.Join(rec, markerName+"-exec")
			b := New(t, tc.h, ShellCall(tc.h, "touch "+marker2), Say("done"))
			ws := filepath.Join(b.Workdir, ".bundlectl", "bundles")
			if err := os.MkdirAll(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(filepath.Join(a.Workdir, ".bundlectl", "bundles", pluginName), filepath.Join(ws, pluginName)); err != nil {
				t.Fatal(err)
			}
			home2 := filepath.Join(t.TempDir(), "bundlectl-home")
			t.Cleanup(func() { Writable(home2) })
			trustBundle(t, home2, b.Workdir, pluginName)
			allowExecTools(b)
			b.Launcher = execLauncher(t, home2, b.Workdir)
			res = b.Run(t, "touch it")
			if _, err := os.Stat(marker2); (err == nil) == tc.blocks {
				t.Errorf("bundlectl exec -- %s: marker made %v; %s itself blocked %v\n%s\n%s", tc.h, err == nil, tc.h, tc.blocks, res, b.Model.Dump())
			}
		})
	}
}
