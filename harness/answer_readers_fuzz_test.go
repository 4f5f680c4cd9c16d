package harness

import (
	"testing"
)

// FuzzHostAnswerReaders: the readers of a hook's answer as one host reads
// it (codexStatelessAnswer, claudePlainAnswer, ToolConfigMisread) never
// panic, and what Codex takes as a failed hook carries no block nor stop.
func FuzzHostAnswerReaders(f *testing.F) {
	for _, s := range []string{
		``, `plain`, `{}`, `{"continue":false}`, `{"continue":false,"stopReason":"s"}`,
		`{"decision":"block","reason":"r"}`, `{"Decision":"block"}`, `{"continue":false,"decision":"block"}`,
		`{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"c"}}`,
		`{"toolConfig":"NONE"}`, `{"hookSpecificOutput":{"toolConfig":{"mode":"NONE","allowedFunctionNames":"ab"}}}`,
		`{"a":1,"a":2}`, `{"decision":`, "\ufeff{\"continue\":false}", `"{\"continue\":false}"`,
	} {
		for _, code := range []int{0, 2, 1} {
			f.Add(code, []byte(s), []byte(""), false)
		}
	}
	f.Add(0, []byte(`{"continue":false}`), []byte{}, true)
	f.Fuzz(func(t *testing.T, code int, stdout, stderr []byte, timedOut bool) {
		res := &Result{ExitCode: code, Stdout: stdout, Stderr: stderr, TimedOut: timedOut}
		claudePlainAnswer(res)
		ToolConfigMisread(res)
		for _, event := range []string{"SessionStart", "PreModelRequest", "PostCompact"} {
			r := codexStatelessAnswer(event, ParseHookOutput(code, stdout, stderr, timedOut), res)
			if r.Failure != "" && (r.Blocked || !r.Continue) {
				t.Fatalf("%s: a failed hook carries a block or a stop: %+v", event, r)
			}
			if event == "PreModelRequest" && !r.Continue {
				t.Fatalf("continue false kept on %s, which Codex ignores: %+v", event, r)
			}
		}
	})
}
