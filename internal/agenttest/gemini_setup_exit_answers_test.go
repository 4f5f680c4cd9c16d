package agenttest

import (
	"path/filepath"
	"testing"
)

// TestSetupGeminiExitAnswers: Gemini CLI 0.61 reads a hook's output
// whatever its exit status: a BeforeTool hook that exits 3 with a message,
// or exits 1 printing {"decision":"deny"}, keeps the shell command from
// running. Under bundlectl setup gemini the same reviewed hook, run by
// hooks run --host gemini, must block it too; bundlectl once reported both
// as non-blocking failures, and the command ran.
func TestSetupGeminiExitAnswers(t *testing.T) {
	t.Parallel()
	for name, cmd := range map[string]string{
		"exit3-text": "cat >/dev/null; echo nope >&2; exit 3",
		"exit1-deny": `cat >/dev/null; echo '{"decision":"deny","reason":"nope"}'; exit 1`,
		// Exit 0 too: stdout empty, the answer on stderr; and an answer
		// encoded as a JSON string, which Gemini CLI decodes once more.
		"exit0-stderr-deny": `cat >/dev/null; echo '{"decision":"deny","reason":"nope"}' >&2`,
		"exit0-string-deny": `cat >/dev/null; echo '"{\"decision\":\"deny\",\"reason\":\"nope\"}"'`,
		// Gemini CLI reads the whole output, where bundlectl keeps the
		// first MiB (DefaultMaxOutput): a deny longer than that.
		"exit1-long-deny": `cat >/dev/null; printf '{"decision":"deny","reason":"nope","pad":"'; head -c 1100000 /dev/zero | tr '\0' x; echo '"}'; exit 1`,
		// Killed by a signal (its exit status null, read as 0). Under
		// setup the hook is its PID namespace's init, which kill -9 $$
		// does not end: it exits 0 with the same answer (harness
		// TestFireChainGeminiSignalAndCutAnswers reads a killed hook's answer).
		"signal-deny": `cat >/dev/null; echo '{"decision":"deny","reason":"nope"}'; kill -9 $$`,
		// A byte order mark before the JSON: JavaScript's trim() takes it
		// off, Go's bytes.TrimSpace does not.
		"exit0-bom-deny":    `cat >/dev/null; printf '\357\273\277{"decision":"deny","reason":"nope"}\n'`,
		"exit1-string-deny": `cat >/dev/null; echo '"{\"decision\":\"deny\",\"reason\":\"nope\"}"'; exit 1`,
		// Gemini CLI reads no hookSpecificOutput.hookEventName: a deny
		// naming another event (Claude Code's PreToolUse) still blocks.
		"other-event-deny": `cat >/dev/null; echo '{"decision":"deny","reason":"nope","hookSpecificOutput":{"hookEventName":"PreToolUse"}}'`,
	} {
		for _, mode := range []string{"direct", "setup"} {
			t.Run(name+"/"+mode, func(t *testing.T) {
				t.Parallel()
				marker := filepath.Join(t.TempDir(), markerName)
				hooks := map[string]any{"hooks": map[string]any{"BeforeTool": []any{map[string]any{"matcher": "run_shell_command",
					"hooks": []any{map[string]any{"type": "command", "command": cmd}}}}}}
				a := New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+marker), Say("done"))
				installGeminiHooks(t, a, mode, pluginName, hooks)
				res := a.Run(t, "make the marker")
				if exists(marker) {
					t.Fatalf("%s %s: the shell command ran past the hook's answer (Gemini CLI 0.61 blocks it)\n%s", name, mode, res)
				}
			})
		}
	}
}
