package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A Ctrl-C during a one-shot `bundlectl run` stops the tool with its
// process group and ends bundlectl by SIGINT, so the script that called
// it stops too: bash goes on after a job that exited 1, as run did before.
func TestRunCtrlCStopsCallingScript(t *testing.T) {
	ready := filepath.Join(t.TempDir(), "ready")
	bin, ws, env := exampleFixture(t, func(ws string) {
		g := filepath.Join(ws, ".bundlectl/bundles/repo-guard")
		tool := "#!/bin/sh\n: > '" + ready + "'\nexec sleep 1000\n"
		if err := os.WriteFile(filepath.Join(g, "tools/word-count"), []byte(tool), 0o755); err != nil {
			t.Fatal(err)
		}
		// The tool's own timeout (10 s) must not end it first on a busy machine.
		m := filepath.Join(g, "plugin.json")
		b, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(m, []byte(strings.Replace(string(b), `"timeout_sec": 10`, `"timeout_sec": 600`, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
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
