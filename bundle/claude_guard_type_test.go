package bundle

import (
	"slices"
	"testing"
)

// TestClaudeGuardHookFieldType: Claude Code 2.1.332 loads nothing of a
// plugin one of whose PreToolUse or PermissionRequest hooks has a
// "timeout" that is no number or an "async" that is no boolean
// (internal/agenttest TestClaudeGuardHookFieldType). A manifest-less
// plugin only Claude Code reads is refused, naming the field; on another
// event the hook is only skipped.
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
			"hooks/hooks.json": `{"hooks": {"` + tc.event + `": [{"hooks": [` + tc.hook + `]}]}}`,
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

// TestClaudeRefusalPerHost: a plugin with a manifest is a Codex plugin
// too (Codex falls back to .claude-plugin/plugin.json and reads the same
// hooks/hooks.json), and Codex loads what Claude Code refuses: the bundle
// is not refused, the refusal is a warning naming the field, and nothing
// of the bundle is Claude Code's any more, while Codex keeps its skill and
// hooks. A "shell" Codex does not read (internal/agenttest
// TestCodexHookShellIgnored), a "timeout" or "async" that makes Codex drop
// the hooks file (TestCodexHookFieldType, codex.ignored) alike.
func TestClaudeRefusalPerHost(t *testing.T) {
	for _, tc := range []struct{ rule, field, hook string }{
		{"hook.shell", "shell", `{"type": "command", "command": "echo guard", "shell": "zsh"}`},
		{"hook.schema", "timeout", `{"type": "command", "command": "echo guard", "timeout": "abc"}`},
		{"hook.schema", "async", `{"type": "command", "command": "echo guard", "async": "yes"}`},
	} {
		b := loadFiles(t, files{
			".claude-plugin/plugin.json": `{"name": "demo", "version": "1.0.0", "mcpServers": {"srv": {"command": "srv"}}}`,
			"hooks/hooks.json":           `{"hooks": {"PreToolUse": [{"hooks": [` + tc.hook + `, {"type": "command", "command": "echo sibling"}]}]}}`,
			"skills/sk/SKILL.md":         "---\nname: sk\ndescription: sk\n---\n\nbody\n",
			"commands/c.md":              "---\ndescription: c\n---\n\nbody\n",
		})
		if b.Rejected() {
			t.Errorf("%s: the bundle is refused: %v", tc.field, b.Report.Errors())
			continue
		}
		var warned bool
		for _, f := range b.Report.Warnings() {
			warned = warned || f.Rule == tc.rule && f.Path == "hooks/hooks.json: hooks.PreToolUse[0].hooks[0]."+tc.field
		}
		if !warned {
			t.Errorf("%s: no %s warning: %v", tc.field, tc.rule, b.Report.Findings)
		}
		c := b.Components
		var claude []string
		for _, h := range c.Hooks {
			if slices.Contains(h.Hosts, HostClaude) {
				claude = append(claude, "hook "+h.Command)
			}
		}
		for _, s := range c.Skills {
			if slices.Contains(s.Hosts, HostClaude) {
				claude = append(claude, "skill "+s.Name)
			}
		}
		for _, s := range c.MCP {
			if slices.Contains(s.Hosts, HostClaude) {
				claude = append(claude, "server "+s.Name)
			}
		}
		if len(claude) > 0 || len(c.Commands) > 0 {
			t.Errorf("%s: Claude Code's still: %q, commands %d", tc.field, claude, len(c.Commands))
		}
		if len(c.Skills) != 1 || len(c.MCP) != 1 || !slices.ContainsFunc(c.Hooks, func(h Hook) bool { return h.Command == "echo sibling" && slices.Contains(h.Hosts, HostCodex) }) {
			t.Errorf("%s: Codex lost its skill, server or hooks: %+v", tc.field, c)
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

// TestClaudeGuardGroupSchema: Claude Code 2.1.332 loads nothing of a
// plugin a PreToolUse or PermissionRequest matcher group of whose hooks
// fails its hooks schema in its shape (internal/agenttest
// TestClaudeGuardHookSchema): a manifest-less plugin, which only Claude
// Code reads, is refused, naming the place. On another event Claude Code
// drops that hook or group alone, and a hook with no type is no hook of
// Claude Code's.
func TestClaudeGuardGroupSchema(t *testing.T) {
	for _, tc := range []struct{ group, at string }{
		{`{"hooks": [{"command": "echo x"}]}`, "[0].hooks[0]"},
		{`{"hooks": [{"type": "script", "command": "echo x"}]}`, "[0].hooks[0].type"},
		{`{"hooks": [{"type": "command"}]}`, "[0].hooks[0]"},
		{`{"hooks": [{"type": "command", "command": 5}]}`, "[0].hooks[0]"},
		{`{"matcher": 5, "hooks": [{"type": "command", "command": "echo x"}]}`, "[0].matcher"},
		{`{"hooks": {"type": "command", "command": "echo x"}}`, "[0].hooks"},
		{`{"matcher": "Bash"}`, "[0]"},
		{`"Bash"`, "[0]"},
		{`{"hooks": [{"type": "http", "url": "https://example.com/h"}, {"type": "prompt", "prompt": "p"}]}`, ""},
	} {
		for _, event := range []string{"PreToolUse", "PermissionRequest", "PostToolUse"} {
			b := loadFiles(t, files{
				"hooks/hooks.json": `{"hooks": {"` + event + `": [` + tc.group + `], "Stop": [{"hooks": [{"type": "command", "command": "echo stop"}]}]}}`,
			})
			var got []string
			for _, f := range b.Report.Findings {
				if f.Severity == Error && f.Rule == "hook.schema" {
					got = append(got, f.Path)
				}
			}
			want := []string{}
			if tc.at != "" && event != "PostToolUse" {
				want = []string{"hooks/hooks.json: hooks." + event + tc.at}
			}
			if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Errorf("%s %s: refused at %q, want %q", event, tc.group, got, want)
			}
			if event == "PostToolUse" && slices.ContainsFunc(b.Components.Hooks, func(h Hook) bool { return h.Command == "echo x" }) {
				t.Errorf("%s %s: the review shows a hook Claude Code drops", event, tc.group)
			}
		}
	}
}

// TestClaudeSkillHookFieldType: a hook of a skill's front matter whose
// "timeout" is no number, whose "async" is no boolean or whose "onFailure"
// is neither "continue" nor "block" makes Claude Code
// 2.1.332 run none of that skill's hooks (internal/agenttest
// TestClaudeSkillHookFieldType): the review leaves them all out, each
// named, and keeps the skill.
func TestClaudeSkillHookFieldType(t *testing.T) {
	for _, field := range []string{"timeout: abc", "async: yes-please", "onFailure: sometimes", "timeout: 5"} {
		b := loadFiles(t, files{
			".claude-plugin/plugin.json": `{"name": "demo", "version": "1.0.0"}`,
			"skills/sk/SKILL.md": "---\nname: sk\ndescription: sk\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n" +
				"        - type: command\n          command: echo bad\n          " + field + "\n" +
				"        - type: command\n          command: echo sibling\n" +
				"  PostToolUse:\n    - hooks:\n        - type: command\n          command: echo post\n---\n\nbody\n",
		})
		var shown []string
		for _, h := range b.Components.Hooks {
			if slices.Contains(h.Hosts, HostClaude) {
				shown = append(shown, h.Command)
			}
		}
		want := []string(nil)
		if field == "timeout: 5" {
			want = []string{"echo bad", "echo sibling", "echo post"}
		}
		if !slices.Equal(shown, want) || len(b.Components.Skills) != 1 || b.Rejected() {
			t.Errorf("%s: hooks %q, want %q; %d skills; %v", field, shown, want, len(b.Components.Skills), b.Report.Findings)
		}
	}
}
