package agenttest

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// subagentTools returns the tool names offered by the first model call
// whose system prompt holds body, counting calls that offer no tool at
// all (which ModelCalls leaves out).
func subagentTools(a *Agent, body string) (tools []string, ok bool) {
	for _, r := range a.Model.Requests() {
		if r.Turn < 0 {
			continue
		}
		var v struct {
			System json.RawMessage   `json:"system"`
			Tools  []json.RawMessage `json:"tools"`
		}
		if json.Unmarshal(r.Body, &v) != nil || !strings.Contains(string(v.System), body) {
			continue
		}
		tools = []string{}
		for _, tj := range v.Tools {
			var tool struct {
				Name string `json:"name"`
			}
			json.Unmarshal(tj, &tool)
			tools = append(tools, tool.Name)
		}
		return tools, true
	}
	return nil, false
}

// runSubagent runs Claude Code on the plugin at root, its model stand-in
// calling the Agent tool for the plugin's agent name, and returns the
// tools that agent's own model call was offered (found by marker, a text
// of its system prompt).
func runSubagent(t *testing.T, root, name, marker string) []string {
	t.Helper()
	a := New(t, Claude,
		Call("Agent", map[string]any{"subagent_type": pluginName + ":" + name, "description": "owls", "prompt": "go"}),
		Say("done"))
	a.Args = []string{"--plugin-dir", root, "--allowedTools", "Agent,Bash"}
	res := a.Run(t, "hello owls")
	tools, ok := subagentTools(a, marker)
	if !ok {
		t.Fatalf("agent %s never ran\n%s\n%s", name, res, a.Model.Dump())
	}
	return tools
}

