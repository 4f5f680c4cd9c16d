package agenttest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestClaudeHookAnswerBOM: Claude Code 2.1.332 trims a command hook's
// stdout as JavaScript trims it (String.prototype.trim), which takes off
// a byte order mark: a PreToolUse hook that prints one before its JSON
// deny keeps the shell command from running. bundlectl once read that
// answer as plain text (Go's bytes.TrimSpace keeps U+FEFF), and hooks run
// let the command run (harness TestParseHookOutputTrim).
func TestClaudeHookAnswerBOM(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	marker := filepath.Join(tmp, markerName)
	dir := filepath.Join(tmp, "grd")
	writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": "grd", "version": "1.0.0"})
	writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
		"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": `cat >/dev/null; printf '\357\273\277{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"nope"}}\n'`}}}}}})
	a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
	a.Args = []string{"--plugin-dir", dir, "--allowedTools", "Bash"}
	res := a.Run(t, "make the marker")
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the shell command ran past a deny after a byte order mark\n%s", res)
	}
}
