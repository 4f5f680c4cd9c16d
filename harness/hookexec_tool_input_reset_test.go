package harness_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
)

// TestExecHookLineGeminiToolInputReset: under the exec view Gemini CLI
// 0.61 merges the view's hooks' answers itself, and a BeforeTool
// tool_input that is not an object, as the last one given, has it run
// the model's arguments though an earlier hook rewrote them (internal/
// agenttest TestGeminiToolInputReset exec). hooks exec relayed such an
// answer as it was; it cannot see the other hooks' answers, so it now
// blocks (exit 2, the field and the fix on stderr: what a hook answers
// to keep the arguments, and to change them). An object, or no
// tool_input, is relayed unchanged, and so is a deny.
func TestExecHookLineGeminiToolInputReset(t *testing.T) {
	for _, c := range []struct {
		name, answer string
		blocked      bool
	}{
		{"null", `{"hookSpecificOutput":{"tool_input":null}}`, true},
		{"string", `{"hookSpecificOutput":{"tool_input":"x"}}`, true},
		{"object", `{"hookSpecificOutput":{"tool_input":{"command":"true"}}}`, false},
		{"none", `{"hookSpecificOutput":{}}`, false},
		{"null-with-deny", `{"decision":"deny","reason":"no","hookSpecificOutput":{"tool_input":null}}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			command, _ := json.Marshal("cat >/dev/null; echo '" + c.answer + "'")
			home, ws := activeHookBundle(t, "gemini-extension.json", []byte(`{"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": `+string(command)+`}]}]}}`))
			load := func() (*harness.Registry, error) {
				return harness.Load(harness.Options{Home: home, Workspace: ws, Host: bundle.HostGemini, NoWatch: true})
			}
			reg, err := load()
			must(t, err)
			hooks := reg.Hooks("BeforeTool")
			reg.Close()
			if len(hooks) != 1 {
				t.Fatalf("%d hooks, want 1", len(hooks))
			}
			l := harness.HookLine{Bundle: "hg", Hook: hooks[0].ID, Host: bundle.HostGemini, Event: "BeforeTool",
				Input: []byte(`{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"touch x"}}`)}
			code, ownErr, stdout, stderr, _ := execLine(t, l, load)
			if !c.blocked {
				if code != 0 || ownErr != nil || stdout != c.answer+"\n" {
					t.Errorf("exit %d (%v), stdout %q, stderr %q; want the answer relayed unchanged", code, ownErr, stdout, stderr)
				}
				return
			}
			if code != 2 || stdout != "" || !strings.Contains(stderr, "hookSpecificOutput.tool_input that is not an object") || !strings.Contains(stderr, "leaves tool_input out") || !strings.Contains(stderr, "bundlectl: hint: bundlectl show hg") {
				t.Errorf("exit %d (%v), stdout %q, stderr %q; want exit 2 naming the field, with the fix", code, ownErr, stdout, stderr)
			}
		})
	}
}
