package bundle

import (
	"slices"
	"testing"
)

// A Claude Code plugin agent's permissionMode, hooks, mcpServers,
// initialPrompt, observer, observerMessage and observeSubagents are
// ignored by Claude Code (internal/agenttest
// TestClaudePluginAgentIgnoredFields): the review shows them as ignored,
// never as grants, and the agent's hooks are not among the bundle's.
func TestClaudePluginAgentIgnoredKeys(t *testing.T) {
	b := writeTree(t, "p", map[string]string{
		ManifestClaude: `{"name": "p"}`,
		"agents/a.md": "---\nname: a\ndescription: d\ntools: Read\npermissionMode: bypassPermissions\n" +
			"initialPrompt: go\nobserver: true\nobserverMessage: watch\nobserveSubagents: true\nmcpServers:\n  s:\n    command: npx\n" +
			"hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: echo hi\n---\nbody\n",
	})
	if len(b.Components.Agents) != 1 {
		t.Fatalf("agents %v\n%s", b.Components.Agents, dumpFindings(b))
	}
	g := b.Components.Agents[0].Grants
	if g.PermissionMode != "" || len(g.MCPServers) != 0 || len(g.Other) != 0 {
		t.Errorf("an ignored key is shown as a grant: %+v", g)
	}
	for _, k := range []string{"permissionMode", "hooks", "mcpServers", "initialPrompt", "observer", "observerMessage", "observeSubagents"} {
		if g.Ignored[k] == nil {
			t.Errorf("%s is not shown as ignored: %+v", k, g.Ignored)
		}
		requireFinding(t, b, Warning, "document.ignored-field", "agents/a.md: "+k)
	}
	if len(b.Components.Hooks) != 0 {
		t.Errorf("the agent's ignored hooks are among the bundle's: %+v", b.Components.Hooks)
	}
}

// A Claude Code agent's tools keeps only its strings; any other value is
// no tool (internal/agenttest TestClaudeAgentToolsNonString).
func TestClaudeAgentToolsNonString(t *testing.T) {
	cases := map[string]struct {
		line  string
		tools []string
	}{
		"mixed":   {"tools: [1, Read]", []string{"Read"}},
		"numbers": {"tools: [1, 2]", nil},
		"number":  {"tools: 5", nil},
		"boolean": {"tools: true", nil},
		"mapping": {"tools: {Read: yes}", nil},
		"nested":  {"tools: [[Read]]", nil},
		"quoted":  {`tools: ["1", Read]`, []string{"1", "Read"}},
	}
	files := map[string]string{ManifestClaude: `{"name": "p"}`}
	for name, c := range cases {
		files["agents/"+name+".md"] = "---\nname: " + name + "\ndescription: d\n" + c.line + "\n---\nbody\n"
	}
	b := writeTree(t, "p", files)
	got := map[string]Grants{}
	for _, d := range b.Components.Agents {
		got[d.Name] = d.Grants
	}
	for name, c := range cases {
		g, ok := got[name]
		if !ok {
			t.Errorf("%s (%s): agent left out\n%s", name, c.line, dumpFindings(b))
			continue
		}
		if !slices.Equal(g.Tools, c.tools) || g.NoTools != (len(c.tools) == 0) {
			t.Errorf("%s (%s): tools %q no_tools %v; want %q", name, c.line, g.Tools, g.NoTools, c.tools)
		}
		if name != "quoted" {
			requireFinding(t, b, Warning, "document.ignored-field", "agents/"+name+".md: tools")
		}
	}
}
