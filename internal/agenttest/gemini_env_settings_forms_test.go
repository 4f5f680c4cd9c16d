package agenttest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGeminiEnvSettingsForms: what Gemini CLI 0.61 makes of settings and
// .env forms bundlectl had modelled from its code alone, each one -p
// session in a folder a rule trusts, with setup run after it where
// bundlectl had disagreed (hosts/gemini holds the vectors:
// TestDotEnvIgnoreLocalForms, TestDotEnvLinkForms, TestDotEnvExcluded,
// TestSandboxDotEnvInside):
//
//   - invalid-false-string: a settings file that fails Gemini CLI's
//     schema ("excludedEnvVars": 5) is used as written, with a warning,
//     so its "ignoreLocalEnv": "false" is a true JavaScript string: the
//     folder's .env is skipped, ~/.env's GEMINI_RESTRICTED_MODE=true loads
//     and the session stops untrusted (exit 55); setup refuses.
//   - workspace-advanced-number: the workspace's "advanced": 5 replaces
//     the user's excludedEnvVars, and the folder's line loads (setup
//     refuses: TestDotEnvExcluded "replaced").
//   - link-gemini-target: a folder's .env that links to a file under a
//     .gemini directory is a project's .env (Gemini CLI tests the path
//     its walk made), so the user's excludedEnvVars keeps the line out,
//     its entry 5 (a file failing the schema, used as written) joining
//     the list and changing nothing; setup wires.
//   - sandbox-substring: over the user's "advanced": 1, the workspace's
//     string excludedEnvVars "NOSANDBOXES" keeps SANDBOX out by a
//     substring test, so the .env's GEMINI_SANDBOX=docker starts a
//     container (a stand-in docker on PATH); exec refuses
//     (hosts/gemini TestSandboxDotEnvInside "excluded by a substring").
func TestGeminiEnvSettingsForms(t *testing.T) {
	t.Parallel()
	adv := func(k string, v any) map[string]any { return map[string]any{"advanced": map[string]any{k: v}} }
	path, log, started := standInDocker(t)
	for _, tc := range []struct {
		name           string
		user, ws       map[string]any
		wsEnv, homeEnv string // wsEnv "link" links a .gemini/target holding homeEnv
		untrusts       bool
		container      bool // a sandbox case: whether a container starts
		setup          bool // run setup after the session: it must agree
	}{
		{name: "invalid-false-string", user: map[string]any{"advanced": map[string]any{"ignoreLocalEnv": "false", "excludedEnvVars": 5}}, wsEnv: "B=1", homeEnv: "GEMINI_RESTRICTED_MODE=true", untrusts: true, setup: true},
		{name: "workspace-advanced-number", user: adv("excludedEnvVars", []any{"GEMINI_RESTRICTED_MODE"}), ws: map[string]any{"advanced": 5}, wsEnv: "GEMINI_RESTRICTED_MODE=true", untrusts: true},
		{name: "link-gemini-target", user: adv("excludedEnvVars", []any{"GEMINI_RESTRICTED_MODE", 5}), wsEnv: "link", homeEnv: "GEMINI_RESTRICTED_MODE=true", setup: true},
		{name: "sandbox-substring", user: map[string]any{"advanced": 1}, ws: adv("excludedEnvVars", "NOSANDBOXES"), wsEnv: "GEMINI_SANDBOX=docker\nSANDBOX=outer", container: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := New(t, GeminiCLI, Say("done"))
			a.Workdir = filepath.Join(a.Home, "ws")
			if err := os.MkdirAll(a.Workdir, 0o755); err != nil {
				t.Fatal(err)
			}
			ws, err := filepath.EvalSymlinks(a.Workdir)
			if err != nil {
				t.Fatal(err)
			}
			a.Settings = map[string]any{}
			for k, v := range tc.user {
				a.Settings[k] = v
			}
			if tc.ws != nil {
				writeJSONFile(t, a.Workdir, ".gemini/settings.json", tc.ws)
			}
			writeJSONFile(t, a.ConfigDir(), "trustedFolders.json", map[string]any{ws: "TRUST_FOLDER"})
			if tc.wsEnv == "link" {
				target := filepath.Join(t.TempDir(), ".gemini", "target")
				writeFile(t, filepath.Dir(target), filepath.Base(target), tc.homeEnv+"\n", 0o644)
				if err := os.Symlink(target, filepath.Join(a.Workdir, ".env")); err != nil {
					t.Fatal(err)
				}
			} else {
				writeFile(t, a.Workdir, ".env", tc.wsEnv+"\n", 0o644)
				if tc.homeEnv != "" {
					writeFile(t, a.Home, ".env", tc.homeEnv+"\n", 0o644)
				}
			}
			a.Env = []string{"GEMINI_CLI_TRUST_WORKSPACE=", path}
			os.Remove(log)
			res := a.Run(t, "hello")
			if untrusted := res.Exit == 55; untrusted != tc.untrusts {
				t.Fatalf("Gemini CLI stopped untrusted: %v, want %v\n%s", untrusted, tc.untrusts, res)
			}
			if got := started(); got != tc.container {
				t.Fatalf("a container started: %v, want %v\n%s", got, tc.container, res)
			}
			if !tc.setup {
				return
			}
			f := newTrustedFixture(t, a, filepath.Join(t.TempDir(), markerName))
			_, errOut, err := BundlectlEnv(t, f.home, append(setupEnv(a), "GEMINI_CLI_TRUST_WORKSPACE="), "--workspace", f.ws, "setup", "gemini")
			if refused := err != nil; refused != tc.untrusts {
				t.Errorf("setup refused: %v, want %v\n%s", refused, tc.untrusts, errOut)
			}
		})
	}
}
