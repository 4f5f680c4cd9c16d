package harness

import (
	"bytes"
	"encoding/json"
	"slices"
)

// Tool-calling modes of a Gemini CLI BeforeToolSelection answer, as
// Gemini CLI 0.61 merges them: any other mode, or none, counts as AUTO.
const (
	ToolModeNone = "NONE"
	ToolModeAny  = "ANY"
	ToolModeAuto = "AUTO"
)

// ToolConfig is a Gemini CLI BeforeToolSelection answer
// (hookSpecificOutput.toolConfig): the function-calling mode of the next
// model request and the names of the functions the model may call.
// Gemini CLI sends it as the request's toolConfig.functionCallingConfig;
// the tools stay listed.
type ToolConfig struct {
	Mode                 string   `json:"mode"`
	AllowedFunctionNames []string `json:"allowedFunctionNames"`
}

// ReadToolConfig reads a hook's hookSpecificOutput.toolConfig as Gemini
// CLI 0.61 does (hookAggregator.mergeToolSelectionOutputs): absent, null,
// false, 0 or "" is no answer (nil, ""); an object's "mode" "NONE" or
// "ANY" is that mode and anything else AUTO; its "allowedFunctionNames",
// when given, are the names. An answer Gemini CLI would misread — a
// toolConfig that is not an object, names that are not a list of strings
// (Gemini CLI then drops every hook's tool configuration, or sends names
// the API refuses) — is returned with a problem, and the caller resolves
// it toward the more restrictive result: no tools (Outcome.add).
func ReadToolConfig(raw json.RawMessage) (*ToolConfig, string) {
	raw = bytes.TrimSpace(raw)
	switch string(raw) {
	case "", "null", "false", "0", `""`:
		return nil, ""
	}
	var v map[string]json.RawMessage
	if raw[0] != '{' || json.Unmarshal(raw, &v) != nil {
		return nil, "toolConfig is not a JSON object"
	}
	tc := &ToolConfig{Mode: ToolModeAuto, AllowedFunctionNames: []string{}}
	var mode string
	if json.Unmarshal(v["mode"], &mode) == nil && (mode == ToolModeNone || mode == ToolModeAny) {
		tc.Mode = mode
	}
	names := bytes.TrimSpace(v["allowedFunctionNames"])
	switch string(names) {
	case "", "null", "false", "0", `""`:
	default:
		if json.Unmarshal(names, &tc.AllowedFunctionNames) != nil || tc.AllowedFunctionNames == nil {
			return nil, "toolConfig.allowedFunctionNames is not a list of strings"
		}
	}
	return tc, ""
}

// MergeToolConfigs merges BeforeToolSelection answers as Gemini CLI 0.61
// merges several hooks' (hookAggregator.mergeToolSelectionOutputs): mode
// NONE if any answer says NONE, and then no names; else ANY if any says
// ANY; else AUTO; the allowed names are the union of every answer's,
// sorted. A nil answer (a hook that gave none) adds nothing; with no
// answer at all the result is nil. The merge is associative, so bundlectl's
// merged answer, merged again by Gemini CLI with other hooks', gives what
// Gemini CLI would give for all of them at once.
func MergeToolConfigs(cs ...*ToolConfig) *ToolConfig {
	var out *ToolConfig
	for _, c := range cs {
		if c == nil {
			continue
		}
		if out == nil {
			out = &ToolConfig{Mode: ToolModeAuto, AllowedFunctionNames: []string{}}
		}
		switch {
		case out.Mode == ToolModeNone || c.Mode == ToolModeNone:
			out.Mode = ToolModeNone
		case c.Mode == ToolModeAny:
			out.Mode = ToolModeAny
		}
		for _, n := range c.AllowedFunctionNames {
			if !slices.Contains(out.AllowedFunctionNames, n) {
				out.AllowedFunctionNames = append(out.AllowedFunctionNames, n)
			}
		}
	}
	if out == nil {
		return nil
	}
	if out.Mode == ToolModeNone {
		out.AllowedFunctionNames = []string{}
	}
	slices.Sort(out.AllowedFunctionNames)
	return out
}
