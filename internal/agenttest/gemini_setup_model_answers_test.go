package agenttest

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSetupGeminiModelAnswers: Gemini CLI 0.61 sends the model request a
// BeforeModel hook changed (hookSpecificOutput.llm_request: here its
// config's temperature) and shows the response an AfterModel hook
// replaced (hookSpecificOutput.llm_response) instead of the model's.
// Under bundlectl setup gemini the same reviewed hooks, run by hooks run
// --host gemini, must do the same; bundlectl once dropped both answers,
// so a hook redacting what goes to or comes from the model did nothing.
func TestSetupGeminiModelAnswers(t *testing.T) {
	t.Parallel()
	const replaced = "agenttest-replaced-answer"
	hook := func(answer map[string]any) []any {
		b, _ := json.Marshal(map[string]any{"hookSpecificOutput": answer})
		return []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "cat >/dev/null; echo '" + string(b) + "'"}}}}
	}
	hooks := map[string]any{"hooks": map[string]any{
		"BeforeModel": hook(map[string]any{"hookEventName": "BeforeModel", "llm_request": map[string]any{"config": map[string]any{"temperature": 0.123}}}),
		"AfterModel": hook(map[string]any{"hookEventName": "AfterModel", "llm_response": map[string]any{"candidates": []any{map[string]any{
			"content": map[string]any{"role": "model", "parts": []any{replaced}}, "finishReason": "STOP"}}}}),
	}}
	for _, mode := range []string{"direct", "setup"} {
		t.Run(mode, func(t *testing.T) {
			a := New(t, GeminiCLI, Say("the model's own answer"))
			installGeminiHooks(t, a, mode, pluginName, hooks)
			res := a.Run(t, "hello")
			changed := false
			for _, r := range a.Model.Requests() {
				var body struct {
					Tools            []json.RawMessage `json:"tools"`
					GenerationConfig struct {
						Temperature *float64 `json:"temperature"`
					} `json:"generationConfig"`
				}
				if json.Unmarshal(r.Body, &body) == nil && len(body.Tools) > 0 && body.GenerationConfig.Temperature != nil && *body.GenerationConfig.Temperature == 0.123 {
					changed = true
				}
			}
			if !changed {
				t.Errorf("%s: no model request went out with the temperature the BeforeModel hook set (Gemini CLI 0.61 sends it)\n%s", mode, res)
			}
			if !strings.Contains(res.Stdout, replaced) || strings.Contains(res.Stdout, "the model's own answer") {
				t.Errorf("%s: the answer shown is not the AfterModel hook's replacement (Gemini CLI 0.61 shows it)\n%s", mode, res)
			}
		})
	}
}
