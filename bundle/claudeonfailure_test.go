package bundle

import (
	"slices"
	"strings"
	"testing"
)

// Claude Code 2.1.332 reads a hook's "onFailure" ("continue" or "block":
// a failed hook then counts as exit status 2; internal/agenttest
// TestClaudeOnFailureBlock). The reader keeps it, hashed and shown, and no
// longer calls it an unknown field.
func TestClaudeHookOnFailure(t *testing.T) {
	b := writeTree(t, "p", map[string]string{
		ManifestClaude: `{"name": "p"}`,
		"hooks/hooks.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
			{"type": "command", "command": "exit 1", "onFailure": "block"},
			{"type": "command", "command": "exit 1", "onFailure": "continue"}]}]}}`,
	})
	if b.Rejected() {
		t.Fatalf("rejected:%s", dumpFindings(b))
	}
	hs := b.Components.Hooks
	if len(hs) != 2 {
		t.Fatalf("hooks: %+v", hs)
	}
	for i, want := range []bool{true, false} {
		if got := ClaudeOnFailureBlocks(hs[i].Other); got != want {
			t.Errorf("hook %d (onFailure %s): blocks = %v, want %v", i, hs[i].Other["onFailure"], got, want)
		}
	}
	for _, f := range b.Report.Findings {
		if f.Rule == "hook.unknown-field" || f.Rule == "hook.on-failure" {
			t.Errorf("onFailure reported: %s %s", f.Path, f.Message)
		}
	}
	if !ClaudeOnFailureIgnoredOn("Stop") || ClaudeOnFailureIgnoredOn("PreToolUse") {
		t.Errorf("ClaudeOnFailureIgnoredOn: Stop and PreToolUse read wrong")
	}
}

// TestClaudeHookOnFailureSchema: an onFailure Claude Code 2.1.332's hooks
// schema rejects ("bogus", 1, null, true) makes it load nothing of the
// plugin on PreToolUse, and drop that hook alone on PostToolUse
// (internal/agenttest TestClaudeOnFailureSchema). bundlectl used to keep
// the hook and read the value as "block".
func TestClaudeHookOnFailureSchema(t *testing.T) {
	for _, v := range []string{`"bogus"`, `1`, `null`, `true`} {
		t.Run(v, func(t *testing.T) {
			pre := writeTree(t, "p", map[string]string{
				ManifestClaude: `{"name": "p"}`,
				"hooks/hooks.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
					{"type": "command", "command": "exit 1", "onFailure": ` + v + `},
					{"type": "command", "command": "echo sibling"}]}]}}`,
			})
			for _, h := range pre.Components.Hooks {
				if slices.Contains(h.Hosts, HostClaude) {
					t.Errorf("PreToolUse: hook %q kept for Claude Code, which loads nothing of the plugin:%s", h.Command, dumpFindings(pre))
				}
			}
			if !slices.ContainsFunc(pre.Report.Findings, func(f Finding) bool {
				return f.Rule == "hook.schema" && strings.HasSuffix(f.Path, "hooks[0].onFailure")
			}) {
				t.Errorf("PreToolUse: no hook.schema finding at the onFailure:%s", dumpFindings(pre))
			}
			post := writeTree(t, "p", map[string]string{
				ManifestClaude: `{"name": "p"}`,
				"hooks/hooks.json": `{"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [
					{"type": "command", "command": "exit 1", "onFailure": ` + v + `},
					{"type": "command", "command": "echo sibling"}]}]}}`,
			})
			var claude []string
			for _, h := range post.Components.Hooks {
				if slices.Contains(h.Hosts, HostClaude) {
					claude = append(claude, h.Command)
				}
			}
			if !slices.Equal(claude, []string{"echo sibling"}) {
				t.Errorf("PostToolUse: Claude Code's hooks %q, want the sibling alone:%s", claude, dumpFindings(post))
			}
			if !slices.ContainsFunc(post.Report.Findings, func(f Finding) bool {
				return f.Rule == "hook.on-failure" && f.Severity == Skip
			}) {
				t.Errorf("PostToolUse: no hook.on-failure skip:%s", dumpFindings(post))
			}
		})
	}
}
