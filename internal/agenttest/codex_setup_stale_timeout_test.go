package agenttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/hosts/codex"
	"github.com/pelletier/go-toml/v2"
)

// TestSetupCodexStaleTimeout: hook lines an older `bundlectl setup codex`
// wrote (timeout 600, each trusted by its hash for 600) are run by the
// real Codex 0.171; setup run again replaces them with this bundlectl's
// timeout and rewrites their [hooks.state] trusted_hash, and the real
// Codex still runs the replaced lines (the guard blocks the marker
// command from the snapshot): none is skipped as untrusted.
func TestSetupCodexStaleTimeout(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), markerName)
	a := New(t, Codex, ShellCall(Codex, "touch "+marker), Say("done"))
	f := newTrustedFixture(t, a, marker)
	a.Command(t, "owls")
	userFile, _ := setupFiles(a)
	env := setupEnv(a)
	setup := func() string {
		out, errOut, err := BundlectlEnv(t, f.home, env, "--workspace", f.ws, "setup", "codex")
		if err != nil {
			t.Fatalf("bundlectl setup codex: %v\n%s%s", err, out, errOut)
		}
		return out
	}
	setup()
	current, err := os.ReadFile(userFile)
	if err != nil {
		t.Fatal(err)
	}

	// The block as the 600 s setup wrote it: each line's timeout 600 and
	// its trust hash for that line.
	var doc struct {
		Hooks map[string]any `toml:"hooks"`
	}
	if err := toml.Unmarshal(current, &doc); err != nil {
		t.Fatal(err)
	}
	old := strings.ReplaceAll(string(current), "\ntimeout = 86400\n", "\ntimeout = 600\n")
	for _, ev := range codex.Events {
		groups, _ := doc.Hooks[ev].([]any)
		if len(groups) == 0 {
			t.Fatalf("setup wrote no hook for %s:\n%s", ev, current)
		}
		g := groups[len(groups)-1].(map[string]any)
		cmd := g["hooks"].([]any)[0].(map[string]any)["command"].(string)
		old = strings.Replace(old, codex.HookHash(ev, "", cmd, codex.SetupHookTimeout, false), codex.HookHash(ev, "", cmd, 600, false), 1)
	}
	if strings.Contains(old, "86400") {
		t.Fatalf("the old-style block still has 86400:\n%s", old)
	}
	run := func(config string) {
		t.Helper()
		a.CodexConfig = config
		_ = os.Remove(filepath.Join(f.rec, "hook-argv.txt"))
		res := a.Run(t, "tell me about owls")
		f.checkGuard(t, a, res, 0)
	}
	// Codex trusts and runs the old lines: what is stale is their timeout.
	run(old)

	if err := os.WriteFile(userFile, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	out := setup()
	if !strings.Contains(out, "raised the hook lines' timeout from 600 s to 86400 s") {
		t.Errorf("setup did not say it raised the timeout:\n%s", out)
	}
	replaced, _ := os.ReadFile(userFile)
	if string(replaced) != string(current) {
		t.Errorf("setup did not replace the old lines with its own:\nwant:\n%s\ngot:\n%s", current, replaced)
	}
	// Codex trusts and runs the replaced lines.
	run(string(replaced))
}
