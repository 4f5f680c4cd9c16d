package harness

import "testing"

// TestGeminiDecisions: Gemini CLI 0.61 reads "decision": "deny" as a
// block (the alias of "block") and "allow" as nothing; hooks run --host
// gemini once read both as malformed output, so a BeforeTool hook's deny
// let the tool run. On an event of Claude Code or Codex they stay
// malformed, as those hosts' contracts have no such value.
func TestGeminiDecisions(t *testing.T) {
	res := func(out string) HookResult {
		r := ParseHookOutput(0, []byte(out), nil, false)
		r.Bundle = "g"
		return r
	}
	o := Combine("BeforeTool", []HookResult{res(`{"decision":"deny","reason":"no shell"}`)})
	if !o.Blocked || o.Reason != "no shell" || len(o.Errors) != 0 {
		t.Fatalf("BeforeTool deny: %+v", o)
	}
	o = Combine("AfterTool", []HookResult{res(`{"decision":"allow","hookSpecificOutput":{"hookEventName":"AfterTool","additionalContext":"ctx"}}`)})
	if o.Blocked || len(o.Errors) != 0 || len(o.AdditionalContext) != 1 || o.AdditionalContext[0] != "ctx" {
		t.Fatalf("AfterTool allow: %+v", o)
	}
	for _, ev := range []string{"PreToolUse", "SessionStart", "Stop"} {
		o = Combine(ev, []HookResult{res(`{"decision":"deny"}`)})
		if o.Blocked || len(o.Errors) != 1 {
			t.Fatalf("%s deny: %+v, want a reported malformed output", ev, o)
		}
	}
}
