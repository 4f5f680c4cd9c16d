package agenttest

import (
	"github.com/bundlectl/bundlectl/internal/testtree"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExecGeminiHooksOffSpellings: Gemini CLI 0.61 runs an extension's
// hooks only when the merged hooksConfig.enabled is truthy in JavaScript's
// sense, and it takes a settings file's values whatever their type (a
// file failing its schema check gets a warning at most): the string
// "false" (read as false, without a word), 0, null, a "$VAR" that the
// environment fills with false, a hooksConfig that is not an object, or a
// hooksConfig.disabled written as one string all keep the hooks from
// running. For each, the test runs Gemini CLI alone (does an extension's
// hook run?) and through bundlectl exec, which must refuse (exit 1,
// naming the file) exactly when the hook would not run, and otherwise
// start Gemini CLI with the bundle's guard working.
func TestExecGeminiHooksOffSpellings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// hooksConfig is the user's settings' value; cmd is the hook
		// command it may name.
		hooksConfig func(cmd string) any
		on          bool
	}{
		{"string-false", func(string) any { return map[string]any{"enabled": "false"} }, false},
		{"zero", func(string) any { return map[string]any{"enabled": 0} }, false},
		{"null", func(string) any { return map[string]any{"enabled": nil} }, false},
		{"env-false", func(string) any { return map[string]any{"enabled": "$AGENTTEST_HOOKS"} }, false},
		{"not-object", func(string) any { return false }, false},
		{"array", func(string) any { return []any{} }, false},
		{"disabled-string", func(cmd string) any { return map[string]any{"disabled": cmd} }, false},
		{"string-TRUE", func(string) any { return map[string]any{"enabled": "TRUE"} }, true},
		{"string-yes", func(string) any { return map[string]any{"enabled": "yes"} }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := []string{"AGENTTEST_HOOKS=false"}

			// Gemini CLI alone, with an extension whose hook touches a file.
			rec := t.TempDir()
			a := New(t, GeminiCLI, Say("done"))
			cmd := "touch " + filepath.Join(rec, "ext1")
			dir := filepath.Join(a.ConfigDir(), "extensions", "ext1")
			writeJSONFile(t, dir, "gemini-extension.json", map[string]any{"name": "ext1", "version": "1.0.0"})
			writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"BeforeAgent": []any{map[string]any{
				"hooks": []any{map[string]any{"type": "command", "command": cmd}}}}}})
			a.Settings = map[string]any{"hooksConfig": tc.hooksConfig(cmd)}
			a.Env = env
			res := a.Run(t, "hello")
			if res.Exit != 0 {
				t.Fatalf("Gemini CLI alone: %s", res)
			}
			if ran := len(ranOwn(t, rec)) > 0; ran != tc.on {
				t.Fatalf("Gemini CLI alone ran the extension's hook: %v, want %v\n%s", ran, tc.on, res)
			}

			// Through bundlectl exec, with a trusted bundle's guard.
			marker := filepath.Join(t.TempDir(), markerName)
			a = New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+marker), Say("done"))
			f := newTrustedFixture(t, a, marker)
			a.Launcher = f.launcher(t)
			a.Settings = map[string]any{"hooksConfig": tc.hooksConfig(Bundlectl(t) + " --home " + f.home)}
			a.Env = env
			res = a.Run(t, "tell me about owls")
			if !tc.on {
				if res.Exit != 1 || len(a.Model.Requests()) > 0 {
					t.Fatalf("exec started Gemini CLI (exit %d, %d model requests) with settings that keep hooks off\n%s", res.Exit, len(a.Model.Requests()), res)
				}
				want := "bundlectl: bundlectl exec -- gemini loads the active bundles' guards as hooks, and " + `"` + filepath.Join(a.ConfigDir(), "settings.json") + `" sets "hooksConfig"`
				if !strings.Contains(res.Stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, res.Stderr)
				}
				if _, err := os.Stat(marker); err == nil {
					t.Errorf("the marker exists")
				}
				return
			}
			if res.Exit != 0 {
				t.Fatalf("exec: %s", res)
			}
			f.checkGuard(t, a, res, 0)
		})
	}
}

// TestExecGeminiSystemSettingsSkipped: Gemini CLI 0.61 reads a system
// settings file (GEMINI_CLI_SYSTEM_SETTINGS_PATH) only when it and every
// directory above it are owned by root and writable by no one else: one
// under the temporary directory (/tmp, mode 1777) is skipped, so its
// hooksConfig.enabled true does not turn the hooks back on over the
// user's false, and bundlectl exec refuses; the same file in a
// root-owned directory is read, the hooks run, and exec starts with the
// guard working. (hosts/gemini systemFileSkipped; the secure half needs
// root and a root-owned home directory, and is skipped without them.)
func TestExecGeminiSystemSettingsSkipped(t *testing.T) {
	t.Parallel()
	userOff := map[string]any{"hooksConfig": map[string]any{"enabled": false}}
	on := map[string]any{"hooksConfig": map[string]any{"enabled": true}}
	for _, tc := range []struct {
		name string
		dir  func(t *testing.T) string
		read bool
	}{
		{"under-tmp", func(t *testing.T) string { return t.TempDir() }, false},
		{"root-owned", func(t *testing.T) string { return testtree.RootOwnedDir(t) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.dir(t)
			writeJSONFile(t, dir, "settings.json", on)
			if err := os.Chmod(filepath.Join(dir, "settings.json"), 0o644); err != nil {
				t.Fatal(err)
			}
			env := []string{"GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(dir, "settings.json")}

			rec := t.TempDir()
			a := New(t, GeminiCLI, Say("done"))
			ext := filepath.Join(a.ConfigDir(), "extensions", "ext1")
			beforeAgentExtension(t, ext, "ext1", "touch "+filepath.Join(rec, "ext1"))
			a.Settings = userOff
			a.Env = env
			res := a.Run(t, "hello")
			if res.Exit != 0 {
				t.Fatalf("Gemini CLI alone: %s", res)
			}
			if ran := len(ranOwn(t, rec)) > 0; ran != tc.read {
				t.Fatalf("Gemini CLI alone ran the extension's hook: %v, want %v (the system settings read)\n%s", ran, tc.read, res)
			}

			marker := filepath.Join(t.TempDir(), markerName)
			a = New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+marker), Say("done"))
			f := newTrustedFixture(t, a, marker)
			a.Launcher = f.launcher(t)
			a.Settings = userOff
			a.Env = env
			res = a.Run(t, "tell me about owls")
			if tc.read {
				if res.Exit != 0 {
					t.Fatalf("exec: %s", res)
				}
				f.checkGuard(t, a, res, 0)
				return
			}
			if res.Exit != 1 || len(a.Model.Requests()) > 0 {
				t.Fatalf("exec started Gemini CLI (exit %d, %d model requests) with the system settings Gemini CLI skips taken for read\n%s", res.Exit, len(a.Model.Requests()), res)
			}
			if want := "Gemini CLI skips the system settings file " + `"` + filepath.Join(dir, "settings.json") + `"`; !strings.Contains(res.Stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, res.Stderr)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("the marker exists")
			}
		})
	}
}
