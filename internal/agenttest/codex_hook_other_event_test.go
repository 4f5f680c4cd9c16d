package agenttest

import (
	"os"
	"path/filepath"
	"testing"
)

// codexOtherEventAnswers are PreToolUse answers (exit 0) whose
// hookSpecificOutput names another event Codex fires. Codex 0.171 reads
// hookEventName as any of its event names and never compares it with the
// event (codex-rs hooks/src/schema.rs PreToolUseHookSpecificOutputWire,
// output_parser.rs parse_pre_tool_use), so each of these blocks the tool.
var codexOtherEventAnswers = map[string]string{
	"deny-named-posttooluse":   `{"hookSpecificOutput":{"hookEventName":"PostToolUse","permissionDecision":"deny","permissionDecisionReason":"guard says no"}}`,
	"block-named-sessionstart": `{"decision":"block","reason":"guard says no","hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"x"}}`,
}

// TestCodexPreToolUseOtherEventName: a PreToolUse guard whose answer names
// another event in hookSpecificOutput.hookEventName still blocks the shell
// command in Codex 0.171, installed; through `bundlectl setup codex`
// (`bundlectl hooks run --host codex`) and `bundlectl exec -- codex` it
// must block too. Before,
// bundlectl ignored such an answer as meant for another event and the
// command ran: a guard Codex honours failed open.
func TestCodexPreToolUseOtherEventName(t *testing.T) {
	t.Parallel()
	for name, answer := range codexOtherEventAnswers {
		for _, through := range []string{"installed", "setup", "exec"} {
			t.Run(name+"/"+through, func(t *testing.T) {
				t.Parallel()
				marker := filepath.Join(t.TempDir(), "ran")
				a := New(t, Codex, ShellCall(Codex, "touch "+marker), Say("done"))
				hooks := map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
					"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": "cat >/dev/null; printf '%s' '" + answer + "'"}}}}}}
				if through == "exec" {
					f := newExecFixture(t, a)
					writeJSONFile(t, f.src, "hooks/hooks.json", hooks)
					f.trust(t)
					allowExecTools(a)
					a.Launcher = f.launcher(t)
				} else {
					installCodexHooks(t, a, through, hooks)
				}
				res := a.Run(t, "hello")
				if _, err := os.Stat(marker); err == nil {
					t.Fatalf("Codex (%s) ran the shell command a PreToolUse guard denied with an answer naming another event (installed, Codex 0.171 blocks it)\n%s", through, res)
				}
				calls := a.Model.ModelCalls()
				if len(calls) < 2 || !calls[len(calls)-1].Contains("guard says no") {
					t.Errorf("the guard's reason did not reach the model (%s)\n%s\n%s", through, res, a.Model.Dump())
				}
			})
		}
	}
}
