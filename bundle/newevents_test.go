package bundle

import "testing"

// TestClaudeModelSkillEvents: the events Claude Code 2.1.332 fires that
// bundlectl did not know (read from its installed CLI; PreSkillShellCommand
// tried with it, internal/agenttest TestClaudePreSkillShellCommand). A
// plugin's hook on them was an unknown event: its matcher was shown as
// narrowing on MessageDisplay, which has none, and a PreSkillShellCommand
// guard that could not run failed open.
func TestClaudeModelSkillEvents(t *testing.T) {
	for _, c := range []struct {
		event, field string
		list, blocks bool
	}{
		{"PreSkillShellCommand", "tool_name", true, true},
		{"PreModelSwitch", "to_model", true, true},
		{"PostModelSwitch", "to_model", true, false},
		{"DirectoryAdded", "source", true, false},
		{"MessageDisplay", "", false, false},
	} {
		if !KnownHookEvent("", c.event) || !KnownHookEvent(HostClaude, c.event) {
			t.Errorf("%s is not a Claude Code event", c.event)
		}
		if KnownHookEvent(HostCodex, c.event) || KnownHookEvent(HostGemini, c.event) {
			t.Errorf("%s is taken for another host's event", c.event)
		}
		if got := MatchField(c.event); got != c.field {
			t.Errorf("MatchField(%s) = %q, want %q", c.event, got, c.field)
		}
		if got := ClaudeCommaList(c.event); got != c.list {
			t.Errorf("ClaudeCommaList(%s) = %v, want %v", c.event, got, c.list)
		}
		if got := BlockingEvent(c.event); got != c.blocks {
			t.Errorf("BlockingEvent(%s) = %v, want %v", c.event, got, c.blocks)
		}
		if got := IgnoresMatcher(HostClaude, c.event); got != (c.field == "") {
			t.Errorf("IgnoresMatcher(claude, %s) = %v", c.event, got)
		}
	}
}
