package agenttest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/bundlectl/bundlectl/internal/testtree"
)

// TestGeminiFolderTrustSettingForms: forms of security.folderTrust.enabled
// that bundlectl read as off and Gemini CLI 0.61 reads as on, each tried
// with one -p session in a folder no trustedFolders.json rule decides
// (on, it stops untrusted, exit 55), then list after setup, which must
// report setup's lines off there (hosts/gemini
// TestFolderTrustSettingForms, TestFolderTrustSettingReplaced):
//
//   - string-false-schema-fails: the string "false" in a user settings
//     file that fails Gemini CLI's schema elsewhere ("excludedEnvVars": 5)
//     is used as written, a true JavaScript string (in a file that passes,
//     Gemini CLI makes it false: TestGeminiTrustRuleSpellings
//     trust-off-string-false);
//   - null: null ?? true is true;
//   - long-s: "falſe" is no "false" to JavaScript's toLowerCase, which Go's
//     case folding took it for;
//   - folderTrust-null-over-defaults: the user's "folderTrust": null
//     replaces the system defaults' {"enabled": false} whole.
func TestGeminiFolderTrustSettingForms(t *testing.T) {
	t.Parallel()
	sys := testtree.RootOwnedDir(t)
	defaults := filepath.Join(sys, "system-defaults.json")
	writeFile(t, sys, "system-defaults.json", `{"security": {"folderTrust": {"enabled": false}}}`, 0o644)
	sysEnv := []string{"GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(sys, "settings.json"), "GEMINI_CLI_SYSTEM_DEFAULTS_PATH=" + defaults}
	ft := func(v any) map[string]any {
		return map[string]any{"security": map[string]any{"folderTrust": map[string]any{"enabled": v}}}
	}
	for _, tc := range []struct {
		name     string
		user     map[string]any
		defaults bool // the system defaults' folder trust off counts
	}{
		{name: "string-false-schema-fails", user: merge(ft("false"), map[string]any{"advanced": map[string]any{"excludedEnvVars": 5}})},
		{name: "null", user: ft(nil)},
		{name: "long-s", user: ft("falſe")},
		{name: "folderTrust-null-over-defaults", user: map[string]any{"security": map[string]any{"folderTrust": nil}}, defaults: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := New(t, GeminiCLI, Say("done"))
			a.Settings = tc.user
			a.Env = []string{"GEMINI_CLI_TRUST_WORKSPACE="}
			if tc.defaults {
				a.Env = append(a.Env, sysEnv...)
			}
			if _, err := os.Stat(filepath.Join(a.ConfigDir(), "trustedFolders.json")); err == nil {
				t.Fatal("a trustedFolders.json exists: this test needs a folder no rule decides")
			}
			if res := a.Run(t, "hello"); res.Exit != 55 {
				t.Fatalf("Gemini CLI did not stop untrusted (exit 55): folder trust was off\n%s", res)
			}
			f := newTrustedFixture(t, a, filepath.Join(t.TempDir(), markerName))
			senv := append(setupEnv(a), "GEMINI_CLI_TRUST_WORKSPACE=")
			if tc.defaults {
				senv = append(senv, sysEnv...)
			}
			if out, errOut, err := BundlectlEnv(t, f.home, senv, "--workspace", f.ws, "setup", "gemini"); err != nil {
				t.Fatalf("setup: %v\n%s%s", err, out, errOut)
			}
			if st := setupStatus(t, f, senv); st["status"] != "off" {
				t.Errorf("list in a folder Gemini CLI does not trust: %v, want status off", st)
			}
		})
	}
}