// TestClaudeAgentEmptyTools: what Claude Code gives a plugin agent whose
// tools key is empty or odd. The main session's model calls the Agent
// tool with the agent's subagent_type; the agent's own model call lists
// the tools it was given. "tools: Read" (the control) is exactly [Read];
// a tools key that names no tool ("tools:", "", [], " ", ",") is no tool
// at all; "*" among the names, and no key, is every tool of the session.
// bundlectl's review of the same plugin shows each as Claude Code reads
// it (bundle TestAgentToolsReading).
func TestClaudeAgentEmptyTools(t *testing.T) {
	t.Parallel()
	type want int
	const (
		onlyRead want = iota
		none
		every
	)
	agents := []struct {
		name, line string
		want       want
	}{
		{"control", "tools: Read", onlyRead},
		{"null", "tools:", none},
		{"emptystr", `tools: ""`, none},
		{"emptylist", "tools: []", none},
		{"space", `tools: " "`, none},
		{"comma", `tools: ","`, none},
		{"absent", "", every},
		{"star", `tools: "*"`, every},
		{"readstar", "tools: Read, *", every},
	}
	root := filepath.Join(t.TempDir(), pluginName)
	writeJSONFile(t, root, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
	for _, ag := range agents {
		fm := "---\nname: " + ag.name + "\ndescription: owls\n"
		if ag.line != "" {
			fm += ag.line + "\n"
		}
		writeFile(t, root, "agents/"+ag.name+".md", fm+"---\nagenttest-tools-"+ag.name+"\n", 0o644)
	}
	for _, ag := range agents {
		tools := runSubagent(t, root, ag.name, "agenttest-tools-"+ag.name)
		switch ag.want {
		case onlyRead:
			if !slices.Equal(tools, []string{"Read"}) {
				t.Errorf("%s (%s): ran with tools %v; want [Read]", ag.name, ag.line, tools)
			}
		case none:
			if len(tools) != 0 {
				t.Errorf("%s (%s): ran with tools %v; Claude Code was expected to give no tool", ag.name, ag.line, tools)
			}
		case every:
			if !slices.Contains(tools, "Bash") || !slices.Contains(tools, "Edit") || !slices.Contains(tools, "Read") {
				t.Errorf("%s (%s): ran with tools %v; Claude Code was expected to give every tool", ag.name, ag.line, tools)
			}
		}
	}

	out := BundlectlRun(t, t.TempDir(), "review", root)
	for _, ag := range agents {
		i := strings.Index(out, "agents/"+ag.name+".md")
		if i < 0 {
			t.Fatalf("the review does not list agent %s:\n%s", ag.name, out)
		}
		// The agent's lines are indented six spaces, under its own.
		var line string
		for _, l := range strings.Split(out[i:], "\n")[1:] {
			if !strings.HasPrefix(l, "      ") {
				break
			}
			if rest, found := strings.CutPrefix(strings.TrimSpace(l), "tools "); found {
				line = strings.TrimSpace(rest)
			}
		}
		ok := map[want]bool{
			onlyRead: line == `"Read"`,
			none:     strings.HasPrefix(line, "none "),
			every:    strings.HasPrefix(line, "every tool of the session "),
		}[ag.want]
		if !ok {
			t.Errorf("the review shows agent %s (%s) with tools %q, not as Claude Code runs it", ag.name, ag.line, line)
		}
	}
}

// TestClaudeAgentMemoryTools: an agent's memory (user, project, local)
// adds Write, Edit and Read to its tools list, so "tools: Read" with
// "memory: user" can write files, and an empty list with memory is not
// no tools. An unknown memory value adds nothing. bundlectl's review of
// the same plugin lists the tools the agent runs with (bundle
// TestAgentMemoryTools).
func TestClaudeAgentMemoryTools(t *testing.T) {
	t.Parallel()
	agents := []struct {
		name, lines string
		want        []string
	}{
		{"readuser", "tools: Read\nmemory: user", []string{"Edit", "Read", "Write"}},
		{"emptyproject", "tools: \"\"\nmemory: project", []string{"Edit", "Read", "Write"}},
		{"bashlocal", "tools: Bash\nmemory: local", []string{"Bash", "Edit", "Read", "Write"}},
		{"emptyodd", "tools: \"\"\nmemory: nonsense", []string{}},
	}
	root := filepath.Join(t.TempDir(), pluginName)
	writeJSONFile(t, root, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
	for _, ag := range agents {
		writeFile(t, root, "agents/"+ag.name+".md", "---\nname: "+ag.name+"\ndescription: owls\n"+ag.lines+"\n---\nagenttest-memory-"+ag.name+"\n", 0o644)
	}
	for _, ag := range agents {
		tools := runSubagent(t, root, ag.name, "agenttest-memory-"+ag.name)
		slices.Sort(tools)
		if !slices.Equal(tools, ag.want) {
			t.Errorf("%s (%q): ran with tools %v; want %v", ag.name, ag.lines, tools, ag.want)
		}
	}

	var review struct {
		Components struct {
			Agents []struct {
				Name   string
				Grants struct {
					Tools   []string `json:"tools"`
					NoTools bool     `json:"no_tools"`
				}
			}
		}
	}
	out := BundlectlRun(t, t.TempDir(), "review", "--json", root)
	if err := json.Unmarshal([]byte(out), &review); err != nil {
		t.Fatalf("review --json: %v\n%s", err, out)
	}
	wants := map[string][]string{}
	for _, ag := range agents {
		wants[ag.name] = ag.want
	}
	for _, ra := range review.Components.Agents {
		want := wants[ra.Name]
		delete(wants, ra.Name)
		for _, w := range want {
			if !slices.Contains(ra.Grants.Tools, w) {
				t.Errorf("the review shows agent %s with tools %v; Claude Code gives it %s too", ra.Name, ra.Grants.Tools, w)
			}
		}
		if ra.Grants.NoTools != (len(want) == 0) {
			t.Errorf("the review shows agent %s with no_tools %v; Claude Code gives it %v", ra.Name, ra.Grants.NoTools, want)
		}
	}
	if len(wants) > 0 {
		t.Errorf("the review does not list agents %v\n%s", wants, out)
	}
}
