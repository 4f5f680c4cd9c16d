package agenttest

import (
	"path/filepath"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
)

// TestClaudePostToolUseFailureExit2: Claude Code 2.1.332's help gives
// PostToolUseFailure the exit-2 line of PostToolUse ("show stderr to model
// immediately"), and so it does: a PostToolUseFailure hook that exits 2
// puts its stderr in front of the model with the failed tool's result, as
// a PostToolUse hook's does after a tool that succeeded, while one that
// exits 1 shows it to the user only. bundlectl counts PostToolUse as
// blocking (a guard that cannot run answers exit 2 and its reason reaches
// the model), so PostToolUseFailure must be counted the same.
func TestClaudePostToolUseFailureExit2(t *testing.T) {
	t.Parallel()
	run := func(t *testing.T, code string) *Agent {
		a := New(t, Claude, ShellCall(Claude, "true"), ShellCall(Claude, "exit 3"), Say("done"))
		src := filepath.Join(a.Workdir, ".bundlectl", "bundles", pluginName)
		writeJSONFile(t, src, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
		hook := func(mark string) []any {
			return []any{map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"type": "command",
				"command": "cat >/dev/null; echo " + mark + " >&2; exit " + code}}}}
		}
		writeJSONFile(t, src, "hooks/hooks.json", map[string]any{"hooks": map[string]any{
			"PostToolUse":        hook("AFTER-OK-MARK" + code),
			"PostToolUseFailure": hook("AFTER-FAIL-MARK" + code),
		}})
		a.Args = []string{"--plugin-dir", src, "--allowedTools", "Bash"}
		res := a.Run(t, "hello")
		if res.Exit != 0 {
			t.Fatalf("claude exited %d\n%s", res.Exit, res)
		}
		return a
	}
	a := run(t, "2")
	if !requestsHold(a, "AFTER-OK-MARK2") {
		t.Fatalf("a PostToolUse hook's exit-2 stderr did not reach the model: the control failed")
	}
	if !requestsHold(a, "AFTER-FAIL-MARK2") {
		t.Fatalf("a PostToolUseFailure hook's exit-2 stderr did not reach the model (found by trying Claude Code 2.1.332: it does)")
	}
	a = run(t, "1")
	if requestsHold(a, "AFTER-FAIL-MARK1") || requestsHold(a, "AFTER-OK-MARK1") {
		t.Fatalf("an exit-1 hook's stderr reached the model: exit 2 is not what makes the difference")
	}
	if bundle.BlockingEvent("PostToolUse") != bundle.BlockingEvent("PostToolUseFailure") {
		t.Fatalf("Claude Code treats exit 2 from PostToolUse and PostToolUseFailure alike, but bundle.BlockingEvent does not")
	}
}
