package harness

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestSkillShellAnswers: Claude Code 2.1.332 does not run a skill's inline
// shell command when a PreSkillShellCommand hook asks, defers, changes
// the command or denies it in PreToolUse's or PermissionRequest's words
// (it reads those answers as this event's). bundlectl ran the command:
// "ask" was not written for this event, "defer" was an unknown decision,
// updatedInput was ignored and an answer naming PreToolUse was ignored.
func TestSkillShellAnswers(t *testing.T) {
	for _, c := range []struct {
		name, out string
		block     bool
		reason    string
	}{
		{"ask", `{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"ask","permissionDecisionReason":"why"}}`, true, "why; the hook asked for approval, which a skill can't wait for"},
		{"defer", `{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"defer"}}`, true, "the hook asked for approval, which a skill can't wait for"},
		{"updated", `{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"allow","updatedInput":{"command":"true"}}}`, true, "the hook changed the command, which isn't supported here"},
		{"pretooluse-deny", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`, true, "no"},
		{"permissionrequest-deny", `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"no"}}}`, true, "no"},
		{"deny", `{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"deny","permissionDecisionReason":"no"}}`, true, "no"},
		{"allow", `{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"allow"}}`, false, ""},
		{"other-event", `{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"x"}}`, false, ""},
	} {
		r := ParseHookOutput(0, []byte(c.out), nil, false)
		o := Combine("PreSkillShellCommand", []HookResult{r})
		if o.Blocked != c.block || o.Proceed() == c.block || o.Reason != c.reason {
			t.Errorf("%s: blocked %v (%q), want %v (%q); %+v", c.name, o.Blocked, o.Reason, c.block, c.reason, o)
		}
		if !c.block {
			continue
		}
		var stdout, stderr bytes.Buffer
		if code, err := WriteOutcome(&stdout, &stderr, o); code != 2 || err != nil {
			t.Errorf("%s: WriteOutcome exit %d, %v; want 2 (Claude Code's block)", c.name, code, err)
		}
	}
	// "defer" is read on PreSkillShellCommand only: elsewhere it stays the
	// unknown decision it was, a reported failure.
	o := Combine("PreToolUse", []HookResult{ParseHookOutput(0, []byte(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer"}}`), nil, false)})
	if o.Blocked || len(o.Errors) != 1 || !strings.Contains(o.Errors[0].Message, `unknown permissionDecision "defer"`) {
		t.Errorf("defer on PreToolUse: %+v", o)
	}
}

// TestModelSwitchAsk: a PreModelSwitch hook's "ask" and "allow" reach
// Claude Code as permissionDecision (its PreToolUse contract: ask asks
// the user, and a headless session refuses the switch). bundlectl wrote
// neither, so the switch went on unasked.
func TestModelSwitchAsk(t *testing.T) {
	for _, d := range []string{PermissionAsk, PermissionAllow} {
		r := ParseHookOutput(0, []byte(`{"hookSpecificOutput":{"hookEventName":"PreModelSwitch","permissionDecision":"`+d+`","permissionDecisionReason":"costly"}}`), nil, false)
		var stdout, stderr bytes.Buffer
		code, err := WriteOutcome(&stdout, &stderr, Combine("PreModelSwitch", []HookResult{r}))
		if code != 0 || err != nil {
			t.Fatalf("%s: exit %d, %v", d, code, err)
		}
		var j struct {
			HookSpecificOutput struct {
				HookEventName, PermissionDecision, PermissionDecisionReason string
			}
		}
		if err := json.Unmarshal(stdout.Bytes(), &j); err != nil {
			t.Fatal(err)
		}
		if h := j.HookSpecificOutput; h.HookEventName != "PreModelSwitch" || h.PermissionDecision != d || h.PermissionDecisionReason != "costly" {
			t.Errorf("%s: wrote %s", d, stdout.String())
		}
	}
}

// TestNewClaudeEventsMatch: the matchers of Claude Code 2.1.332's
// PreSkillShellCommand (the shell tool), PreModelSwitch and
// PostModelSwitch (the model switched to) and DirectoryAdded (how it was
// added) select by those fields and read "a, b" as a list; MessageDisplay
// has no matcher field, so its hooks all run.
func TestNewClaudeEventsMatch(t *testing.T) {
	for _, c := range []struct {
		event, input, matcher string
		want                  bool
	}{
		{"PreSkillShellCommand", `{"tool_name":"Bash","tool_input":{"command":"ls"}}`, "Bash", true},
		{"PreSkillShellCommand", `{"tool_name":"Bash","tool_input":{"command":"ls"}}`, "PowerShell, Bash", true},
		{"PreSkillShellCommand", `{"tool_name":"Bash","tool_input":{"command":"ls"}}`, "Read", false},
		{"PreModelSwitch", `{"from_model":"claude-opus-4-6","to_model":"claude-sonnet-4-6"}`, "claude-haiku-4-5, claude-sonnet-4-6", true},
		{"PreModelSwitch", `{"from_model":"claude-opus-4-6","to_model":"claude-sonnet-4-6"}`, "claude-opus-4-6", false},
		{"PostModelSwitch", `{"to_model":"claude-sonnet-4-6"}`, "sonnet", false},  // a name, compared whole
		{"PostModelSwitch", `{"to_model":"claude-sonnet-4-6"}`, "sonnet.*", true}, // a regular expression
		{"DirectoryAdded", `{"directory":"/w","source":"slash_command"}`, "slash_command, register_repo_root", true},
		{"DirectoryAdded", `{"directory":"/w","source":"slash_command"}`, "register_repo_root", false},
	} {
		ev, err := ParseHookEvent([]byte(c.input), c.event)
		if err != nil {
			t.Fatalf("%s: %v", c.event, err)
		}
		got, err := ClaudeMatch(c.event, c.matcher, matchValue(ev))
		if err != nil || got != c.want {
			t.Errorf("%s: matcher %q on %s = %v, %v; want %v", c.event, c.matcher, c.input, got, err, c.want)
		}
	}
	if EventUsesMatcher("MessageDisplay") {
		t.Error("MessageDisplay hooks are selected by their matcher; Claude Code runs them all")
	}
}
