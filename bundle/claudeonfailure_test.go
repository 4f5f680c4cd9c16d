package bundle

import (
	"testing"
)

// Claude Code 2.1.332 reads a hook's "onFailure" ("continue" or "block":
// a failed hook then counts as exit status 2; internal/agenttest
// TestClaudeOnFailureBlock). The reader keeps it, hashed and shown, and no
// longer calls it an unknown field; a value Claude Code does not take is
// a warning, and the harness takes it as "block" (fail closed).
func TestClaudeHookOnFailure(t *testing.T) {
	b := writeTree(t, "p", map[string]string{
		ManifestClaude: `{"name": "p"}`,
		"hooks/hooks.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
			{"type": "command", "command": "exit 1", "onFailure": "block"},
			{"type": "command", "command": "exit 1", "onFailure": "continue"},
			{"type": "command", "command": "exit 1", "onFailure": "deny"}]}]}}`,
	})
	if b.Rejected() {
		t.Fatalf("rejected:%s", dumpFindings(b))
	}
	hs := b.Components.Hooks
	if len(hs) != 3 {
		t.Fatalf("hooks: %+v", hs)
	}
	for i, want := range []bool{true, false, true} {
		if got := ClaudeOnFailureBlocks(hs[i].Other); got != want {
			t.Errorf("hook %d (onFailure %s): blocks = %v, want %v", i, hs[i].Other["onFailure"], got, want)
		}
	}
	badWarned := false
	for _, f := range b.Report.Findings {
		if f.Rule == "hook.unknown-field" {
			t.Errorf("onFailure reported as unknown: %s %s", f.Path, f.Message)
		}
		badWarned = badWarned || f.Rule == "hook.on-failure"
	}
	if !badWarned {
		t.Errorf("no hook.on-failure warning for \"deny\":%s", dumpFindings(b))
	}
	if !ClaudeOnFailureIgnoredOn("Stop") || ClaudeOnFailureIgnoredOn("PreToolUse") {
		t.Errorf("ClaudeOnFailureIgnoredOn: Stop and PreToolUse read wrong")
	}
}
