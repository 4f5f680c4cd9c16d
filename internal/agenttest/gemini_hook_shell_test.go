package agenttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeminiHooksNeedBash: Gemini CLI 0.61 runs every command hook as
// `bash -c <command>`, bash looked up in its PATH (its
// getShellConfiguration; not /bin/sh). With no bash there the hook
// cannot start, Gemini CLI takes that for a hook that failed without
// blocking, and the tool it guards runs: here a BeforeTool hook that
// would block write_file. bundlectl exec refuses to start Gemini CLI
// when a view has hooks and no bash is in the PATH it gives it
// (hosts/gemini hooksOff).
func TestGeminiHooksNeedBash(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	// A PATH holding node (which runs Gemini CLI) and nothing else.
	noBash := t.TempDir()
	if err := os.Symlink(node, filepath.Join(noBash, "node")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		path    string
		blocked bool
	}{
		{"bash", os.Getenv("PATH"), true},
		{"no-bash", noBash, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := New(t, GeminiCLI)
			target := filepath.Join(a.Workdir, "written")
			a.Model = NewModel(t, GeminiCLI.API(), Call("write_file", map[string]any{"file_path": target, "content": "x"}), Say("done"))
			dir := filepath.Join(a.ConfigDir(), "extensions", "ext1")
			writeJSONFile(t, dir, "gemini-extension.json", map[string]any{"name": "ext1", "version": "1.0.0"})
			writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"BeforeTool": []any{map[string]any{
				"matcher": "write_file",
				"hooks":   []any{map[string]any{"type": "command", "command": "echo blocked by the guard >&2; exit 2"}}}}}})
			a.Env = []string{"PATH=" + tc.path}
			res := a.Run(t, "write it")
			if res.Exit != 0 {
				t.Fatalf("Gemini CLI: %s", res)
			}
			_, err := os.Stat(target)
			if blocked := err != nil; blocked != tc.blocked {
				t.Errorf("write_file blocked: %v, want %v\n%s\n%s", blocked, tc.blocked, res, a.Model.Dump())
			}
		})
	}

	t.Run("exec-refuses", func(t *testing.T) {
		marker := filepath.Join(t.TempDir(), markerName)
		a := New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+marker), Say("done"))
		f := newTrustedFixture(t, a, marker)
		a.Launcher = f.launcher(t)
		a.Env = []string{"PATH=" + noBash}
		res := a.Run(t, "tell me about owls")
		if res.Exit != 1 || len(a.Model.Requests()) > 0 {
			t.Fatalf("exec started Gemini CLI (exit %d, %d model requests) with no bash to run the guards\n%s", res.Exit, len(a.Model.Requests()), res)
		}
		if want := "Gemini CLI runs every hook with bash"; !strings.Contains(res.Stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.Stderr)
		}
	})
}
