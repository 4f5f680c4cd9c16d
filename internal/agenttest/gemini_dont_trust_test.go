package agenttest

import (
	"cmp"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGeminiDontTrust: in a folder no trustedFolders.json rule decides,
// an interactive Gemini CLI 0.61 session asks "Do you trust the files in
// this folder?"; answered "Don't trust", it writes the one DO_NOT_TRUST
// rule for the folder (its path with links resolved), does not restart
// (the trust it chose is the one it started with), and goes on: it sends
// the -i prompt with the extension's hook alone, no settings hook (so
// none of setup's lines). The next session there asks nothing, says the
// folder is untrusted, and runs the extension's hook alone again. So list
// reports setup's lines off before (no rule yet) and after (the rule,
// its hint showing it, run here as printed). The same holds under
// GEMINI_CLI_INTEGRATION_TEST=true and VITEST=true, which leave the
// dialog as it is (its check reads the settings' folder trust, not the
// config's) and take /permissions away: list's fix then names the rule
// alone. Each step waits for what the screen, a file or the model
// stand-in shows, never for time.
func TestGeminiDontTrust(t *testing.T) {
	t.Parallel()
	for _, sw := range []string{"", "GEMINI_CLI_INTEGRATION_TEST=true", "VITEST=true"} {
		t.Run(cmp.Or(strings.TrimSuffix(sw, "=true"), "control"), func(t *testing.T) {
			t.Parallel()
			rec := t.TempDir()
			a := New(t, GeminiCLI, Say("done"))
			a.Env = []string{"GEMINI_CLI_TRUST_WORKSPACE="} // no rule: undecided
			if sw != "" {
				a.Env = append(a.Env, sw)
			}
			beforeAgentExtension(t, filepath.Join(a.ConfigDir(), "extensions", "ext1"), "ext1", "touch "+filepath.Join(rec, "ext"))
			a.Settings = map[string]any{"hooks": map[string]any{"BeforeAgent": []any{map[string]any{
				"matcher": "*",
				"hooks":   []any{map[string]any{"type": "command", "command": "touch " + filepath.Join(rec, "user")}},
			}}}}
			argv, env := a.Command(t, "hello")
			argv = append(argv[:len(argv)-2], "-i", "hello")
			ws, err := filepath.EvalSymlinks(a.Workdir)
			if err != nil {
				t.Fatal(err)
			}
			f := newTrustedFixture(t, a, filepath.Join(t.TempDir(), markerName))
			senv := append(setupEnv(a), a.Env...)
			if out, errOut, err := BundlectlEnv(t, f.home, senv, "--workspace", f.ws, "setup", "gemini"); err != nil {
				t.Fatalf("setup: %v\n%s%s", err, out, errOut)
			}
			if st := setupStatus(t, f, senv); st["status"] != "off" {
				t.Fatalf("list in a folder no rule decides: %v, want off", st)
			}

			g := startGeminiTTY(t, argv, env, a.Workdir)
			g.waitShown(t, "Do you trust the files in this folder?")
			if n := len(a.Model.Requests()); n > 0 {
				t.Fatalf("Gemini CLI sent %d requests before the folder's trust was decided\n%s", n, g.screen.String())
			}
			g.keys("3") // the third choice: Don't trust
			rulesFile := filepath.Join(a.ConfigDir(), "trustedFolders.json")
			var rules map[string]string
			g.waitFor(t, "a trustedFolders.json rule", func() bool {
				data, _ := os.ReadFile(rulesFile)
				return json.Unmarshal(data, &rules) == nil && len(rules) > 0
			})
			if !maps.Equal(rules, map[string]string{ws: "DO_NOT_TRUST"}) {
				t.Fatalf("trustedFolders.json after Don't trust: %v, want the one rule {%q: \"DO_NOT_TRUST\"}", rules, ws)
			}
			g.waitFor(t, "the prompt sent", func() bool { return sentPrompt(a, "hello") })
			if got := ranOwn(t, rec); !slices.Equal(got, []string{"ext"}) {
				t.Errorf("hooks that ran in the session that asked: %q, want the extension's alone\n%s", got, g.screen.String())
			}
			if g.shows("restarting to apply the trust changes") {
				t.Errorf("the session restarted after Don't trust\n%s", g.screen.String())
			}

			// list: off, naming the rule; its hint, run, shows it.
			st := setupStatus(t, f, senv)
			hint, _ := st["hint"].(string)
			if st["status"] != "off" || !strings.Contains(hint, rulesFile) {
				t.Fatalf("list after Don't trust: %v, want off with a hint showing the rule in %s", st, rulesFile)
			}
			out, err := exec.Command("sh", "-c", hint).Output()
			if err != nil || !strings.Contains(string(out), "DO_NOT_TRUST") {
				t.Errorf("list's hint %q printed %q (%v), want the rule", hint, out, err)
			}
			if fix, _ := json.Marshal(st); sw != "" && strings.Contains(string(fix), "/permissions command,") {
				t.Errorf("list under %s names /permissions as a way to trust the folder: %s", sw, fix)
			}

			// The next session asks nothing and runs no settings hook.
			os.RemoveAll(rec)
			os.MkdirAll(rec, 0o700)
			next := startGeminiTTY(t, slices.Concat(argv[:len(argv)-1], []string{"again"}), env, a.Workdir)
			next.waitFor(t, "the prompt sent", func() bool { return sentPrompt(a, "again") })
			if next.shows("Do you trust the files in this folder?") || !next.shows("This folder is untrusted") {
				t.Errorf("the next session: asked again or did not say the folder is untrusted\n%s", next.screen.String())
			}
			if got := ranOwn(t, rec); !slices.Equal(got, []string{"ext"}) {
				t.Errorf("hooks that ran in the next session: %q, want the extension's alone\n%s", got, next.screen.String())
			}
		})
	}
}
