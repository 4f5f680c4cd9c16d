package bundle

import (
	"slices"
	"testing"
)

// Claude Code (2.1.332) gives an agent whose tools key names no tool no
// tools at all, and one with "*" among its names every tool
// (internal/agenttest TestClaudeAgentEmptyTools). The model says so: an
// empty list sets NoTools, and AgentToolsEvery finds the wildcard however
// the list is written.
func TestAgentToolsReading(t *testing.T) {
	lines := map[string]string{
		"absent": "", "null": "tools:\n", "tilde": "tools: ~\n", "empty": "tools: \"\"\n", "list": "tools: []\n",
		"space": "tools: \" \"\n", "comma": "tools: \",\"\n", "items": "tools: [\"\", \" \"]\n",
		"read": "tools: Read\n", "star": "tools: \"*\"\n", "readstar": "tools: Read, *\n",
		"liststar": "tools: [Read, \"*\"]\n", "spacestar": "tools: Read *\n", "paren": "tools: Bash(a *)\n",
	}
	files := map[string]string{ManifestClaude: `{"name": "tl"}`}
	for name, line := range lines {
		files["agents/"+name+".md"] = "---\nname: " + name + "\ndescription: d\n" + line + "---\nbody\n"
	}
	b := writeTree(t, "tl", files)
	got := map[string]Grants{}
	for _, d := range b.Components.Agents {
		got[d.Name] = d.Grants
	}
	for name := range lines {
		g, ok := got[name]
		if !ok {
			t.Fatalf("agent %s was not read\n%s", name, dumpFindings(b))
		}
		none := slices.Contains([]string{"null", "tilde", "empty", "list", "space", "comma", "items"}, name)
		every := slices.Contains([]string{"star", "readstar", "liststar", "spacestar"}, name)
		if g.NoTools != none {
			t.Errorf("%s (%q): NoTools %v, want %v", name, lines[name], g.NoTools, none)
		}
		if AgentToolsEvery(g.Tools) != every {
			t.Errorf("%s (%q): AgentToolsEvery(%q) = %v, want %v", name, lines[name], g.Tools, !every, every)
		}
	}
	if n := ClaudeAgentToolNames([]string{"Read,Grep Bash(git log:*), \tWebFetch(domain:a b)"}); !slices.Equal(n, []string{"Read", "Grep", "Bash(git log:*)", "WebFetch(domain:a b)"}) {
		t.Errorf("ClaudeAgentToolNames split %q", n)
	}
}

// An empty tools list on an agent another host loads too is not shown as
// no tools: what the other host makes of it is not known, and showing
// every tool is the safe side.
func TestAgentNoToolsClaudeOnly(t *testing.T) {
	b := writeTree(t, "gx", map[string]string{
		"gemini-extension.json": `{"name": "gx", "version": "1.0.0"}`,
		"agents/empty.md":       "---\nname: empty\ndescription: d\ntools: []\n---\nbody\n",
	})
	if len(b.Components.Agents) != 1 {
		t.Fatalf("agents %+v\n%s", b.Components.Agents, dumpFindings(b))
	}
	if d := b.Components.Agents[0]; d.Grants.NoTools {
		t.Errorf("a %v agent with tools: [] is read as no tools", d.Hosts)
	}
}

// An agent's memory (user, project, local) adds Write, Edit and Read to
// its tools list in Claude Code (internal/agenttest
// TestClaudeAgentMemoryTools): the model lists them, so the review does
// not show "tools: Read" with memory as read-only.
func TestAgentMemoryTools(t *testing.T) {
	lines := map[string]string{
		"readuser":     "tools: Read\nmemory: user\n",
		"emptyproject": "tools: \"\"\nmemory: project\n",
		"readwrite":    "tools: Read, Write\nmemory: local\n",
		"absent":       "memory: user\n",
		"star":         "tools: \"*\"\nmemory: user\n",
		"odd":          "tools: \"\"\nmemory: nonsense\n",
	}
	want := map[string][]string{
		"readuser": {"Read", "Write", "Edit"}, "emptyproject": {"Write", "Edit", "Read"},
		"readwrite": {"Read, Write", "Edit"}, "absent": nil, "star": {"*"}, "odd": nil,
	}
	files := map[string]string{ManifestClaude: `{"name": "mem"}`}
	for name, line := range lines {
		files["agents/"+name+".md"] = "---\nname: " + name + "\ndescription: d\n" + line + "---\nbody\n"
	}
	b := writeTree(t, "mem", files)
	got := map[string]Grants{}
	for _, d := range b.Components.Agents {
		got[d.Name] = d.Grants
	}
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			t.Fatalf("agent %s was not read\n%s", name, dumpFindings(b))
		}
		if !slices.Equal(g.Tools, w) || g.NoTools != (name == "odd") {
			t.Errorf("%s (%q): tools %q no_tools %v, want %q no_tools %v", name, lines[name], g.Tools, g.NoTools, w, name == "odd")
		}
	}
}
