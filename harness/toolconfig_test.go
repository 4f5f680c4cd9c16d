package harness

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestReadToolConfig(t *testing.T) {
	for _, c := range []struct {
		in      string
		want    *ToolConfig
		problem bool
	}{
		{``, nil, false},
		{`null`, nil, false},
		{`false`, nil, false},
		{`""`, nil, false},
		{`{}`, &ToolConfig{Mode: "AUTO", AllowedFunctionNames: []string{}}, false},
		{`{"mode":"NONE"}`, &ToolConfig{Mode: "NONE", AllowedFunctionNames: []string{}}, false},
		{`{"mode":"ANY","allowedFunctionNames":["read_file"]}`, &ToolConfig{Mode: "ANY", AllowedFunctionNames: []string{"read_file"}}, false},
		// Gemini CLI compares the mode with "NONE" and "ANY" exactly.
		{`{"mode":"none","allowedFunctionNames":null}`, &ToolConfig{Mode: "AUTO", AllowedFunctionNames: []string{}}, false},
		{`{"mode":7}`, &ToolConfig{Mode: "AUTO", AllowedFunctionNames: []string{}}, false},
		{`"NONE"`, nil, true},
		{`[]`, nil, true},
		{`{"allowedFunctionNames":"read_file"}`, nil, true},
		{`{"allowedFunctionNames":[1]}`, nil, true},
		{`{"allowedFunctionNames":{}}`, nil, true},
	} {
		got, problem := ReadToolConfig(json.RawMessage(c.in))
		if !reflect.DeepEqual(got, c.want) || (problem != "") != c.problem {
			t.Errorf("ReadToolConfig(%s) = %+v, %q; want %+v, problem %v", c.in, got, problem, c.want, c.problem)
		}
	}
}

// TestMergeToolConfigs: several hooks' answers merge as Gemini CLI 0.61's
// hookAggregator merges them: NONE wins (and offers no names), else ANY
// if any, else AUTO; the names are the sorted union. And the merge is
// associative, so bundlectl's merged answer merged again by Gemini CLI
// with another hook's is what Gemini CLI gives for all of them.
func TestMergeToolConfigs(t *testing.T) {
	none := &ToolConfig{Mode: "NONE", AllowedFunctionNames: []string{}}
	anyRead := &ToolConfig{Mode: "ANY", AllowedFunctionNames: []string{"read_file"}}
	autoGlob := &ToolConfig{Mode: "AUTO", AllowedFunctionNames: []string{"glob", "read_file"}}
	for _, c := range []struct {
		in   []*ToolConfig
		want *ToolConfig
	}{
		{nil, nil},
		{[]*ToolConfig{nil, nil}, nil},
		{[]*ToolConfig{anyRead}, anyRead},
		{[]*ToolConfig{nil, autoGlob}, autoGlob},
		{[]*ToolConfig{autoGlob, anyRead}, &ToolConfig{Mode: "ANY", AllowedFunctionNames: []string{"glob", "read_file"}}},
		{[]*ToolConfig{anyRead, none, autoGlob}, none},
		{[]*ToolConfig{none, anyRead}, none},
	} {
		if got := MergeToolConfigs(c.in...); !reflect.DeepEqual(got, c.want) {
			t.Errorf("MergeToolConfigs(%v) = %+v, want %+v", c.in, got, c.want)
		}
	}
	all := []*ToolConfig{autoGlob, anyRead, {Mode: "AUTO", AllowedFunctionNames: []string{"a"}}, none}
	for i := range all {
		for j := i + 1; j <= len(all); j++ {
			split := MergeToolConfigs(MergeToolConfigs(all[:i]...), MergeToolConfigs(all[i:j]...), MergeToolConfigs(all[j:]...))
			if whole := MergeToolConfigs(all...); !reflect.DeepEqual(split, whole) {
				t.Errorf("merge split at %d,%d = %+v, whole %+v", i, j, split, whole)
			}
		}
	}
}

