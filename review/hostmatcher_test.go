package review

import (
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/inventory"
)

// Claude Code (2.1.332) and Codex (0.171) run a UserPromptSubmit or Stop
// hook whatever its matcher says, and match a SessionStart hook's matcher
// against the source (internal/agenttest TestClaudeHookMatcherEvents,
// TestCodexHookMatcherEvents). The review must not show the matcher as
// narrowing a hook that runs every time, and must show the one that does.
func TestMatcherTextHosts(t *testing.T) {
	both := []string{string(bundle.HostClaude), string(bundle.HostCodex)}
	for _, c := range []struct {
		event, matcher string
		hosts          []string
		want           string
	}{
		{"UserPromptSubmit", "nomatch", both, `matcher: all (Claude Code and Codex ignore the matcher "nomatch" on this event)`},
		{"Stop", "^x", both, `matcher: all (Claude Code and Codex ignore the matcher "^x" on this event)`},
		{"Stop", "nomatch", []string{"claude"}, `matcher: all (Claude Code ignores the matcher "nomatch" on this event)`},
		{"UserPromptSubmit", "nomatch", nil, `matcher: all (bundlectl ignores the matcher "nomatch" on this event)`},
		{"TaskCompleted", "x", both, `matcher "x" (Claude Code ignores it on this event and runs the hook every time)`},
		{"SessionStart", "nomatch", both, `matcher "nomatch"`},
		{"SessionEnd", "other", both, `matcher "other"`},
		{"UserPromptExpansion", "p:cmd", []string{"claude"}, `matcher "p:cmd"`},
		{"PreToolUse", "Bash", both, `matcher "Bash"`},
		{"BeforeAgent", "nomatch", []string{"gemini"}, `matcher: all (Gemini CLI ignores the matcher "nomatch" on this event)`},
		{"UserPromptSubmit", "*", both, `matcher: all`},
		{"FileChanged", ".envrc", []string{"claude"}, `matcher ".envrc"`},
		{"OnSave", "x", []string{"claude"}, `matcher "x"`},
	} {
		got := matcherText(inventory.Hook{Event: c.event, Matcher: c.matcher, Hosts: c.hosts})
		if got != c.want {
			t.Errorf("%s %q for %v: %s, want %s", c.event, c.matcher, c.hosts, got, c.want)
		}
	}
}
