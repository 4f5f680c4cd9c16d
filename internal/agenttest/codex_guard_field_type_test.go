package agenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCodexHookFieldType: Codex 0.171 reads a plugin hook's "timeout" as a
// whole number of seconds and "async" as a boolean: another value ("abc",
// 1.5, "yes", -5, 1e1, a number past u64) fails its parse of the whole
// hooks file, and it runs none of
// that file's hooks, on any event ("failed to parse plugin hooks config"),
// while the tool runs; one past i64 (still a u64) makes it panic at start,
// and nothing runs at all. A "shell" it does not read (TestCodexHookShellIgnored).
// Claude Code refuses the whole plugin for such a guard
// (TestClaudeGuardHookFieldType); bundlectl reviews the bundle for Codex
// and warns (codex.ignored) that Codex loading the plugin itself runs none
// of these hooks.
func TestCodexHookFieldType(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, field string
		value       any
		parsed      bool
	}{
		{"timeout-string", "timeout", "abc", false},
		{"timeout-fraction", "timeout", 1.5, false},
		{"timeout-null", "timeout", nil, true},
		{"timeout-negative", "timeout", -5, false},
		{"timeout-exponent", "timeout", json.Number("1e1"), false},
		{"timeout-past-u64", "timeout", json.Number("18446744073709551616"), false},
		// Past i64 but within u64, Codex parses the file and panics
		// ("normalized hook identity should serialize to TOML"): no
		// session starts, nothing runs.
		{"timeout-u64-max", "timeout", json.Number("18446744073709551615"), false},
		{"timeout-past-i64", "timeout", json.Number("9223372036854775808"), false},
		{"async-string", "async", "yes", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
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
			crash := strings.HasPrefix(tc.name, "timeout-u64-max") || tc.name == "timeout-past-i64"
			if _, err := os.Stat(marker); crash {
				if err == nil || res.Exit == 0 || !strings.Contains(res.Stderr, "panicked") {
					t.Fatalf("Codex 0.171 panicked at start with such a timeout; now: tool ran %v, exit %d\n%s", err == nil, res.Exit, res)
				}
			} else if err != nil {
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
