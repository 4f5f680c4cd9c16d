package harness

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestFireChainGeminiToolInputReset: Gemini CLI 0.61 keeps the last
// BeforeTool tool_input of any type and builds the call only from an
// object, so a tool_input that is not an object after another hook's
// rewrite has the model's arguments run, which the rewriter did not let
// through (internal/agenttest TestGeminiToolInputReset). hooks run
// --host gemini kept the rewrite instead, a call Gemini CLI never runs;
// now such a round is refused, naming both hooks and the field. A
// non-object tool_input with no rewrite before it, or one a later
// object replaces, changes nothing, as in Gemini CLI.
func TestFireChainGeminiToolInputReset(t *testing.T) {
	const rewrite = `{"command":"touch safe"}`
	answer := func(toolInput string) string {
		return `echo '{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":` + toolInput + `}}'` + "\n"
	}
	for _, c := range []struct {
		name    string
		answers []string // each hook's tool_input, "" for none
		blocked bool
		want    string // the arguments relayed when not blocked, "" for none
	}{
		{"null-after-rewrite", []string{rewrite, "null"}, true, ""},
		{"string-after-rewrite", []string{rewrite, `"x"`}, true, ""},
		{"array-after-rewrite", []string{rewrite, `[1]`}, true, ""},
		{"false-after-rewrite-and-silence", []string{rewrite, "", "false"}, true, ""},
		{"null-alone", []string{"null"}, false, ""},
		{"null-before-rewrite", []string{"null", rewrite}, false, rewrite},
		{"rewrite-null-rewrite", []string{rewrite, "null", rewrite}, false, rewrite},
		{"null-after-unchanged", []string{`{"command":"touch orig"}`, "null"}, false, ""},
	} {
		for _, sequential := range []bool{false, true} {
			h := newHookEnv(t)
			var hooks []RunnableHook
			for i, a := range c.answers {
				body := "echo '{}'\n"
				if a != "" {
					body = answer(a)
				}
				hk := h.hook(string(rune('a'+i)), "", body)
				hk.geminiSequential = sequential
				hooks = append(hooks, hk)
			}
			ev, err := ParseHookEvent([]byte(`{"tool_name":"run_shell_command","tool_input":{"command":"touch orig"}}`), "BeforeTool")
			if err != nil {
				t.Fatal(err)
			}
			o, err := FireChain(context.Background(), hooks, ev)
			if err != nil {
				t.Fatalf("%s sequential=%v: %v", c.name, sequential, err)
			}
			if o.Blocked != c.blocked {
				t.Errorf("%s sequential=%v: blocked %v (%s), want %v", c.name, sequential, o.Blocked, o.Reason, c.blocked)
				continue
			}
			if c.blocked {
				if !strings.Contains(o.Reason, "hookSpecificOutput.tool_input") || !strings.Contains(o.Reason, "not an object") || o.UpdatedInput != nil {
					t.Errorf("%s sequential=%v: the refusal does not name the field and why, or relays arguments %s: %s", c.name, sequential, o.UpdatedInput, o.Reason)
				}
				if o.blockFix != "bundlectl show b-"+string(rune('a'+len(c.answers)-1)) {
					t.Errorf("%s sequential=%v: fix %q", c.name, sequential, o.blockFix)
				}
				continue
			}
			if c.want == "" && o.UpdatedInput != nil || c.want != "" && !sameJSON(o.UpdatedInput, json.RawMessage(c.want)) {
				t.Errorf("%s sequential=%v: relayed arguments %s, want %q", c.name, sequential, o.UpdatedInput, c.want)
			}
		}
	}
}
