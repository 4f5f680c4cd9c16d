package agenttest

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGeminiUndecidedFolder: with folder trust on (Gemini CLI 0.61's
// default) and no trustedFolders.json rule for the working directory, an
// interactive session started with a prompt (-i) asks "Do you trust the
// files in this folder?" before it sends anything. Answered "Trust
// folder", it writes the TRUST_FOLDER rule; the session that started
// untrusted runs no settings hook, and what it does next varies (it
// restarts trusted, or first sends the prompt untrusted: here the user's
// settings.json holds a BeforeAgent hook that blocks every prompt, beside
// setup's lines, so such a request is a turn no settings hook saw), so
// that is not asserted. What does not vary is: trustedFolders.json holds
// the one TRUST_FOLDER rule for the folder, and the next session there
// runs the settings hooks (the user's blocks its prompt). (A -p session
// there stops at once: TestGeminiUntrustedFolderSettings headless.) list
// reports setup's lines off in such a folder, with a hint that starts
// gemini there, and says nothing once the rule is written. The control:
// in a folder a rule trusts, the same session's hook blocks the prompt.
func TestGeminiUndecidedFolder(t *testing.T) {
	t.Parallel()
	t.Run("trusted-control", func(t *testing.T) {
		t.Parallel()
		a, argv, env := blockingUserHookSession(t)
		ws, err := filepath.EvalSymlinks(a.Workdir)
		if err != nil {
			t.Fatal(err)
		}
		writeJSONFile(t, a.ConfigDir(), "trustedFolders.json", map[string]any{ws: "TRUST_FOLDER"})
		g := startGeminiTTY(t, argv, env, a.Workdir)
		g.waitShown(t, userBlockReason)
		if sentPrompt(a, "hello") {
			t.Fatalf("the user's hook did not block the prompt in a trusted folder: this test's premise no longer holds\n%s", g.screen.String())
		}
	})
	// What list's hint does: gemini started there with no prompt asks
	// first, and the answer writes the rule that ends the report.
	t.Run("hint", func(t *testing.T) {
		t.Parallel()
		a, argv, env := blockingUserHookSession(t)
		f := newTrustedFixture(t, a, filepath.Join(t.TempDir(), markerName))
		senv := append(setupEnv(a), "GEMINI_CLI_TRUST_WORKSPACE=")
		if out, errOut, err := BundlectlEnv(t, f.home, senv, "--workspace", f.ws, "setup", "gemini"); err != nil {
			t.Fatalf("setup: %v\n%s%s", err, out, errOut)
		}
		g := startGeminiTTY(t, argv[:len(argv)-2], env, a.Workdir) // no -i
		g.waitShown(t, "Do you trust the files in this folder?")
		g.keys("\r")
		g.waitFor(t, "the TRUST_FOLDER rule", func() bool {
			rules, _ := os.ReadFile(filepath.Join(a.ConfigDir(), "trustedFolders.json"))
			return strings.Contains(string(rules), "TRUST_FOLDER")
		})
		if st := setupStatus(t, f, senv); st != nil {
			t.Errorf("list once the folder is trusted: %v, want nothing", st)
		}
	})
	a, argv, env := blockingUserHookSession(t)
	f := newTrustedFixture(t, a, filepath.Join(t.TempDir(), markerName))
	ws, err := filepath.EvalSymlinks(a.Workdir)
	if err != nil {
		t.Fatal(err)
	}

	// setup after the agent's own settings are written, as a user would.
	senv := append(setupEnv(a), "GEMINI_CLI_TRUST_WORKSPACE=")
	if out, errOut, err := BundlectlEnv(t, f.home, senv, "--workspace", f.ws, "setup", "gemini"); err != nil {
		t.Fatalf("setup: %v\n%s%s", err, out, errOut)
	}
	st := setupStatus(t, f, senv)
	if hint, _ := st["hint"].(string); st["status"] != "off" || !strings.HasSuffix(hint, " && gemini") {
		t.Fatalf("list in a folder no rule decides: %v, want status off with the hint to start gemini there", st)
	}

	g := startGeminiTTY(t, argv, env, a.Workdir)
	g.waitShown(t, "Do you trust the files in this folder?")
	if n := len(a.Model.Requests()); n > 0 {
		t.Fatalf("Gemini CLI sent %d requests before it was told to trust the folder\n%s", n, g.screen.String())
	}
	g.keys("\r") // the first choice: Trust folder
	// What the session does next is left open: it says it restarts to
	// apply the trust change; in some runs it sent the -i prompt
	// untrusted, without settings hooks, and went on so (seen with a
	// .gemini directory in the workspace), in others it restarted trusted
	// first and the user's hook blocked the prompt (seen on a busy
	// machine). So nothing here waits on the prompt; list's "off" above
	// holds for the turn that may run unguarded.
	g.waitFor(t, "the TRUST_FOLDER rule", func() bool {
		var rules map[string]string
		data, _ := os.ReadFile(filepath.Join(a.ConfigDir(), "trustedFolders.json"))
		return json.Unmarshal(data, &rules) == nil && len(rules) > 0
	})
	t.Logf("the session that asked sent the -i prompt unguarded: %v", sentPrompt(a, "hello"))

	// What is stable whatever that session does: the file holds one rule,
	// the working directory as process.cwd() gives it (links resolved),
	// TRUST_FOLDER; and the next session there runs the settings hooks.
	rules, _ := os.ReadFile(filepath.Join(a.ConfigDir(), "trustedFolders.json"))
	var got map[string]string
	if err := json.Unmarshal(rules, &got); err != nil || !maps.Equal(got, map[string]string{ws: "TRUST_FOLDER"}) {
		t.Fatalf("trustedFolders.json after Trust folder: %s (%v), want the one rule {%q: \"TRUST_FOLDER\"}", rules, err, ws)
	}
	if st := setupStatus(t, f, senv); st != nil {
		t.Errorf("list once the folder is trusted: %v, want nothing\n%s", st, rules)
	}
	next := startGeminiTTY(t, argv, env, a.Workdir)
	next.waitShown(t, userBlockReason)
	if next.shows("Do you trust the files in this folder?") {
		t.Errorf("the next session asked again\n%s", next.screen.String())
	}
}

// userBlockReason is what the user's blocking hook says.
const userBlockReason = "blocked by the user hook"

// blockingUserHookSession is an interactive Gemini CLI session with the
// prompt "hello" (-i), in a folder GEMINI_CLI_TRUST_WORKSPACE does not
// decide, whose user settings.json holds a BeforeAgent hook that blocks
// every prompt.
func blockingUserHookSession(t *testing.T) (a *Agent, argv, env []string) {
	a = New(t, GeminiCLI, Say("done"))
	a.Settings = map[string]any{"hooks": map[string]any{"BeforeAgent": []any{map[string]any{
		"matcher": "*",
		"hooks":   []any{map[string]any{"type": "command", "command": "echo '" + userBlockReason + "' >&2; exit 2"}},
	}}}}
	a.Env = []string{"GEMINI_CLI_TRUST_WORKSPACE="}
	argv, env = a.Command(t, "hello") // writes the user's settings
	return a, append(argv[:len(argv)-2], "-i", "hello"), env
}

// sentPrompt reports whether the model stand-in got a request carrying
// the user's prompt text.
func sentPrompt(a *Agent, text string) bool {
	for _, r := range a.Model.Requests() {
		if slices.Contains(r.Strings(), text) {
			return true
		}
	}
	return false
}
