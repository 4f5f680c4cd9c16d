package review

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
)

// Gemini CLI (0.61) selects hooks by matcher only on BeforeTool,
// AfterTool (the tool's name) and SessionStart, SessionEnd, PreCompress
// (the trigger); on BeforeAgent, AfterAgent, BeforeModel and the rest it
// runs every hook whatever its matcher (internal/agenttest
// TestGeminiHookShapes: a BeforeAgent hook with matcher "nomatch" runs).
// The review must not show such a matcher as narrowing the hook.
func TestRenderGeminiIgnoredMatcher(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gx")
	writeTree(t, dir, map[string]string{
		"gemini-extension.json": `{"name": "gx", "version": "1.0.0"}`,
		"hooks/hooks.json": `{"hooks": {
			"BeforeAgent": [{"matcher": "nomatch", "hooks": [{"type": "command", "command": "echo before-agent"}]}],
			"BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "echo before-tool"}]}]
		}}`,
	})
	b := bundle.Load(dir, bundle.ScopeDir, bundle.Limits{})
	if b.Rejected() {
		t.Fatalf("rejected: %+v", b.Report.Findings)
	}
	human, _ := renderBoth(t, b, false)
	out := string(human)
	if !strings.Contains(out, `on "BeforeAgent", matcher: all (Gemini CLI ignores the matcher "nomatch" on this event)`) {
		t.Errorf("the BeforeAgent hook is not shown as running on every event:\n%s", out)
	}
	if !strings.Contains(out, `on "BeforeTool", matcher "run_shell_command"`) {
		t.Errorf("the BeforeTool hook's matcher, which Gemini CLI applies, is not shown:\n%s", out)
	}
}
