package bundle

import (
	"slices"
	"testing"
)

// TestClaudeGuardHookFieldType: Claude Code 2.1.332 loads nothing of a
// plugin one of whose PreToolUse or PermissionRequest hooks has a
// "timeout" that is no number or an "async" that is no boolean
// (internal/agenttest TestClaudeGuardHookFieldType), so the bundle is
// refused, naming the field; on another event the hook is only skipped.
func TestClaudeGuardHookFieldType(t *testing.T) {
	for _, tc := range []struct {
		event, hook, path string
		refused           bool
	}{
		{"PreToolUse", `{"type": "command", "command": "true", "timeout": "abc"}`, "hooks/hooks.json: hooks.PreToolUse[0].hooks[0].timeout", true},
		{"PermissionRequest", `{"type": "command", "command": "true", "async": "yes"}`, "hooks/hooks.json: hooks.PermissionRequest[0].hooks[0].async", true},
		{"PostToolUse", `{"type": "command", "command": "true", "async": "yes"}`, "", false},
		{"PreToolUse", `{"type": "command", "command": "true", "async": true, "timeout": 5}`, "", false},
	} {
		b := loadFiles(t, files{
			".claude-plugin/plugin.json": `{"name": "demo", "version": "1.0.0"}`,
			"hooks/hooks.json":           `{"hooks": {"` + tc.event + `": [{"hooks": [` + tc.hook + `]}]}}`,
		})
		var got []string
		for _, f := range b.Report.Findings {
			if f.Severity == Error && f.Rule == "hook.schema" {
				got = append(got, f.Path)
			}
		}
		if tc.refused != (len(got) == 1 && got[0] == tc.path) || !tc.refused && len(got) > 0 {
			t.Errorf("%s %s: refused at %q, want %q (refused %v)", tc.event, tc.hook, got, tc.path, tc.refused)
		}
	}
}

// TestClaudeHookAsyncType: Claude Code 2.1.332 does not run a plugin hook
// whose "async" is no boolean, on an event that is no guard too, while
// its sibling runs (internal/agenttest TestClaudeHookAsyncType): the
// review skips it, so that hooks run and exec -- claude do not run it.
func TestClaudeHookAsyncType(t *testing.T) {
	b := loadFiles(t, files{
		".claude-plugin/plugin.json": `{"name": "demo", "version": "1.0.0"}`,
		"hooks/hooks.json":           `{"hooks": {"PostToolUse": [{"hooks": [{"type": "command", "command": "echo bad", "async": "yes"}, {"type": "command", "command": "echo sibling"}]}]}}`,
	})
	var cmds []string
	for _, h := range b.Components.Hooks {
		if slices.Contains(h.Hosts, HostClaude) {
			cmds = append(cmds, h.Command)
		}
	}
	if len(cmds) != 1 || cmds[0] != "echo sibling" {
		t.Errorf("Claude Code hooks kept: %q, want only the sibling", cmds)
	}
	if b.Rejected() {
		t.Errorf("the bundle is refused: %v", b.Report.Errors())
	}
}
