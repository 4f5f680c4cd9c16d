package harness

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestGeminiModelEventsMerge: Gemini CLI 0.61 runs every BeforeModel and
// AfterModel hook and merges their answers field by field, so one hook's
// deny does not end the chain: a later hook's "continue": false still
// stops the agent (on AfterModel a deny alone lets the judged chunk, and
// a tool call in it, through: internal/agenttest
// TestSetupGeminiAfterModelBlock). bundlectl once stopped at the deny and
// relayed it alone. The deny stays: a later "allow" does not undo it.
func TestGeminiModelEventsMerge(t *testing.T) {
	res := func(out string) HookResult {
		r := ParseHookOutput(0, []byte(out), nil, false)
		r.Bundle = "g"
		return r
	}
	for _, ev := range []string{"BeforeModel", "AfterModel"} {
		o := Combine(ev, []HookResult{res(`{"decision":"deny","reason":"no"}`), res(`{"continue":false,"stopReason":"stop"}`), res(`{"decision":"allow"}`)})
		if !o.Blocked || o.Reason != "no" || o.Continue || o.StopReason != "stop" {
			t.Fatalf("%s: %+v, want the deny and the stop both", ev, o)
		}
		var out, errOut bytes.Buffer
		code, err := WriteOutcome(&out, &errOut, o)
		var j map[string]any
		if err != nil || json.Unmarshal(out.Bytes(), &j) != nil || j["continue"] != false || j["decision"] != "block" || code != 2 {
			t.Fatalf("%s: exit %d %v, answer %s", ev, code, err, out.Bytes())
		}
	}
}

// TestWriteOutcomeAfterModelFailsClosed: a guard of AfterModel that
// cannot run is answered with "continue": false and exit 0, with the
// reason and its fix in systemMessage: a block there would still let
// the judged chunk's tool call run in Gemini CLI 0.61. A hook's own deny
// is relayed as the block it is.
func TestWriteOutcomeAfterModelFailsClosed(t *testing.T) {
	o := NewOutcome("AfterModel")
	o.block(HookRef{Bundle: "g", Hook: 0}, WithHint(`bundlectl: bundle "g" has a guard for this event that cannot run`, "bundlectl verify g"))
	var out, errOut bytes.Buffer
	code, err := WriteOutcome(&out, &errOut, o)
	var j struct {
		Continue      *bool  `json:"continue"`
		StopReason    string `json:"stopReason"`
		SystemMessage string `json:"systemMessage"`
		Decision      string `json:"decision"`
	}
	if err != nil || code != 0 || json.Unmarshal(out.Bytes(), &j) != nil || j.Continue == nil || *j.Continue || j.Decision != "" ||
		!strings.Contains(j.SystemMessage, `bundle "g"`) || !strings.Contains(j.SystemMessage, "hint: bundlectl verify g") || j.StopReason == "" {
		t.Fatalf("exit %d %v, answer %s", code, err, out.Bytes())
	}
	r := ParseHookOutput(0, []byte(`{"decision":"deny","reason":"no"}`), nil, false)
	o = Combine("AfterModel", []HookResult{r})
	out.Reset()
	code, _ = WriteOutcome(&out, &errOut, o)
	if code != 2 || strings.Contains(out.String(), `"continue"`) || !strings.Contains(out.String(), `"decision":"block"`) {
		t.Fatalf("a hook's own deny: exit %d, answer %s", code, out.Bytes())
	}
}

// TestToolConfigMisread: hooks exec answers no tools for a
// BeforeToolSelection answer Gemini CLI 0.61 would misread, read as
// Gemini CLI reads it whatever the exit status (internal/agenttest
// TestExecGeminiToolSelectionMisread: a number there drops every hook's
// configuration, a guard's narrowing included).
func TestToolConfigMisread(t *testing.T) {
	bad := []byte(`{"hookSpecificOutput":{"toolConfig":{"mode":"AUTO","allowedFunctionNames":5}}}`)
	good := []byte(`{"hookSpecificOutput":{"toolConfig":{"mode":"AUTO","allowedFunctionNames":["read_file"]}}}`)
	for _, c := range []struct {
		res  Result
		want bool
	}{
		{Result{Stdout: bad}, true},
		{Result{ExitCode: 1, Stdout: bad}, true},
		{Result{ExitCode: 2, Stdout: bad}, true},
		{Result{Stderr: bad}, true},
		{Result{Stdout: good}, false},
		{Result{Stdout: []byte("plain")}, false},
	} {
		if got := ToolConfigMisread(&c.res) != ""; got != c.want {
			t.Errorf("%+v: misread %v, want %v", c.res, got, c.want)
		}
	}
}