// TestBeforeToolSelectionRelaysToolConfig: hooks run answers for every
// bundle's BeforeToolSelection hooks with their merged toolConfig (it was
// dropped: a reviewed guard narrowing the tools had no effect under
// setup gemini); a block there ends neither the chain nor the event, as
// in Gemini CLI; a toolConfig Gemini CLI would misread offers no tools.
func TestBeforeToolSelectionRelaysToolConfig(t *testing.T) {
	parse := func(bundle, out string) HookResult {
		r := ParseHookOutput(0, []byte(out), nil, false)
		r.Bundle = bundle
		return r
	}
	write := func(o Outcome) (int, map[string]any, string) {
		t.Helper()
		var out, errOut bytes.Buffer
		code, err := WriteOutcome(&out, &errOut, o)
		if err != nil {
			t.Fatal(err)
		}
		var j map[string]any
		if err := json.Unmarshal(out.Bytes(), &j); err != nil {
			t.Fatal(err)
		}
		hs, _ := j["hookSpecificOutput"].(map[string]any)
		tc, _ := json.Marshal(hs["toolConfig"])
		msg, _ := j["systemMessage"].(string)
		return code, j, string(tc) + " " + msg
	}

	o := Combine("BeforeToolSelection", []HookResult{
		parse("a", `{"decision":"block","reason":"no","hookSpecificOutput":{"hookEventName":"BeforeToolSelection","toolConfig":{"mode":"AUTO","allowedFunctionNames":["glob"]}}}`),
		{Bundle: "b", ExitCode: 2, Blocked: true, Reason: "stop", Continue: true},
		parse("c", `{"hookSpecificOutput":{"hookEventName":"BeforeToolSelection","toolConfig":{"mode":"ANY","allowedFunctionNames":["read_file"]}}}`),
		parse("d", `{"systemMessage":"hi"}`),
	})
	code, _, got := write(o)
	if code != 0 || !strings.HasPrefix(got, `{"allowedFunctionNames":["glob","read_file"],"mode":"ANY"} `) || !strings.Contains(got, "Gemini CLI ignores there") {
		t.Fatalf("merged: exit %d, %s", code, got)
	}

	o = Combine("BeforeToolSelection", []HookResult{
		parse("a", `{"hookSpecificOutput":{"hookEventName":"BeforeToolSelection","toolConfig":{"mode":"ANY","allowedFunctionNames":["read_file"]}}}`),
		parse("b", `{"hookSpecificOutput":{"hookEventName":"BeforeToolSelection","toolConfig":{"allowedFunctionNames":"read_file"}}}`),
	})
	if code, _, got := write(o); code != 0 || !strings.HasPrefix(got, `{"allowedFunctionNames":[],"mode":"NONE"} `) || !strings.Contains(got, "not a list of strings") {
		t.Fatalf("unreadable: exit %d, %s", code, got)
	}

	// No hook answered a tool configuration: none is written, as no
	// hook's in Gemini CLI.
	if _, j, _ := write(Combine("BeforeToolSelection", []HookResult{parse("a", `{}`)})); j["hookSpecificOutput"] != nil {
		t.Fatalf("no answer: %v", j)
	}
	// Elsewhere a toolConfig means nothing.
	if _, j, _ := write(Combine("BeforeModel", []HookResult{parse("a", `{"hookSpecificOutput":{"hookEventName":"BeforeModel","toolConfig":{"mode":"NONE"}}}`)})); j["hookSpecificOutput"] != nil {
		t.Fatalf("BeforeModel: %v", j)
	}

	// A chain refused or canceled offers no tools, exit 0 (exit 2 would
	// be ignored).
	r, _ := RefuseEvent("BeforeToolSelection", &HookEventError{Problem: "bad"})
	if code, _, got := write(r); code != 0 || !strings.HasPrefix(got, `{"allowedFunctionNames":[],"mode":"NONE"} `) || !strings.Contains(got, "bad; no tools are offered") {
		t.Fatalf("refused: exit %d, %s", code, got)
	}
}
