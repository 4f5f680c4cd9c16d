package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestFireChainGeminiSequentialToolInput: in a "sequential": true group
// Gemini CLI 0.61 gives the next BeforeTool hook the arguments with the
// earlier hook's tool_input spread over them, but builds the call from
// the last tool_input alone: a key the rewriter left out (dir_path here)
// is seen by the next hook and then dropped (internal/agenttest
// TestGeminiSequentialToolInput). hooks run --host gemini merged the
// tool_input over the arguments, so the call it passed on kept keys
// Gemini CLI's own run drops: the tool ran elsewhere than it does there.
func TestFireChainGeminiSequentialToolInput(t *testing.T) {
	for _, sequential := range []bool{false, true} {
		h := newHookEnv(t)
		one := h.hook("one", "", `echo '{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"touch one"}}}'`+"\n")
		two := h.hook("two", "", `cat `+filepath.Join(h.dir, "in-two")+` >>`+filepath.Join(h.dir, "log-two")+"; echo >>"+filepath.Join(h.dir, "log-two")+"\necho '{}'\n")
		two.geminiSequential = sequential
		ev, err := ParseHookEvent([]byte(`{"tool_name":"run_shell_command","tool_input":{"command":"touch orig","dir_path":"sub"}}`), "BeforeTool")
		if err != nil {
			t.Fatal(err)
		}
		o, err := FireChain(context.Background(), []RunnableHook{one, two}, ev)
		if err != nil || o.Blocked || len(o.Errors) != 0 {
			t.Fatalf("sequential=%v: outcome %+v %v", sequential, o, err)
		}
		if got, want := string(o.UpdatedInput), `{"command":"touch one"}`; !sameJSON(o.UpdatedInput, json.RawMessage(want)) {
			t.Errorf("sequential=%v: the call is built from %s, want %s (Gemini CLI builds it from the last tool_input alone)", sequential, got, want)
		}
		if !sequential {
			continue
		}
		log, err := os.ReadFile(filepath.Join(h.dir, "log-two"))
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := bytes.Cut(log, []byte("\n"))
		var in map[string]json.RawMessage
		if err := json.Unmarshal(first, &in); err != nil {
			t.Fatalf("hook two got %q: %v", first, err)
		}
		if want := `{"command":"touch one","dir_path":"sub"}`; !sameJSON(in["tool_input"], json.RawMessage(want)) {
			t.Errorf("the hook after the rewriter was given tool_input %s, want %s, as Gemini CLI chains it", in["tool_input"], want)
		}
	}
}

// TestFireChainGeminiSequentialOddAnswers: Gemini CLI 0.61 chains a
// BeforeAgent hook's additionalContext whenever it is a string, so an
// empty one still adds a blank line to the next hook's prompt, and
// spreads a BeforeModel hook's llm_request over the next hook's whatever
// its type when JavaScript takes it as true ({...req, ..."ab"} adds keys
// "0" and "1"; a number adds nothing). bundlectl chained neither, so a
// guard matching on the prompt or request it is given saw another input
// than under Gemini CLI itself.
func TestFireChainGeminiSequentialOddAnswers(t *testing.T) {
	cases := []struct {
		event, input, answer, field, want string
	}{
		{"BeforeAgent", `{"prompt":"hello"}`, `{"hookSpecificOutput":{"additionalContext":""}}`, "prompt", `"hello\n\n"`},
		{"BeforeAgent", `{"prompt":"hello"}`, `{"hookSpecificOutput":{"additionalContext":null}}`, "prompt", `"hello"`},
		{"BeforeModel", `{"llm_request":{"model":"m"}}`, `{"hookSpecificOutput":{"llm_request":"ab"}}`, "llm_request", `{"0":"a","1":"b","model":"m"}`},
		{"BeforeModel", `{"llm_request":{"model":"m"}}`, `{"hookSpecificOutput":{"llm_request":["x"]}}`, "llm_request", `{"0":"x","model":"m"}`},
		{"BeforeModel", `{"llm_request":{"model":"m"}}`, `{"hookSpecificOutput":{"llm_request":5}}`, "llm_request", `{"model":"m"}`},
		{"BeforeModel", `{"llm_request":{"model":"m"}}`, `{"hookSpecificOutput":{"llm_request":""}}`, "llm_request", `{"model":"m"}`},
		{"BeforeModel", `{"llm_request":{"model":"m"}}`, `{"hookSpecificOutput":{"llm_request":"\ud83d\ude00"}}`, "llm_request", `{"0":"\ud83d","1":"\ude00","model":"m"}`},
	}
	for _, c := range cases {
		h := newHookEnv(t)
		rewrite := h.hook("rewrite", "", "echo '"+c.answer+"'\n")
		guard := h.hook("guard", "", "echo '{}'\n")
		guard.geminiSequential = true
		ev, err := ParseHookEvent([]byte(c.input), c.event)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := FireChain(context.Background(), []RunnableHook{rewrite, guard}, ev); err != nil {
			t.Fatal(err)
		}
		got := h.stdin("guard")[c.field]
		if c.field == "llm_request" {
			// A lone surrogate decodes to U+FFFD either way: compare bytes.
			var m map[string]json.RawMessage
			_ = json.Unmarshal(got, &m)
			var w map[string]json.RawMessage
			_ = json.Unmarshal([]byte(c.want), &w)
			if len(m) != len(w) {
				t.Errorf("%s answer %s: the guard was given %s %s, want %s", c.event, c.answer, c.field, got, c.want)
				continue
			}
			for k, v := range w {
				if !bytes.Equal(m[k], v) {
					t.Errorf("%s answer %s: the guard was given %s %s, want %s", c.event, c.answer, c.field, got, c.want)
					break
				}
			}
			continue
		}
		if !sameJSON(got, json.RawMessage(c.want)) {
			t.Errorf("%s answer %s: the guard was given %s %s, want %s", c.event, c.answer, c.field, got, c.want)
		}
	}
}
