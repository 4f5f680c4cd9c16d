package agenttest

import (
	"path/filepath"
	"testing"
)

// TestClaudeAnswerKeys: Claude Code 2.1.332 reads a PreToolUse hook's JSON
// answer with JSON.parse, case-sensitively and keeping a key's last value:
// {"decision":"block",...,"Decision":"approve"} blocks the tool, and so
// does {"reason":...,"decision":"approve",...,"decision":"block"}. hooks
// run reads them so too (harness TestHookOutputExactKeys, script
// hooks_answer_key_case); before, it read the first as "approve" and the
// second as malformed, and let the tool run.
func TestClaudeAnswerKeys(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, answer string
		blocked      bool
	}{
		{"case", `{"decision":"block","reason":"keys says no","Decision":"approve"}`, true},
		{"twice", `{"reason":"keys says no","decision":"approve","y":"","decision":"block"}`, true},
		{"twice-approve", `{"decision":"block","reason":"keys says no","decision":"approve"}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rec := t.TempDir()
			dir := filepath.Join(t.TempDir(), "keys")
			writeClaudeBashGuard(t, dir, "keys", map[string]any{"type": "command", "command": "cat >/dev/null; printf '%s' '" + c.answer + "'"})
			a := New(t, Claude, ShellCall(Claude, "touch "+filepath.Join(rec, "tool-ran")), Say("done"))
			a.Args = []string{"--plugin-dir", dir, "--allowedTools", "Bash"}
			res := a.Run(t, "hello")
			if ran := exists(filepath.Join(rec, "tool-ran")); ran == c.blocked {
				t.Fatalf("the tool ran = %v, want %v\n%s", ran, !c.blocked, res)
			}
		})
	}
}

// bashGuardHooks is a hooks.json whose one hook, hook, is a PreToolUse
// guard of the Bash tool.
func bashGuardHooks(hook any) map[string]any {
	return map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{hook}}}}}
}

// writeClaudeBashGuard writes in dir a Claude Code plugin named name,
// version 1.0.0, whose one hook, hook, is a PreToolUse guard of the Bash
// tool.
func writeClaudeBashGuard(t *testing.T, dir, name string, hook any) {
	t.Helper()
	writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": name, "version": "1.0.0"})
	writeJSONFile(t, dir, "hooks/hooks.json", bashGuardHooks(hook))
}
