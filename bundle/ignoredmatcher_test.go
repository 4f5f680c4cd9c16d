package bundle

import "testing"

// Claude Code and Codex run a UserPromptSubmit or Stop hook whatever its
// matcher says, even "[" (internal/agenttest TestClaudeHookMatcherEvents,
// TestCodexHookMatcherEvents); Gemini CLI does so on BeforeAgent. Such a
// matcher selects nothing, so its not compiling is no reason to skip the
// hook: it loads and the review shows it. On an event the host matches
// (SessionStart), the hosts skip a hook whose matcher does not compile,
// and so does bundlectl.
func TestIgnoredMatcherNotValidated(t *testing.T) {
	group := `[{"matcher": "[", "hooks": [{"type": "command", "command": "true"}]}]`
	for _, c := range []struct {
		name     string
		fs       files
		event    string
		loads    bool
		findPath string
	}{
		{"claude prompt", files{".claude-plugin/plugin.json": `{"name": "p"}`, "hooks/hooks.json": `{"hooks": {"UserPromptSubmit": ` + group + `}}`}, "UserPromptSubmit", true, ""},
		{"claude stop", files{".claude-plugin/plugin.json": `{"name": "p"}`, "hooks/hooks.json": `{"hooks": {"Stop": ` + group + `}}`}, "Stop", true, ""},
		{"codex prompt", files{".codex-plugin/plugin.json": `{"name": "p"}`, "hooks/hooks.json": `{"hooks": {"UserPromptSubmit": ` + group + `}}`}, "UserPromptSubmit", true, ""},
		{"gemini before agent", files{"gemini-extension.json": `{"name": "p", "version": "1.0.0"}`, "hooks/hooks.json": `{"hooks": {"BeforeAgent": ` + group + `}}`}, "BeforeAgent", true, ""},
		{"own prompt", files{"plugin.json": pluginWithExt(`{"hooks": {"UserPromptSubmit": ` + group + `}}`)}, "UserPromptSubmit", true, ""},
		// Claude Code only: Codex, which reads the plugin too, never fires
		// them, so its matching does not count (TestClaudeMessageDisplayMatcher).
		{"claude message display", files{".claude-plugin/plugin.json": `{"name": "p"}`, "hooks/hooks.json": `{"hooks": {"MessageDisplay": ` + group + `}}`}, "MessageDisplay", true, ""},
		{"claude task completed", files{".claude-plugin/plugin.json": `{"name": "p"}`, "hooks/hooks.json": `{"hooks": {"TaskCompleted": ` + group + `}}`}, "TaskCompleted", true, ""},
		{"claude skill shell", files{".claude-plugin/plugin.json": `{"name": "p"}`, "hooks/hooks.json": `{"hooks": {"PreSkillShellCommand": ` + group + `}}`}, "PreSkillShellCommand", false, "PreSkillShellCommand[0].hooks[0].matcher"},
		{"claude session start", files{".claude-plugin/plugin.json": `{"name": "p"}`, "hooks/hooks.json": `{"hooks": {"SessionStart": ` + group + `}}`}, "SessionStart", false, "SessionStart[0].hooks[0].matcher"},
		{"claude prompt expansion", files{".claude-plugin/plugin.json": `{"name": "p"}`, "hooks/hooks.json": `{"hooks": {"UserPromptExpansion": ` + group + `}}`}, "UserPromptExpansion", false, "UserPromptExpansion[0].hooks[0].matcher"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := loadFiles(t, c.fs)
			if c.loads {
				requireNoFinding(t, b, "hook.matcher")
			} else {
				requireFinding(t, b, Skip, "hook.matcher", c.findPath)
			}
			loaded := false
			for _, h := range b.Components.Hooks {
				loaded = loaded || h.Event == c.event && h.Matcher == "["
			}
			if loaded != c.loads {
				t.Errorf("the %s hook with matcher \"[\" loaded: %v, want %v\n%s", c.event, loaded, c.loads, dumpFindings(b))
			}
		})
	}
}
