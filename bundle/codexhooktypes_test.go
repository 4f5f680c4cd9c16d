package bundle

import (
	"slices"
	"testing"
)

// TestCodexHookFieldType: Codex 0.171 fails its parse of a whole hooks
// file on a hook whose timeout is not a whole number of seconds or whose
// async is not a boolean, and runs none of its hooks (internal/agenttest
// TestCodexHookFieldType): the review warns on the file. A null timeout it
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
