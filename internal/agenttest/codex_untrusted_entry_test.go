package agenttest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCodexUntrustedEntryNoAsk: Codex 0.171 started interactively, in a
// terminal, in a workspace whose [projects."<dir>"] entry in config.toml
// says trust_level = "untrusted" does not ask whether to trust the folder
// ("Trust this folder?", which it shows for a folder with no entry): it
// shows a "Folder access" notice whose choices are "Open restricted"
// ("Config, hooks, and exec policies from untrusted folders stay
// disabled … Opening will not change saved trust") and going back, and
// opened so it does not read the workspace's .codex/config.toml: its
// features.hooks = false leaves setup's lines (in the user's config.toml)
// running, and the guard blocks the marker command. The same file in a trusted workspace turns them off (the
// command runs): the file is what the untrusted entry keeps out. So
// bundlectl setup writes its lines there, and list calls them wired
// (hosts/codex projectTrust.refuses; TestSetupCodexHooksLayers for codex
// exec).
func TestCodexUntrustedEntryNoAsk(t *testing.T) {
	t.Parallel()
	for _, level := range []string{"untrusted", "trusted"} {
		t.Run(level, func(t *testing.T) {
			t.Parallel()
			marker := filepath.Join(t.TempDir(), markerName)
			a := New(t, Codex, ShellCall(Codex, "touch "+marker), Say("done"))
			f := newTrustedFixture(t, a, marker)
			f.runSetup(t, a, "hello")
			allowExecTools(a)
			writeFile(t, f.ws, ".codex/config.toml", "[features]\nhooks = false\n", 0o644)
			argv, env := interactiveCommand(t, a, "make the marker")
			setTrustLevel(t, a, level)
			dialogs := append([]string{"Trust this folder?"}, interactiveDialogs...)
			// The untrusted folder's notice offers no trust: open it
			// restricted (its first choice).
			answers := map[string]string{"1. Open restricted": "\r"}
			out := runPtyAnswering(t, a, argv, env, dialogs, answers, func() bool { return len(sessionCalls(a, 1)) > 0 })
			if level == "untrusted" && !strings.Contains(squash(out), squash("Opening will not change saved trust")) {
				t.Errorf("no restricted-folder notice: this test's premise (Codex 0.171) no longer holds\n%s", out)
			}
			res := &Result{Stdout: out, Exit: -1, Requests: a.Model.Requests()}
			if level == "trusted" {
				if _, err := os.Stat(marker); err != nil {
					t.Fatalf("a trusted workspace's features.hooks = false did not keep the guard from running: this test's premise (Codex 0.171) no longer holds\n%s\n%s", out, a.Model.Dump())
				}
				return
			}
			checkInteractiveGuard(t, a, f, res)
		})
	}
}

// setTrustLevel rewrites the trusted entry interactiveCommand wrote for
// a's working directory into config.toml to say level.
func setTrustLevel(t *testing.T, a *Agent, level string) {
	t.Helper()
	ws, err := filepath.EvalSymlinks(a.Workdir)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(a.ConfigDir(), "config.toml")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	entry := fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n", ws)
	if !strings.Contains(string(b), entry) {
		t.Fatalf("agenttest: no entry for %s in %s:\n%s", ws, file, b)
	}
	b = []byte(strings.Replace(string(b), entry, fmt.Sprintf("[projects.%q]\ntrust_level = %q\n", ws, level), 1))
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
