package agenttest

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// toolSelectionHooks are two BeforeToolSelection hooks, each narrowing
// the tools its own way.
func toolSelectionHooks() map[string]any {
	hook := func(answer string) map[string]any {
		return map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "cat >/dev/null; echo '" + answer + "'"}}}
	}
	return map[string]any{"hooks": map[string]any{"BeforeToolSelection": []any{
		hook(`{"hookSpecificOutput":{"hookEventName":"BeforeToolSelection","toolConfig":{"mode":"AUTO","allowedFunctionNames":["read_file"]}}}`),
		hook(`{"hookSpecificOutput":{"hookEventName":"BeforeToolSelection","toolConfig":{"mode":"ANY","allowedFunctionNames":["glob"]}}}`),
	}}}
}

type functionCallingConfig struct {
	Mode                 string   `json:"mode"`
	AllowedFunctionNames []string `json:"allowedFunctionNames"`
}

// offeredToolConfigs returns the functionCallingConfig of every model
// request that offered tools.
func offeredToolConfigs(t *testing.T, a *Agent) []functionCallingConfig {
	var out []functionCallingConfig
	for _, r := range a.Model.Requests() {
		var body struct {
			Tools      []json.RawMessage `json:"tools"`
			ToolConfig struct {
				FunctionCallingConfig functionCallingConfig `json:"functionCallingConfig"`
			} `json:"toolConfig"`
		}
		if json.Unmarshal(r.Body, &body) != nil || len(body.Tools) == 0 {
			continue
		}
		out = append(out, body.ToolConfig.FunctionCallingConfig)
	}
	return out
}

// offeredToolModes returns, for every model request that offered tools,
// its toolConfig's mode followed by its allowed function names joined by
// commas ("ANYglob,read_file"), or "unset" when it had no toolConfig.
func offeredToolModes(a *Agent) []string {
	var out []string
	for _, r := range a.Model.Requests() {
		var body struct {
			Tools      []json.RawMessage `json:"tools"`
			ToolConfig *struct {
				FunctionCallingConfig functionCallingConfig `json:"functionCallingConfig"`
			} `json:"toolConfig"`
		}
		if json.Unmarshal(r.Body, &body) != nil || len(body.Tools) == 0 {
			continue
		}
		m := "unset"
		if body.ToolConfig != nil {
			m = body.ToolConfig.FunctionCallingConfig.Mode + strings.Join(body.ToolConfig.FunctionCallingConfig.AllowedFunctionNames, ",")
		}
		out = append(out, m)
	}
	return out
}

// TestSetupGeminiToolSelection: Gemini CLI 0.61 sends each model request
// with the toolConfig its BeforeToolSelection hooks answered, merged
// (one hook's AUTO ["read_file"] and another's ANY ["glob"] give ANY
// ["glob","read_file"]: the union of names, ANY over AUTO). Under
// bundlectl setup gemini the same hooks, reviewed and run by hooks run
// --host gemini, must narrow the tools the same way; bundlectl once
// dropped their answers, and the request went out with every tool.
func TestSetupGeminiToolSelection(t *testing.T) {
	t.Parallel()
	want := functionCallingConfig{Mode: "ANY", AllowedFunctionNames: []string{"glob", "read_file"}}

	// Gemini CLI itself, the hooks in an installed extension.
	direct := New(t, GeminiCLI, Say("done"))
	root := filepath.Join(direct.ConfigDir(), "extensions", pluginName)
	writeJSONFile(t, root, "gemini-extension.json", map[string]any{"name": pluginName, "version": "1.0.0"})
	writeJSONFile(t, root, "hooks/hooks.json", toolSelectionHooks())
	res := direct.Run(t, "hello")
	got := offeredToolConfigs(t, direct)
	if len(got) == 0 {
		t.Fatalf("no model request offering tools was seen\n%s", res)
	}
	for _, c := range got {
		if !reflect.DeepEqual(c, want) {
			t.Fatalf("Gemini CLI sent %+v, want %+v (found by trying Gemini CLI 0.61)\n%s", c, want, res)
		}
	}

	// The same hooks in a reviewed bundle, under setup gemini.
	a := New(t, GeminiCLI, Say("done"))
	f := newExecFixture(t, a)
	writeJSONFile(t, f.src, "hooks/hooks.json", toolSelectionHooks())
	f.trust(t)
	f.runSetup(t, a, "hello")
	res = a.Run(t, "hello")
	got = offeredToolConfigs(t, a)
	if len(got) == 0 {
		t.Fatalf("no model request offering tools was seen under setup\n%s", res)
	}
	for _, c := range got {
		if !reflect.DeepEqual(c, want) {
			t.Fatalf("under setup gemini the request went out with %+v, want %+v as Gemini CLI gives for the same hooks\n%s", c, want, res)
		}
	}
}
