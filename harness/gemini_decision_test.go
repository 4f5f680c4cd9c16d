package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"syscall"
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
// tool's arguments with hookSpecificOutput.tool_input, which Gemini CLI
// 0.61 builds the call from alone (TestSetupGeminiToolInput,
// TestGeminiSequentialToolInput); hooks run --host gemini once dropped
// it, and the call ran with the arguments the hook meant to replace, and
// then merged it over the arguments, keeping keys Gemini CLI drops. The
// next hook sees the new arguments, the chain judges them again, and the
// answer carries them as tool_input; updatedInput means nothing there.
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
	if got := string(h.stdin("claude")["tool_input"]); got != `{"command":"touch safe"}` {
		t.Fatalf("the next hook saw tool_input %s", got)
	}
	var out, errOut bytes.Buffer
	if code, err := WriteOutcome(&out, &errOut, o); code != 0 || err != nil {
		t.Fatal(code, err)
	}
	if want := `{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"touch safe"}}}` + "\n"; out.String() != want {
		t.Fatalf("wrote %s, want %s", out.String(), want)
	}
}

// TestGeminiModelAnswers: BeforeModel's llm_request and llm_response and
// AfterModel's llm_response are relayed, the last hook's that gave one
// winning as in Gemini CLI's field-by-field merge (TestSetupGeminiModelAnswers);
// on a BeforeModel block the synthetic llm_response goes with it, as
// Gemini CLI reads stdout's JSON on exit 2 too.
func TestGeminiModelAnswers(t *testing.T) {
	res := func(out string) HookResult { return ParseHookOutput(0, []byte(out), nil, false) }
	write := func(o Outcome) (int, string) {
		var out, errOut bytes.Buffer
		code, err := WriteOutcome(&out, &errOut, o)
		if err != nil {
			t.Fatal(err)
		}
		return code, out.String()
	}
	o := Combine("BeforeModel", []HookResult{
		res(`{"hookSpecificOutput":{"llm_request":{"model":"a"}}}`),
		res(`{"hookSpecificOutput":{"llm_request":{"model":"b"},"llm_response":"not an object"}}`),
		res(`{"systemMessage":"m"}`),
	})
	if code, got := write(o); code != 0 || got != `{"systemMessage":"m","hookSpecificOutput":{"hookEventName":"BeforeModel","llm_request":{"model":"b"}}}`+"\n" {
		t.Fatalf("BeforeModel: %d %s", code, got)
	}
	o = Combine("BeforeModel", []HookResult{
		res(`{"decision":"deny","reason":"no","hookSpecificOutput":{"llm_request":{"model":"b"},"llm_response":{"candidates":[]}}}`),
	})
	if code, got := write(o); code != 2 || got != `{"decision":"block","reason":"no","hookSpecificOutput":{"hookEventName":"BeforeModel","llm_response":{"candidates":[]}}}`+"\n" {
		t.Fatalf("BeforeModel blocked: %d %s", code, got)
	}
	o = Combine("AfterModel", []HookResult{res(`{"hookSpecificOutput":{"llm_response":{"candidates":[{"content":{"role":"model","parts":["x"]}}]}}}`)})
	if code, got := write(o); code != 0 || !strings.Contains(got, `"llm_response":{"candidates":[{"content":{"role":"model","parts":["x"]}}]}`) {
		t.Fatalf("AfterModel: %d %s", code, got)
	}
	// Other events relay neither.
	if _, got := write(Combine("BeforeAgent", []HookResult{res(`{"hookSpecificOutput":{"llm_request":{"model":"b"}}}`)})); got != "{}\n" {
		t.Fatalf("BeforeAgent: %s", got)
	}
}

