package agenttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeminiIgnoreEnvHome: with advanced.ignoreLocalEnv, Gemini CLI
// 0.61's walk up from the working directory for a .env skips each
// folder's .env but takes the one in its home directory (where it
// stops), before a .gemini/.env above the home. In a workspace inside
// the home, a GEMINI_RESTRICTED_MODE=true there stops a -p session as
// untrusted (exit 55), and one in the .gemini/.env above does not; setup
// must agree (hosts/gemini TestDotEnvIgnoreLocalHome). --ignore-env,
// which its loadEnvironment reads from the arguments too, its argument
// parser refuses: the session stops at once (exit 1, "Unknown
// arguments"), whatever the files hold.
func TestGeminiIgnoreEnvHome(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, home, above string
		flag              bool // --ignore-env rather than advanced.ignoreLocalEnv
		untrusts          bool
		// inWorkspace: the setting is in the workspace's settings, which
		// setup, run from another directory, must read.
		inWorkspace bool
	}{
		{"flag", "GEMINI_RESTRICTED_MODE=true", "A=1", true, false, false},
		{"home-untrusts", "GEMINI_RESTRICTED_MODE=true", "A=1", false, true, false},
		{"above-untrusts", "A=1", "GEMINI_RESTRICTED_MODE=true", false, false, false},
		{"workspace-setting", "GEMINI_RESTRICTED_MODE=true", "A=1", false, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
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
			switch {
			case tc.flag:
				a.Args = []string{"--ignore-env"}
			case tc.inWorkspace:
				writeJSONFile(t, a.Workdir, ".gemini/settings.json", map[string]any{"advanced": map[string]any{"ignoreLocalEnv": true}})
			default:
				a.Settings["advanced"] = map[string]any{"ignoreLocalEnv": true}
			}
			writeJSONFile(t, a.ConfigDir(), "trustedFolders.json", map[string]any{ws: "TRUST_FOLDER"})
			writeFile(t, a.Workdir, ".env", "B=1\n", 0o644)
			writeFile(t, a.Home, ".env", tc.home+"\n", 0o644)
			writeFile(t, filepath.Dir(a.Home), ".gemini/.env", tc.above+"\n", 0o644)
			a.Env = []string{"GEMINI_CLI_TRUST_WORKSPACE="}
			res := a.Run(t, "hello")
			if tc.flag {
				if res.Exit != 1 || !strings.Contains(res.Stderr, "Unknown arguments: ignore-env") {
					t.Fatalf("--ignore-env: want exit 1, Unknown arguments\n%s", res)
				}
				return
			}
			if untrusted := res.Exit == 55; untrusted != tc.untrusts {
				t.Fatalf("Gemini CLI stopped untrusted: %v, want %v\n%s", untrusted, tc.untrusts, res)
			}
			f := newTrustedFixture(t, a, filepath.Join(t.TempDir(), markerName))
			senv := append(setupEnv(a), "GEMINI_CLI_TRUST_WORKSPACE=")
			_, errOut, err := BundlectlEnv(t, f.home, senv, "--workspace", f.ws, "setup", "gemini")
			if refused := err != nil; refused != tc.untrusts {
				t.Errorf("setup refused: %v, want %v\n%s", refused, tc.untrusts, errOut)
			}
		})
	}
}
