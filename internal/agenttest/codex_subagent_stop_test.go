package agenttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
)

// TestCodexSubagentStopEventName: when a sub-agent (multi_agent_v2's
// spawn_agent) ends, Codex 0.171 runs the plugin's SubagentStop hooks,
// with hook_event_name "SubagentStop", and not its Stop hooks, which run
// once, when the parent's turn ends, with "Stop"; no hook is ever given
// another event's name. So Claude Code's one exception (an agent's Stop
// hooks run on SubagentStop), which `hooks exec` allows only under
// --host claude, has no Codex counterpart: a Codex view's `--event Stop`
// line never sees "SubagentStop" and its mismatch refusal blocks nothing
// Codex sends.
func TestCodexSubagentStopEventName(t *testing.T) {
	t.Parallel()
	spawn := &ToolCall{Name: "spawn_agent", Namespace: "collaboration", Args: map[string]any{"message": "go", "task_name": "owl", "fork_turns": "none"}}
	wait := &ToolCall{Name: "wait_agent", Namespace: "collaboration", Args: map[string]any{"timeout_ms": 10000}}
	rec := t.TempDir()
	a := New(t, Codex, Turn{Tool: spawn}, Turn{Tool: wait}, Say("done"))
	root := versionDir(filepath.Join(a.ConfigDir(), "plugins", "cache"))
	writeJSONFile(t, root, ".codex-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
	events := []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SubagentStart", "SubagentStop", "SessionEnd"}
	hooks := map[string]any{}
	for _, ev := range events {
		hooks[ev] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "{ cat; echo; } >> " + filepath.Join(rec, ev)}}}}
	}
	writeJSONFile(t, root, "hooks/hooks.json", map[string]any{"hooks": hooks})
	a.CodexConfig = fmt.Sprintf("[plugins.%q]\nenabled = true\n", codexPluginID)
	a.Args = []string{"-c", "features.plugins=true", "--dangerously-bypass-hook-trust", "-c", "features.multi_agent_v2=true"}
	if res := a.Run(t, "hello"); res.Exit != 0 {
		t.Fatalf("codex exited %d\n%s", res.Exit, res)
	}
	_, inputs := takeRan(t, rec)
	type input struct {
		Event     string `json:"hook_event_name"`
		TurnID    string `json:"turn_id"`
		AgentType string `json:"agent_type"`
	}
	fired := map[string][]input{}
	for ev, b := range inputs {
		for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
			var in input
			if err := json.Unmarshal(line, &in); err != nil {
				t.Fatalf("%s hook input: %v\n%s", ev, err, line)
			}
			if in.Event != ev {
				t.Errorf("Codex gave a %s hook hook_event_name %q (found by trying Codex 0.171: always the hook's own event)", ev, in.Event)
			}
			fired[ev] = append(fired[ev], in)
		}
	}
	if n := len(fired["SubagentStart"]); n != 1 {
		t.Fatalf("SubagentStart ran %d times, want 1: no sub-agent was spawned", n)
	}
	if s := fired["SubagentStop"]; len(s) != 1 || s[0].AgentType != "default" {
		t.Errorf("SubagentStop inputs %+v, want one, for agent type \"default\"", s)
	}
	// The one Stop is the parent's: its turn is the prompt's, not the
	// sub-agent's (SubagentStop's turn).
	if s := fired["Stop"]; len(s) != 1 || s[0].TurnID != fired["UserPromptSubmit"][0].TurnID {
		t.Errorf("Stop inputs %+v, want one, for the parent's turn %q (the sub-agent's end fires SubagentStop alone)", s, fired["UserPromptSubmit"][0].TurnID)
	}
}
