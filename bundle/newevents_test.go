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

// TestHostEventsTried: facts about events found by trying the real CLIs
// (internal/agenttest). Codex 0.171 fires its own PreModelRequest,
// PostModelRequest and Interrupt for a plugin's hooks, whatever their
// matcher, and none of them can stop anything
// (TestCodexModelRequestEvents, TestCodexInterruptEvent); they are no
// Claude Code or Gemini CLI events. Claude Code 2.1.332 lets a PreCompact
// hook block the compaction (TestClaudePreCompactBlocks). Gemini CLI 0.61
// reads only a tool configuration from a BeforeToolSelection hook: exit 2
// or a deny decision stops nothing (TestGeminiBeforeToolSelectionCannotBlock).
func TestHostEventsTried(t *testing.T) {
	for _, ev := range []string{"PreModelRequest", "PostModelRequest", "Interrupt"} {
		if !KnownHookEvent(HostCodex, ev) {
			t.Errorf("%s is not known as a Codex event", ev)
		}
		if KnownHookEvent("", ev) || KnownHookEvent(HostGemini, ev) {
			t.Errorf("%s is taken for another host's event", ev)
		}
		if MatchField(ev) != "" || !IgnoresMatcher(HostCodex, ev) {
			t.Errorf("Codex runs every %s hook whatever its matcher; MatchField = %q, IgnoresMatcher = %v", ev, MatchField(ev), IgnoresMatcher(HostCodex, ev))
		}
		if BlockingEvent(ev) {
			t.Errorf("BlockingEvent(%s) = true, but Codex sends the request whatever its hooks answer", ev)
		}
	}
	if !BlockingEvent("PreCompact") {
		t.Errorf("BlockingEvent(PreCompact) = false, but Claude Code lets its hooks block the compaction")
	}
	if BlockingEvent("BeforeToolSelection") {
		t.Errorf("BlockingEvent(BeforeToolSelection) = true, but Gemini CLI lets no such hook block")
	}
}

// TestAllHookEventsIsEveryHostsEvents: AllHookEvents, which hooks run's
// help and completion list, holds each event a supported host fires
// once, and nothing any host does not fire. It once left out Codex's
// own PreModelRequest, PostModelRequest and Interrupt.
func TestAllHookEventsIsEveryHostsEvents(t *testing.T) {
	all := AllHookEvents()
	seen := map[string]bool{}
	for _, e := range all {
		if seen[e] {
			t.Errorf("%s is listed twice", e)
		}
		seen[e] = true
		if !KnownHookEvent("", e) && !KnownHookEvent(HostCodex, e) && !KnownHookEvent(HostGemini, e) {
			t.Errorf("%s is listed, but no host fires it", e)
		}
	}
	for _, host := range [][]string{HookEvents, codexHookEvents, geminiHookEvents} {
		for _, e := range host {
			if !seen[e] {
				t.Errorf("%s is a host's event, but not listed", e)
			}
		}
	}
}
