package agenttest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCodexHookFieldType: Codex 0.171 reads a plugin hook's "timeout" as a
// whole number of seconds and "async" as a boolean: another value ("abc",
// 1.5, "yes") fails its parse of the whole hooks file, and it runs none of
// that file's hooks, on any event ("failed to parse plugin hooks config"),
// while the tool runs. A "shell" it does not read (TestCodexHookShellIgnored).
// Claude Code refuses the whole plugin for such a guard
// (TestClaudeGuardHookFieldType); bundlectl reviews the bundle for Codex
// and warns (codex.ignored) that Codex loading the plugin itself runs none
// of these hooks.
func TestCodexHookFieldType(t *testing.T) {
	for _, tc := range []struct {
		name, field string
		value       any
		parsed      bool
	}{
		{"timeout-string", "timeout", "abc", false},
		{"timeout-fraction", "timeout", 1.5, false},
		{"timeout-null", "timeout", nil, true},
		{"async-string", "async", "yes", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			marker := filepath.Join(t.TempDir(), "ran")
			rec := t.TempDir()
			a := New(t, Codex, ShellCall(Codex, "touch "+marker), Say("done"))
			root := versionDir(filepath.Join(a.ConfigDir(), "plugins", "cache"))
			writeJSONFile(t, root, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
			bad := map[string]any{"type": "command", "command": "cat > " + filepath.Join(rec, "bad"), tc.field: tc.value}
			writeJSONFile(t, root, "hooks/hooks.json", map[string]any{"hooks": map[string]any{
				"PreToolUse":  []any{map[string]any{"hooks": []any{bad, map[string]any{"type": "command", "command": "cat > " + filepath.Join(rec, "sibling")}}}},
				"PostToolUse": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "cat > " + filepath.Join(rec, "post")}}}},
			}})
			a.CodexConfig = "[plugins.\"" + codexPluginID + "\"]\nenabled = true\n"
			a.Args = []string{"-c", "features.plugins=true", "--dangerously-bypass-hook-trust"}
			res := a.Run(t, "hello")
			if _, err := os.Stat(marker); err != nil {
				t.Fatalf("the tool did not run: %v\n%s", err, res)
			}
			want := []string(nil)
			if tc.parsed {
				want = []string{"bad", "post", "sibling"}
			}
			if got := recorded(t, rec); !slices.Equal(got, want) {
				t.Fatalf("Codex ran the hooks %q, want %q (found by trying Codex 0.171)\n%s", got, want, res)
			}
			warned, review := warnedPaths(t, root, "codex.ignored")
			if got := slices.Contains(warned, "hooks/hooks.json"); got == tc.parsed {
				t.Errorf("review warned that Codex loads none of hooks/hooks.json: %v, want %v\n%s", got, !tc.parsed, review)
			}
			if tc.parsed && !strings.Contains(review, filepath.Join(rec, "bad")) {
				t.Errorf("the review does not show the hook Codex runs\n%s", review)
			}
		})
	}
}
