package harness

import "testing"

// TestHookOutputExactKeys: a hook's answer is read key by key as the
// hosts read it, case-sensitively (JavaScript's JSON.parse in Claude Code
// and Gemini CLI, serde in Codex). encoding/json matched "Decision" to
// the decision field and kept the last, so a guard that answered
// {"decision":"block",...,"Decision":"approve"} (one that echoes its
// input into its JSON, say) let the tool run under hooks run where the
// host blocks it.
func TestHookOutputExactKeys(t *testing.T) {
	for _, c := range []struct {
		out     string
		blocked bool
		perm    string
	}{
		{`{"decision":"block","reason":"r","Decision":"approve"}`, true, ""},
		{`{"Decision":"approve","decision":"block","reason":"r"}`, true, ""},
		{`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no","PermissionDecision":"allow"}}`, false, PermissionDeny},
		{`{"HookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"},"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`, false, PermissionDeny},
		// A key given twice counts with its last value, as JSON.parse
		// and serde_json keep it: a guard that prints its reason (the
		// input) before its decision still blocks.
		{`{"reason":"x","decision":"approve","y":"","decision":"block"}`, true, ""},
		{`{"hookSpecificOutput":{"permissionDecision":"allow"},"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`, false, PermissionDeny},
		{`{"decision":"block","reason":"x","decision":"approve"}`, false, ""},
		// No host reads a field by another letter case.
		{`{"Decision":"block","reason":"r"}`, false, ""},
	} {
		r := ParseHookOutput(0, []byte(c.out), nil, false)
		if r.Failure != "" || r.Blocked != c.blocked || r.PermissionDecision != c.perm {
			t.Errorf("%s: blocked %v, permissionDecision %q, failure %q; want blocked %v, permissionDecision %q", c.out, r.Blocked, r.PermissionDecision, r.Failure, c.blocked, c.perm)
		}
		o := Combine("PreToolUse", []HookResult{r})
		if o.Blocked != (c.blocked || c.perm == PermissionDeny) {
			t.Errorf("%s: the event blocked = %v", c.out, o.Blocked)
		}
	}
}
