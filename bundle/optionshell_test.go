package bundle

import (
	"strings"
	"testing"
)

// A Claude Code plugin hook whose shell-form command references
// ${user_config.KEY} never runs in Claude Code (internal/agenttest
// TestClaudeOptionShellForm): the review warns, naming the file and the
// hook; the exec form, the environment variable and an empty key do not.
func TestClaudeOptionShellFormHook(t *testing.T) {
	b := writeTree(t, "p", map[string]string{
		ManifestClaude: `{"name": "p", "userConfig": {"greeting": {"type": "string", "title": "G", "description": "d"}}}`,
		"hooks/hooks.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "command", "command": "echo $CLAUDE_PLUGIN_OPTION_GREETING ${user_config.}"},
  {"type": "command", "command": "echo", "args": ["${user_config.greeting}"]},
  {"type": "command", "command": "true || echo '${user_config.greeting}'"}
]}]}}`,
	})
	f := requireFinding(t, b, Warning, "hook.option-shell", "hooks/hooks.json")
	if !strings.Contains(f.Path, "PreToolUse[0].hooks[2].command") || !strings.Contains(f.Message, `"${user_config.greeting}"`) || !strings.Contains(f.Message, "Claude Code does not run this hook") {
		t.Errorf("finding %s: %s", f.Path, f.Message)
	}
	n := 0
	for _, f := range b.Report.Findings {
		if f.Rule == "hook.option-shell" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d hook.option-shell findings, want 1:%s", n, dumpFindings(b))
	}
	shown := false
	for _, h := range b.Components.Hooks {
		shown = shown || h.Shell && strings.HasPrefix(h.Command, "true ||")
	}
	if !shown {
		t.Errorf("the review must still show the hook as written: %+v", b.Components.Hooks)
	}
	for in, want := range map[string]string{
		"echo ${user_config.} ${user_config.k}": "${user_config.k}",
		"${user_config.a b}":                    "${user_config.a b}",
		"${user_config.k":                       "",
	} {
		if got, _ := ClaudeShellOptionRef(in); got != want {
			t.Errorf("ClaudeShellOptionRef(%q) = %q, want %q", in, got, want)
		}
	}
}