// TestGeminiTailCallAndClearContext: AfterTool's tailToolCallRequest (the
// last hook's; TestSetupGeminiTailCall) and AfterAgent's clearContext (if
// any hook's is true) are relayed, as Gemini CLI merges them; a blocked
// result gets no tail call, as in Gemini CLI.
func TestGeminiTailCallAndClearContext(t *testing.T) {
	res := func(out string) HookResult { return ParseHookOutput(0, []byte(out), nil, false) }
	write := func(o Outcome) string {
		var out, errOut bytes.Buffer
		if _, err := WriteOutcome(&out, &errOut, o); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	o := Combine("AfterTool", []HookResult{
		res(`{"hookSpecificOutput":{"tailToolCallRequest":{"name":"a","args":{}}}}`),
		res(`{"hookSpecificOutput":{"tailToolCallRequest":{"name":"b","args":{"x":1}}}}`),
		res(`{"hookSpecificOutput":{"tailToolCallRequest":["not","an","object"]}}`),
	})
	if got := write(o); got != `{"hookSpecificOutput":{"hookEventName":"AfterTool","tailToolCallRequest":{"name":"b","args":{"x":1}}}}`+"\n" {
		t.Fatalf("AfterTool: %s", got)
	}
	o = Combine("AfterTool", []HookResult{res(`{"hookSpecificOutput":{"tailToolCallRequest":{"name":"a"}}}`), res(`{"decision":"deny","reason":"hidden"}`)})
	if got := write(o); strings.Contains(got, "tailToolCallRequest") {
		t.Fatalf("blocked AfterTool: %s", got)
	}
	o = Combine("AfterAgent", []HookResult{res(`{"hookSpecificOutput":{"clearContext":true}}`), res(`{"decision":"deny","reason":"retry","hookSpecificOutput":{"clearContext":false}}`)})
	if got := write(o); !strings.Contains(got, `"clearContext":true`) || !strings.Contains(got, `"decision":"block"`) {
		t.Fatalf("AfterAgent: %s", got)
	}
	if got := write(Combine("AfterAgent", []HookResult{res(`{"hookSpecificOutput":{"clearContext":"true"}}`)})); got != "{}\n" {
		t.Fatalf("clearContext \"true\" is not true in Gemini CLI: %s", got)
	}
}

// TestFireChainGeminiExitAnswers: on Gemini CLI's own events a hook that
// exits with a status other than 0 and 2 still answers, as in Gemini CLI
// 0.61 (TestSetupGeminiExitAnswers): JSON on stdout is read, and text
// after a status above 2 denies; hooks run --host gemini once reported
// both as failures, and the tool ran. Exit 1 with text stays a failure,
// and on Claude Code's events nothing changes.
func TestFireChainGeminiExitAnswers(t *testing.T) {
	for _, c := range []struct {
		event, body string
		blocked     bool
		reason      string
	}{
		{"BeforeTool", "echo nope >&2; exit 3\n", true, "nope"},
		{"BeforeTool", "echo plain; exit 5\n", true, "plain"},
		{"BeforeTool", `echo '{"decision":"deny","reason":"json"}'; exit 1` + "\n", true, "json"},
		{"BeforeTool", "echo warn >&2; exit 1\n", false, ""},
		{"BeforeTool", "exit 3\n", false, ""},
		{"PreToolUse", "echo nope >&2; exit 3\n", false, ""},
		{"PreToolUse", `echo '{"decision":"block","reason":"json"}'; exit 1` + "\n", false, ""},
	} {
		h := newHookEnv(t)
		ev, err := ParseHookEvent([]byte(`{"tool_name":"x","tool_input":{}}`), c.event)
		if err != nil {
			t.Fatal(err)
		}
		o, _ := FireChain(context.Background(), []RunnableHook{h.hook("g", "", c.body)}, ev)
		if o.Blocked != c.blocked || o.Reason != c.reason || (!c.blocked && len(o.Errors) != 1 && c.body != "exit 3\n") {
			t.Errorf("%s %q: %+v, want blocked %v %q", c.event, c.body, o, c.blocked, c.reason)
		}
	}
}

// TestFireChainGeminiAnswerText: Gemini CLI 0.61 reads stderr when stdout
// is empty, whatever the exit status, and decodes an answer given as a
// JSON string (TestSetupGeminiExitAnswers); hooks run --host gemini once
// let the tool run past a deny given either way. Log text on stderr, or a
// string that encodes no object, still says nothing.
func TestFireChainGeminiAnswerText(t *testing.T) {
	for _, c := range []struct {
		event, body string
		blocked     bool
		errs        int
	}{
		{"BeforeTool", `echo '{"decision":"deny","reason":"json"}' >&2` + "\n", true, 0},
		{"BeforeTool", `echo '"{\"decision\":\"deny\",\"reason\":\"json\"}"'` + "\n", true, 0},
		{"BeforeTool", `echo ' "{\"decision\":\"deny\",\"reason\":\"json\"}"'; exit 1` + "\n", true, 0},
		{"AfterTool", `echo '{"decision":"block","reason":"json"}' >&2` + "\n", true, 0},
		// A byte order mark, which JavaScript's trim() takes off.
		{"BeforeTool", `printf '\357\273\277{"decision":"deny","reason":"json"}\n'` + "\n", true, 0},
		{"BeforeTool", "echo log >&2\n", false, 0},
		{"BeforeTool", `echo '{not json' >&2` + "\n", false, 0},
		{"BeforeTool", `echo '"just text"'` + "\n", false, 0},
		{"PreToolUse", `echo '{"decision":"block","reason":"json"}' >&2` + "\n", false, 0},
		// JSON.parse of a decoded string skips JSON's white space only:
		// after a no-break space it is text, after exit 3 a deny.
		{"BeforeTool", `printf '"\302\240{\\"decision\\":\\"allow\\"}"'; exit 3` + "\n", true, 0},
		{"PreToolUse", `echo '"{\"decision\":\"block\",\"reason\":\"json\"}"'` + "\n", false, 0},
	} {
		h := newHookEnv(t)
		ev, err := ParseHookEvent([]byte(`{"tool_name":"x","tool_input":{}}`), c.event)
		if err != nil {
			t.Fatal(err)
		}
		o, _ := FireChain(context.Background(), []RunnableHook{h.hook("g", "", c.body)}, ev)
		if o.Blocked != c.blocked || (c.blocked && o.Reason != "json" && !strings.Contains(c.body, "exit 3")) || len(o.Errors) != c.errs {
			t.Errorf("%s %q: %+v, want blocked %v", c.event, c.body, o, c.blocked)
		}
	}
}

// FuzzGeminiHookAnswer: whatever a hook prints and however it exits, the
// reading of Gemini CLI's answers (geminiExitAnswer, tool_input merged
// over the arguments, toolConfig, the model answers) never panics, and
// the answer written back is one JSON object with exit 2 exactly when it
// blocks (never on BeforeToolSelection, where Gemini CLI ignores a block).
func FuzzGeminiHookAnswer(f *testing.F) {
	events := []string{"BeforeTool", "BeforeToolSelection", "BeforeModel", "AfterModel", "AfterTool", "AfterAgent", "BeforeAgent", "PreToolUse"}
	for _, s := range []string{
		``, `plain`, `{}`, `"{\"decision\":\"deny\"}"`, `"x"`, `42`, `[]`, `{"decision":"deny","reason":"r"}`, `{"decision":"allow"}`,
		`{"hookSpecificOutput":{"tool_input":{"command":"rm"}}}`, `{"hookSpecificOutput":{"tool_input":[1]}}`,
		`{"hookSpecificOutput":{"toolConfig":{"mode":"ANY","allowedFunctionNames":["a","b"]}}}`,
		`{"hookSpecificOutput":{"toolConfig":{"allowedFunctionNames":"abc"}}}`, `{"hookSpecificOutput":{"toolConfig":-0}}`,
		`{"hookSpecificOutput":{"llm_request":{"a":1},"llm_response":{"b":2},"tailToolCallRequest":{"name":"x"},"clearContext":true}}`,
	} {
		for _, code := range []int{0, 1, 2, 3} {
			f.Add(code, []byte(s), []byte(""), uint8(code))
			f.Add(code, []byte(""), []byte(s), uint8(code+4))
		}
	}
	f.Fuzz(func(t *testing.T, code int, stdout, stderr []byte, ev uint8) {
		event := events[int(ev)%len(events)]
		res := &Result{ExitCode: code, Stdout: stdout, Stderr: stderr}
		r := ParseHookOutput(code, stdout, stderr, false)
		if geminiOnlyEvent(event) {
			r = geminiExitAnswer(r, res)
		}
		if event == geminiBeforeTool && r.Failure == "" && r.GeminiToolInput != nil {
			if !json.Valid(r.GeminiToolInput) {
				t.Fatalf("tool_input %q is not JSON", r.GeminiToolInput)
			}
			r.UpdatedInput = r.GeminiToolInput
		}
		o := NewOutcome(event)
		o.add(r)
		var out, errOut bytes.Buffer
		code2, err := WriteOutcome(&out, &errOut, o)
		if err != nil || !json.Valid(out.Bytes()) {
			t.Fatalf("WriteOutcome: %v %q", err, out.Bytes())
		}
		if WithholdsTools(event) && code2 == 2 || !WithholdsTools(event) && (code2 == 2) != o.Blocked {
			t.Fatalf("%s: exit %d for blocked=%v", event, code2, o.Blocked)
		}
	})
}

// TestFireChainGeminiSignalAndCutAnswers: Gemini CLI 0.61 reads the
// output of a hook killed by a signal as an exit-0 answer (its null exit
// status counts as 0), and reads a hook's whole output whatever its exit
// status; hooks run --host gemini let the tool run past a deny printed
// before a kill, and past one cut at the output cap after exit 1 or on
// stderr (TestSetupGeminiExitAnswers).
func TestFireChainGeminiSignalAndCutAnswers(t *testing.T) {
	big := `head -c 3000 /dev/zero | tr '\0' ' '; `
	for _, c := range []struct {
		event, body string
		blocked     bool
	}{
		{"BeforeTool", `killed:{"decision":"deny","reason":"json"}`, true},
		{"BeforeTool", `killed:log`, false},
		{"BeforeTool", `printf '{"decision":"deny","reason":"json"'; ` + big + `echo '}'; exit 1` + "\n", true},
		{"BeforeTool", `(printf '{"decision":"deny","reason":"json"'; ` + big + `echo '}') >&2` + "\n", true},
		{"PreToolUse", `printf '{"decision":"block","reason":"json"'; ` + big + `echo '}'; exit 1` + "\n", false},
		{"BeforeToolSelection", `printf '{"hookSpecificOutput":{"toolConfig":{"mode":"ANY","allowedFunctionNames":["a"]}}'; ` + big + `echo '}'; exit 1` + "\n", false},
	} {
		h := newHookEnv(t)
		ev, err := ParseHookEvent([]byte(`{"tool_name":"x","tool_input":{}}`), c.event)
		if err != nil {
			t.Fatal(err)
		}
		hk := h.hook("g", "", c.body)
		hk.Spec.MaxOutput = 1024
		if out, ok := strings.CutPrefix(c.body, "killed:"); ok {
			// A hook killed by a signal after printing out (a hook
			// cannot kill itself here: it runs as its PID namespace's
			// init, which SIGKILL from inside does not end).
			hk.Run = func(context.Context, Spec) (*Result, error) {
				return &Result{ExitCode: -1, Signal: syscall.SIGKILL, Stdout: []byte(out + "\n")}, nil
			}
		}
		o, _ := FireChain(context.Background(), []RunnableHook{hk}, ev)
		if o.Blocked != c.blocked || c.event == "BeforeToolSelection" && !o.NoTools {
			t.Errorf("%s %q: %+v, want blocked %v", c.event, c.body, o, c.blocked)
		}
	}
}

// TestParseHookOutputTrim: Claude Code trims a hook's stdout as
// JavaScript does, taking off a byte order mark, and Codex as Rust does,
// taking off U+0085; a deny after either is read as a deny
// (internal/agenttest TestClaudeHookAnswerBOM), where bundlectl once read
// the byte order mark's as plain text and let the tool run.
func TestParseHookOutputTrim(t *testing.T) {
	for _, pre := range []string{"\uFEFF", "\u0085", " \n\uFEFF\t"} {
		r := ParseHookOutput(0, []byte(pre+`{"decision":"block","reason":"no"}`+"\n"), nil, false)
		if !r.Blocked || r.Reason != "no" {
			t.Errorf("%q: %+v, want a block", pre, r)
		}
	}
}

// TestGeminiOtherEventName: Gemini CLI 0.61 never reads
// hookSpecificOutput.hookEventName, so on its own events an answer naming
// another event (a guard written for Claude Code's PreToolUse too) counts:
// its deny blocks (TestSetupGeminiExitAnswers other-event-deny). hooks run
// --host gemini once ignored the whole answer, and the tool ran. On
// Claude Code's events such an answer is still ignored and reported.
func TestGeminiOtherEventName(t *testing.T) {
	res := func(out string) HookResult {
		r := ParseHookOutput(0, []byte(out), nil, false)
		r.Bundle = "g"
		return r
	}
	o := Combine("BeforeTool", []HookResult{res(`{"decision":"deny","reason":"no shell","hookSpecificOutput":{"hookEventName":"PreToolUse"}}`)})
	if !o.Blocked || o.Reason != "no shell" || len(o.Errors) != 0 {
		t.Fatalf("BeforeTool deny naming PreToolUse: %+v", o)
	}
	o = Combine("AfterAgent", []HookResult{res(`{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"ctx"}}`)})
	if len(o.Errors) != 0 || len(o.AdditionalContext) != 1 {
		t.Fatalf("AfterAgent context naming Stop: %+v", o)
	}
	o = Combine("PreToolUse", []HookResult{res(`{"decision":"block","hookSpecificOutput":{"hookEventName":"BeforeTool"}}`)})
	if o.Blocked || len(o.Errors) != 1 {
		t.Fatalf("PreToolUse block naming BeforeTool: %+v, want ignored and reported", o)
	}
}

// TestFireChainGeminiSharedEvents: on SessionStart, SessionEnd,
// Notification and PreCompress Gemini CLI 0.61 runs every hook, reads
// each one's output whatever its exit status (2 included), and uses only
// SessionStart's additionalContext and the systemMessages: no hook blocks
// or stops there, and plain output is a systemMessage, not context.
// hooks run --host gemini once read them as Claude Code does: a hook's
// exit 2 stopped the chain, so the other hooks' context was lost, and a
// deny or an answer naming another event was malformed output.
func TestFireChainGeminiSharedEvents(t *testing.T) {
	for _, event := range []string{"SessionStart", "PreCompress"} {
		h := newHookEnv(t)
		ev, err := ParseHookEvent([]byte(`{"source":"startup","trigger":"auto"}`), event)
		if err != nil {
			t.Fatal(err)
		}
		var hooks []RunnableHook
		for _, c := range [][2]string{
			{"exit2", "echo nope >&2; exit 2\n"},
			{"deny", `echo '{"decision":"deny","systemMessage":"m","hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"ctx1"}}'` + "\n"},
			{"exit2json", `echo '{"hookSpecificOutput":{"additionalContext":"ctx2"}}'; exit 2` + "\n"},
			{"plain", "echo plain\n"},
			{"stop", `echo '{"continue":false,"stopReason":"halt"}'` + "\n"},
			{"exit1json", `echo '{"hookSpecificOutput":{"additionalContext":"ctx3"}}'; exit 1` + "\n"},
		} {
			hk := h.hook(c[0], "", c[1])
			hk.geminiShared = true
			hooks = append(hooks, hk)
		}
		o, err := FireChain(context.Background(), hooks, ev)
		if err != nil {
			t.Fatal(err)
		}
		if !o.Proceed() || o.Blocked || strings.Join(o.AdditionalContext, ",") != "ctx1,ctx2,ctx3" || len(o.Errors) != 1 {
			t.Fatalf("%s: %+v", event, o)
		}
		for _, name := range []string{"exit2", "deny", "exit2json", "plain", "stop", "exit1json"} {
			if !h.ran(name) {
				t.Errorf("%s: hook %s did not run", event, name)
			}
		}
		msgs := strings.Join(o.SystemMessages, "\n")
		for _, want := range []string{"m", "plain", "b-deny", "b-stop", "which Gemini CLI ignores there"} {
			if !strings.Contains(msgs, want) {
				t.Errorf("%s: systemMessages %q lack %q", event, msgs, want)
			}
		}
		if !strings.Contains(o.Errors[0].Message, "Gemini CLI ignores") {
			t.Errorf("%s: error %q", event, o.Errors[0].Message)
		}
	}
}
