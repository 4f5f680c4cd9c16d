package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A Ctrl-C during a one-shot `bundlectl run` stops the tool with its
// process group and ends bundlectl by SIGINT, so the script that called
// it stops too: bash goes on after a job that exited 1, as run did before.
func TestRunCtrlCStopsCallingScript(t *testing.T) {
	ready := filepath.Join(t.TempDir(), "ready")
	bin, ws, env := exampleFixture(t, func(ws string) {
		replaceRepoGuardFile(t, ws, "tools/word-count", "#!/bin/sh\n: > '"+ready+"'\nexec sleep 1000\n")
	})
	argv := []string{bin, "--workspace", ws, "run", "repo-guard", "word-count", "--input", `{"text":"a"}`}
	out := ctrlCStopsScript(t, argv, env, func(*screen) {
		for {
			if _, err := os.Stat(ready); err == nil {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
	if want := `tool "word-count" was stopped with its process group: interrupted by SIGINT`; !strings.Contains(out, want) {
		t.Errorf("the terminal does not say %q:\n%s", want, out)
	}
}

// A guard is the other way round: a Ctrl-C that stops `hooks run` while
// its hook runs must still block the event (exit 2 and a deny), since a
// host reads a hook that died of a signal as one that failed, and goes on
// with the tool call.
func TestHooksRunInterruptedBlocks(t *testing.T) {
	ready := filepath.Join(t.TempDir(), "ready")
	bin, ws, env := exampleFixture(t, func(ws string) {
		g := filepath.Join(ws, ".bundlectl/bundles/repo-guard")
		hook := "#!/bin/sh\ncat >/dev/null\n: > '" + ready + "'\nexec sleep 1000\n"
		if err := os.WriteFile(filepath.Join(g, "hooks/guard"), []byte(hook), 0o755); err != nil {
			t.Fatal(err)
		}
		m := filepath.Join(g, "plugin.json")
		b, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(m, []byte(strings.Replace(string(b), `"timeout": 10`, `"timeout": 600`, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	cmd := exec.Command(bin, "hooks", "run", "PreToolUse")
	cmd.Env = env
	cmd.Stdin = strings.NewReader(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"},"cwd":` + strconv.Quote(ws) + `}`)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(ready); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("hooks run ended with %v, want exit status 2 (block)\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), `"permissionDecision":"deny"`) {
		t.Errorf("no deny on stdout:\n%s\nstderr: %s", stdout.String(), stderr.String())
	}
}
