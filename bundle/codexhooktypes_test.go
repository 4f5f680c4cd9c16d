package bundle

import (
	"slices"
	"testing"
)

// TestCodexHookFieldType: Codex 0.171 fails its parse of a whole hooks
// file on a hook whose timeout is not a whole number of seconds or whose
// async is not a boolean, or whose timeout is past u64 (or past i64,
// where Codex panics at start), and runs none of its hooks
// (internal/agenttest TestCodexHookFieldType): the review warns on the file. A null timeout it
// reads as none, and runs the hook, which the review shows for Codex.
func TestCodexHookFieldType(t *testing.T) {
	for _, tc := range []struct {
		hook   string
		warned bool
	}{
		{`{"type": "command", "command": "echo x", "timeout": "abc"}`, true},
		{`{"type": "command", "command": "echo x", "timeout": 1.5}`, true},
		{`{"type": "command", "command": "echo x", "timeout": -1}`, true},
		{`{"type": "command", "command": "echo x", "async": "yes"}`, true},
		{`{"type": "command", "command": "echo x", "timeout": 1e1}`, true},
		// Past u64, the parse fails; past i64, Codex parses the file and
		// panics before any session starts.
		{`{"type": "command", "command": "echo x", "timeout": 18446744073709551616}`, true},
		{`{"type": "command", "command": "echo x", "timeout": 18446744073709551615}`, true},
		{`{"type": "command", "command": "echo x", "timeout": 9223372036854775808}`, true},
		{`{"type": "command", "command": "echo x", "timeout": null}`, false},
		{`{"type": "command", "command": "echo x", "timeout": 5, "async": true}`, false},
	} {
		b := loadFiles(t, files{
			".codex-plugin/plugin.json": `{"name": "demo", "version": "1.0.0"}`,
			"hooks/hooks.json":          `{"hooks": {"PostToolUse": [{"hooks": [` + tc.hook + `]}]}}`,
		})
		warned := slices.ContainsFunc(b.Report.Warnings(), func(f Finding) bool { return f.Rule == codexIgnored && f.Path == "hooks/hooks.json" })
		if warned != tc.warned {
			t.Errorf("%s: warned that Codex loads none of the file: %v, want %v (%v)", tc.hook, warned, tc.warned, b.Report.Findings)
		}
		if !tc.warned && !slices.ContainsFunc(b.Components.Hooks, func(h Hook) bool { return h.Command == "echo x" }) {
			t.Errorf("%s: the review does not show the hook Codex runs", tc.hook)
		}
	}
}
