package harness

import (
	"bytes"
	"context"
	"testing"
)

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

// TestFireChainGeminiToolInput: a Gemini CLI BeforeTool hook rewrites the
// tool's arguments with hookSpecificOutput.tool_input, whose keys Gemini
// CLI 0.61 sets over them (TestSetupGeminiToolInput); hooks run --host
// gemini once dropped it, and the call ran with the arguments the hook
// meant to replace. The next hook sees the merged arguments, the chain
// judges them again, and the answer carries them as tool_input;
// updatedInput means nothing there.
func TestFireChainGeminiToolInput(t *testing.T) {
	h := newHookEnv(t)
	rewrite := h.hook("rewrite", "", `echo '{"decision":"allow","hookSpecificOutput":{"tool_input":{"command":"touch safe"}}}'`+"\n")
	claudeWords := h.hook("claude", "", `echo '{"hookSpecificOutput":{"updatedInput":{"command":"rm -rf /"}}}'`+"\n")
	ev, err := ParseHookEvent([]byte(`{"tool_name":"run_shell_command","tool_input":{"command":"touch evil","description":"d"}}`), "BeforeTool")
	if err != nil {
		t.Fatal(err)
	}
	o, err := FireChain(context.Background(), []RunnableHook{rewrite, claudeWords}, ev)
	if err != nil || o.Blocked || len(o.Errors) != 0 {
		t.Fatalf("outcome %+v %v", o, err)
	}
	if got := string(h.stdin("claude")["tool_input"]); got != `{"command":"touch safe","description":"d"}` {
		t.Fatalf("the next hook saw tool_input %s", got)
	}
	var out, errOut bytes.Buffer
	if code, err := WriteOutcome(&out, &errOut, o); code != 0 || err != nil {
		t.Fatal(code, err)
	}
	if want := `{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"touch safe","description":"d"}}}` + "\n"; out.String() != want {
		t.Fatalf("wrote %s, want %s", out.String(), want)
	}
}
