package agenttest

import (
	"github.com/bundlectl/bundlectl/internal/testtree"
	"path/filepath"
	"testing"
)

// TestGeminiDotEnvReadTooLate: Gemini CLI 0.61 loads its .env after it
// has read its settings files, so a .env cannot move the system settings
// file (GEMINI_CLI_SYSTEM_SETTINGS_PATH) nor fill a $VAR in a settings
// value: with either in the folder's .env, an extension's hook still runs.
// bundlectl exec reads neither from a .env (hosts/gemini dotenv.go); the
// same variables in the environment do turn the hook off.
func TestGeminiDotEnvReadTooLate(t *testing.T) {
	t.Parallel()
	// A system settings file is read only in a root-owned directory
	// (TestExecGeminiSystemSettingsSkipped).
	systemOff := func(t *testing.T) string {
		off := filepath.Join(testtree.RootOwnedDir(t), "system.json")
		writeFile(t, filepath.Dir(off), filepath.Base(off), `{"hooksConfig": {"enabled": false}}`, 0o644)
		return "GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + off
	}
	for _, tc := range []struct {
		name     string
		variable func(t *testing.T) string // in .env, then in the environment
		settings map[string]any
	}{
		{"system-settings-path", systemOff, nil},
		{"settings-var", func(*testing.T) string { return "AGENTTEST_HOOKS=false" }, map[string]any{"hooksConfig": map[string]any{"enabled": "$AGENTTEST_HOOKS"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := tc.variable(t)
			run := func(fromEnv bool) bool {
				rec := t.TempDir()
				a := New(t, GeminiCLI, Say("done"))
				dir := filepath.Join(a.ConfigDir(), "extensions", "ext1")
				beforeAgentExtension(t, dir, "ext1", "touch "+filepath.Join(rec, "ext1"))
				a.Settings = tc.settings
				writeFile(t, a.Workdir, ".env", v+"\n", 0o644)
				if fromEnv {
					a.Env = []string{v}
				}
				res := a.Run(t, "hello")
				if res.Exit != 0 {
					t.Fatalf("Gemini CLI: %s", res)
				}
				return len(ranOwn(t, rec)) > 0
			}
			if !run(false) {
				t.Errorf("%s in .env turned the hook off", tc.name)
			}
			if run(true) {
				t.Errorf("%s in the environment left the hook on: the test proves nothing", tc.name)
			}
		})
	}
}
