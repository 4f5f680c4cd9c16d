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

// TestHookOutputRefusalBesideMalformedValue: a name given twice inside a
// value the answer passes on (updatedInput, tool_input, llm_request, ...)
// makes that value malformed, but JSON.parse (Claude Code, Gemini CLI) and
// serde_json's Value (Codex) still read the block, deny or stop beside
// it. The whole answer was a non-blocking failure, so such a guard let
// the tool run under hooks run where the host blocks it. The refusal now
// stands and nothing is passed on; an answer that refuses nothing stays a
// failure, and a toolConfig is read as Gemini CLI reads it (last value).
func TestHookOutputRefusalBesideMalformedValue(t *testing.T) {
	for _, c := range []struct {
		event, out string
		blocked    bool
		failed     bool
	}{
		{"PreToolUse", `{"decision":"block","reason":"no","hookSpecificOutput":{"updatedInput":{"command":"ls","command":"rm -rf /"}}}`, true, false},
		{"PreToolUse", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no","updatedInput":{"a":1,"a":2}}}`, true, false},
		{"PermissionRequest", `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"no","updatedInput":{"a":1,"a":2}}}}`, true, false},
		{"BeforeTool", `{"decision":"deny","reason":"no","hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"a":1,"a":2}}}`, true, false},
		{"PreToolUse", `{"continue":false,"stopReason":"stop","hookSpecificOutput":{"updatedInput":{"a":{"b":1,"b":2}}}}`, true, false},
		// Nothing refused: the malformed value is a failure, as before.
		{"PreToolUse", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"a":1,"a":2}}}`, false, true},
	} {
		r := ParseHookOutput(0, []byte(c.out), nil, false)
		if (r.Failure != "") != c.failed || r.UpdatedInput != nil || r.GeminiToolInput != nil {
			t.Errorf("%s: failure %q, updatedInput %s, tool_input %s; want failed %v and nothing passed on", c.out, r.Failure, r.UpdatedInput, r.GeminiToolInput, c.failed)
		}
		if o := Combine(c.event, []HookResult{r}); o.Proceed() == c.blocked {
			t.Errorf("%s: the event proceeds = %v, want %v", c.out, o.Proceed(), !c.blocked)
		}
	}
	r := ParseHookOutput(0, []byte(`{"hookSpecificOutput":{"hookEventName":"BeforeToolSelection","toolConfig":{"mode":"ANY","mode":"NONE"}}}`), nil, false)
	if r.Failure != "" || r.ToolConfig == nil || r.ToolConfig.Mode != "NONE" {
		t.Errorf("toolConfig given a name twice: %+v, failure %q; want mode NONE, as Gemini CLI reads it", r.ToolConfig, r.Failure)
	}
}
