package agenttest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// geminiTouchInSub is a Gemini CLI session whose model calls
// run_shell_command "touch orig" with dir_path "sub" (made here), then
// says "done": which of orig and a hook's rewrite ran, and where, tells
// which arguments Gemini CLI built the call from.
func geminiTouchInSub(t *testing.T) *Agent {
	t.Helper()
	a := New(t, GeminiCLI, Call("run_shell_command", map[string]any{"command": "touch orig", "dir_path": "sub"}), Say("done"))
	if err := os.MkdirAll(filepath.Join(a.Workdir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	return a
}

// seqRecorder is a hook command that appends its input, one line per
// run, to rec and answers answer.
func seqRecorder(rec string, answer map[string]any) map[string]any {
	b, _ := json.Marshal(answer)
	return map[string]any{"type": "command", "command": "cat >>" + rec + "; echo >>" + rec + "; echo '" + string(b) + "'"}
}

// firstInput is the first input a seqRecorder recorded.
func firstInput(t *testing.T, rec string, res *Result) map[string]json.RawMessage {
	t.Helper()
	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatalf("the second hook did not run: %v\n%s", err, res)
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	var in map[string]json.RawMessage
	if err := json.Unmarshal(line, &in); err != nil {
		t.Fatalf("the second hook got %q: %v", line, err)
	}
	return in
}

// TestGeminiSequentialToolInput: in a "sequential": true group Gemini
// CLI 0.61 gives the second BeforeTool hook the model's arguments with
// the first hook's tool_input spread over them, yet builds the call from
// the last tool_input alone (hookAggregator keeps the last one;
// evaluateBeforeToolHook builds the call from it): the model's dir_path,
// which the rewrite left out, is shown to the second hook and then
// dropped, and the command runs in the workspace root. bundlectl (setup
// and exec) merged the tool_input over the arguments, so the command ran
// in dir_path instead.
//
// On BeforeAgent an empty additionalContext is still chained (a blank
// line is added to the next hook's prompt: Gemini CLI checks only that
// it is a string); bundlectl skipped it.
func TestGeminiSequentialToolInput(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"direct", "setup", "exec"} {
		t.Run("BeforeTool-"+mode, func(t *testing.T) {
			t.Parallel()
			rec := filepath.Join(t.TempDir(), "second-hook-input")
			group := map[string]any{"matcher": "run_shell_command", "sequential": true, "hooks": []any{
				seqRecorder("/dev/null", map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "BeforeTool",
					"tool_input": map[string]any{"command": "touch one"}}}),
				seqRecorder(rec, map[string]any{})}}
			a := geminiTouchInSub(t)
			installGeminiHooks(t, a, mode, pluginName, map[string]any{"hooks": map[string]any{"BeforeTool": []any{group}}})
			res := a.Run(t, "make the marker")
			in := firstInput(t, rec, res)
			var got map[string]any
			_ = json.Unmarshal(in["tool_input"], &got)
			if got["command"] != "touch one" || got["dir_path"] != "sub" {
				t.Errorf("%s: the second hook was first given tool_input %s; Gemini CLI 0.61 gives it the first hook's tool_input spread over the model's", mode, in["tool_input"])
			}
			inRoot, inSub := exists(filepath.Join(a.Workdir, "one")), exists(filepath.Join(a.Workdir, "sub", "one"))
			if !inRoot || inSub || exists(filepath.Join(a.Workdir, "sub", "orig")) || exists(filepath.Join(a.Workdir, "orig")) {
				t.Fatalf("%s: the rewritten command ran in the root: %v, in dir_path: %v; Gemini CLI 0.61 builds the call from the last tool_input alone, dropping dir_path\n%s", mode, inRoot, inSub, res)
			}
		})
	}
	t.Run("BeforeTool-user-group-after-setup", func(t *testing.T) {
		t.Parallel()
		// A sequential group of the user's own, after setup's hooks run
		// line in settings.json, is given the bundle hook's rewrite.
		rec := filepath.Join(t.TempDir(), "user-hook-input")
		bundleGroup := map[string]any{"matcher": "run_shell_command", "hooks": []any{
			seqRecorder("/dev/null", map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "BeforeTool",
				"tool_input": map[string]any{"command": "touch one"}}})}}
		a := geminiTouchInSub(t)
		installGeminiHooks(t, a, "setup", pluginName, map[string]any{"hooks": map[string]any{"BeforeTool": []any{bundleGroup}}})
		hooks, _ := a.Settings["hooks"].(map[string]any)
		line, _ := hooks["BeforeTool"].([]any)
		if len(line) != 1 {
			t.Fatalf("setup wrote BeforeTool hooks %v, want its one line", hooks["BeforeTool"])
		}
		hooks["BeforeTool"] = append(line, map[string]any{"matcher": "run_shell_command", "sequential": true, "hooks": []any{seqRecorder(rec, map[string]any{})}})
		res := a.Run(t, "make the marker")
		in := firstInput(t, rec, res)
		var got map[string]any
		_ = json.Unmarshal(in["tool_input"], &got)
		if got["command"] != "touch one" || got["dir_path"] != "sub" {
			t.Fatalf("the user's hook after bundlectl's line was given tool_input %s; Gemini CLI 0.61 chains the line's answer into it\n%s", in["tool_input"], res)
		}
		if !exists(filepath.Join(a.Workdir, "one")) {
			t.Fatalf("the bundle hook's rewrite did not run in the root\n%s", res)
		}
	})
	for _, mode := range []string{"direct", "setup"} {
		t.Run("BeforeAgent-empty-context-"+mode, func(t *testing.T) {
			t.Parallel()
			rec := filepath.Join(t.TempDir(), "second-hook-input")
			group := map[string]any{"sequential": true, "hooks": []any{
				seqRecorder("/dev/null", map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "BeforeAgent", "additionalContext": ""}}),
				seqRecorder(rec, map[string]any{})}}
			a := New(t, GeminiCLI, Say("the model answered"))
			installGeminiHooks(t, a, mode, pluginName, map[string]any{"hooks": map[string]any{"BeforeAgent": []any{group}}})
			res := a.Run(t, "hello")
			in := firstInput(t, rec, res)
			var prompt string
			_ = json.Unmarshal(in["prompt"], &prompt)
			if prompt != "hello\n\n" {
				t.Fatalf("%s: the second hook was given prompt %q, want %q: Gemini CLI 0.61 adds an empty additionalContext after a blank line\n%s", mode, prompt, "hello\n\n", res)
			}
		})
	}
}
