package agenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Two agents whose front matter is not valid YAML, in the shapes real
// plugins ship: a description holding ": ", and a description followed by
// an example block. Claude Code re-reads such front matter with values
// quoted (docs/claude-code.md "Front matter"): the first then has exactly
// its tools and model; the second fails again and loads with no front
// matter, so it has every tool of the session.
const (
	looseColonBody   = "agenttest-loose-colon-body-41d2"
	looseExampleBody = "agenttest-loose-example-body-77e0"
)

func writeLooseAgents(t *testing.T, root string) {
	writeFile(t, root, "agents/colon-desc.md", "---\nname: colon-desc\ndescription: Use this when the caller says: check the owls\ntools: Bash\nmodel: haiku\n---\n"+looseColonBody+"\n", 0o644)
	writeFile(t, root, "agents/example-block.md", "---\nname: example-block\ndescription: Use this agent for owl review. Examples:\n<example>\nContext: someone wrote owl code\nuser: \"please review\"\n</example>\ntools: Read\nmodel: haiku\n---\n"+looseExampleBody+"\n", 0o644)
}

// subagentCall returns the model and tool names of the first model call
// whose system prompt is the agent's body.
func subagentCall(t *testing.T, a *Agent, body string) (model string, tools []string, ok bool) {
	for _, r := range a.Model.ModelCalls() {
		var v struct {
			Model  string            `json:"model"`
			System json.RawMessage   `json:"system"`
			Tools  []json.RawMessage `json:"tools"`
		}
		if json.Unmarshal(r.Body, &v) != nil || !strings.Contains(string(v.System), body) {
			continue
		}
		for _, tj := range v.Tools {
			var tool struct {
				Name string `json:"name"`
			}
			json.Unmarshal(tj, &tool)
			tools = append(tools, tool.Name)
		}
		return v.Model, tools, true
	}
	return "", nil, false
}

// runLooseAgent has the model call the agent and returns what the
// agent's own model call offered.
func runLooseAgent(t *testing.T, agent, body string, setup func(a *Agent)) (string, []string) {
	t.Helper()
	a := New(t, Claude,
		Call("Agent", map[string]any{"subagent_type": pluginName + ":" + agent, "description": "owls", "prompt": "go"}),
		Say("done"))
	setup(a)
	res := a.Run(t, "hello owls")
	model, tools, ok := subagentCall(t, a, body)
	if !ok {
		t.Fatalf("agent %s never ran\n%s\n%s", agent, res, a.Model.Dump())
	}
	return model, tools
}

// TestClaudeLenientFrontMatter: what Claude Code grants the two agents,
// loaded in place (--plugin-dir) and through bundlectl exec, where the
// review read the first as Claude Code does and left the second out.
func TestClaudeLenientFrontMatter(t *testing.T) {
	t.Parallel()
	raw := func(a *Agent) {
		root := filepath.Join(t.TempDir(), pluginName)
		writeJSONFile(t, root, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
		writeLooseAgents(t, root)
		a.Args = []string{"--plugin-dir", root, "--allowedTools", "Agent,Bash"}
	}
	model, tools := runLooseAgent(t, "colon-desc", looseColonBody, raw)
	if !strings.Contains(model, "haiku") || !slices.Equal(tools, []string{"Bash"}) {
		t.Errorf("in place, the colon agent ran with model %q tools %v; want haiku and [Bash], its front matter read with values quoted", model, tools)
	}
	model, tools = runLooseAgent(t, "example-block", looseExampleBody, raw)
	if strings.Contains(model, "haiku") || !slices.Contains(tools, "Bash") || !slices.Contains(tools, "Edit") {
		t.Errorf("in place, the example-block agent ran with model %q tools %v; want the session's model and every tool (no front matter)", model, tools)
	}

	// Through bundlectl exec: the view carries the colon agent as the
	// review read it, with the same grants.
	model, tools = runLooseAgent(t, "colon-desc", looseColonBody, func(a *Agent) {
		f := newExecFixture(t, a)
		writeLooseAgents(t, f.src)
		f.trust(t)
		a.Args = []string{"--allowedTools", "Agent,Bash"}
		a.Launcher = f.launcher(t)
	})
	if !strings.Contains(model, "haiku") || !slices.Equal(tools, []string{"Bash"}) {
		t.Errorf("through exec, the colon agent ran with model %q tools %v; want haiku and [Bash]", model, tools)
	}
}

// TestClaudeLineSeparatorFrontMatter: U+0085 and U+2028 are text to
// Claude Code's YAML reader, so "description: hi<sep>tools: Bash" is one
// description and the agent has every tool of the session, where Go's
// YAML reader reads a tools grant. bundle TestFrontMatterLineSeparatorSkipped
// holds the review to skipping such a document.
func TestClaudeLineSeparatorFrontMatter(t *testing.T) {
	t.Parallel()
	for i, sep := range []string{"\u0085", "\u2028"} {
		body := "agenttest-line-separator-body-" + string(rune('a'+i))
		_, tools := runLooseAgent(t, "sep", body, func(a *Agent) {
			root := filepath.Join(t.TempDir(), pluginName)
			writeJSONFile(t, root, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
			writeFile(t, root, "agents/sep.md", "---\nname: sep\ndescription: hi"+sep+"tools: Bash\nmodel: haiku\n---\n"+body+"\n", 0o644)
			a.Args = []string{"--plugin-dir", root, "--allowedTools", "Agent,Bash"}
		})
		if slices.Equal(tools, []string{"Bash"}) || !slices.Contains(tools, "Edit") {
			t.Errorf("%q: the agent ran with tools %v; Claude Code was expected to read no tools key and give every tool", sep, tools)
		}
	}
}

// TestClaudeRestrictionSpellings: Claude Code reads an agent's tool
// restrictions under "tools" and "disallowedTools" alone. "Tools: Read"
// or "disallowed-tools: Bash" leaves the agent every tool of the session,
// Bash included, and bundlectl's review, run on the same plugin, shows no
// restriction for them (bundle TestRestrictionSpellings).
func TestClaudeRestrictionSpellings(t *testing.T) {
	t.Parallel()
	agents := []struct{ name, key, value string }{
		{"exact", "tools", "Read"},
		{"capital", "Tools", "Read"},
		{"dashed", "disallowed-tools", "Bash"},
	}
	var root string
	write := func(a *Agent) {
		root = filepath.Join(t.TempDir(), pluginName)
		writeJSONFile(t, root, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
		for _, ag := range agents {
			writeFile(t, root, "agents/"+ag.name+".md", "---\nname: "+ag.name+"\ndescription: owls\n"+ag.key+": "+ag.value+"\n---\nagenttest-spelling-"+ag.name+"\n", 0o644)
		}
		a.Args = []string{"--plugin-dir", root, "--allowedTools", "Agent,Bash"}
	}
	for _, ag := range agents {
		_, tools := runLooseAgent(t, ag.name, "agenttest-spelling-"+ag.name, write)
		if ag.name == "exact" {
			if !slices.Equal(tools, []string{"Read"}) {
				t.Errorf("%s: ran with tools %v; want [Read]", ag.name, tools)
			}
			continue
		}
		if !slices.Contains(tools, "Bash") || !slices.Contains(tools, "Edit") {
			t.Errorf("%s (%s: %s): ran with tools %v; Claude Code was expected to ignore the key and give every tool", ag.name, ag.key, ag.value, tools)
		}
	}

	var review struct {
		Components struct {
			Agents []struct {
				Name   string
				Grants struct {
					Tools           []string `json:"tools"`
					DisallowedTools []string `json:"disallowed_tools"`
				}
			}
		}
	}
	out := BundlectlRun(t, t.TempDir(), "review", "--json", root)
	if err := json.Unmarshal([]byte(out), &review); err != nil {
		t.Fatalf("review --json: %v\n%s", err, out)
	}
	for _, ag := range review.Components.Agents {
		restricted := len(ag.Grants.Tools)+len(ag.Grants.DisallowedTools) > 0
		if restricted != (ag.Name == "exact") {
			t.Errorf("the review shows agent %s with tools %v, disallowing %v; Claude Code restricts only the exact agent", ag.Name, ag.Grants.Tools, ag.Grants.DisallowedTools)
		}
	}
	if len(review.Components.Agents) != len(agents) {
		t.Errorf("the review lists %d agents, want %d\n%s", len(review.Components.Agents), len(agents), out)
	}
}

// TestClaudeNullTaggedGrant: Claude Code's YAML reader ignores a !!null
// tag on text, so a command's "allowed-tools: !!null Bash" lets the model
// run Bash without asking, where Go's YAML reader reads null, no grant.
// With "allowed-tools: Read" the same call is refused, so the grant is
// what let it run. bundlectl's review leaves the command out (bundle
// TestRetypingTagRefused).
func TestClaudeNullTaggedGrant(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		allowed string
		runs    bool
	}{{"!!null Bash", true}, {"Read", false}} {
		marker := filepath.Join(t.TempDir(), "ran")
		a := New(t, Claude,
			Call("Skill", map[string]any{"skill": pluginName + ":grant"}),
			ShellCall(Claude, "touch "+marker),
			Say("done"))
		root := filepath.Join(t.TempDir(), pluginName)
		writeJSONFile(t, root, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
		writeFile(t, root, "commands/grant.md", "---\ndescription: grant\nallowed-tools: "+c.allowed+"\n---\nRun the shell.\n", 0o644)
		a.Args = []string{"--plugin-dir", root, "--allowedTools", "Skill"}
		res := a.Run(t, "hello")
		if _, err := os.Stat(marker); (err == nil) != c.runs {
			t.Errorf("allowed-tools: %s: the Bash call ran: %v, want %v\n%s", c.allowed, err == nil, c.runs, res)
		}
		if !c.runs {
			continue
		}
		out := BundlectlRun(t, t.TempDir(), "review", "--json", root)
		if !strings.Contains(out, `"commands/grant.md"`) || !strings.Contains(out, "tagged !!null") {
			t.Errorf("the review does not leave out the command whose grant it cannot read as Claude Code does:\n%s", out)
		}
	}
}

// TestClaudeCommandToolsIgnored: Claude Code reads "tools" on an agent
// only. A command's or skill's "tools: Read" takes nothing away: after it
// is invoked, a Bash call the session allows still runs, where the same
// file with "disallowed-tools: Bash" stops it (so the command's front
// matter is in force when the call is made). bundlectl's review, run on
// the same plugin, does not show "tools" as a restriction (bundle
// TestRestrictionSpellings).
func TestClaudeCommandToolsIgnored(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		file, key string
		runs      bool
	}{
		{"commands/narrow.md", "tools: Read", true}, {"commands/narrow.md", "disallowed-tools: Bash", false},
		{"skills/narrow/SKILL.md", "tools: Read", true}, {"skills/narrow/SKILL.md", "disallowed-tools: Bash", false},
	} {
		marker := filepath.Join(t.TempDir(), "ran")
		a := New(t, Claude,
			Call("Skill", map[string]any{"skill": pluginName + ":narrow"}),
			ShellCall(Claude, "touch "+marker),
			Say("done"))
		root := filepath.Join(t.TempDir(), pluginName)
		writeJSONFile(t, root, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
		writeFile(t, root, c.file, "---\nname: narrow\ndescription: narrow\n"+c.key+"\n---\nRun the shell.\n", 0o644)
		a.Args = []string{"--plugin-dir", root, "--allowedTools", "Skill,Bash"}
		res := a.Run(t, "hello")
		if _, err := os.Stat(marker); (err == nil) != c.runs {
			t.Errorf("%s with %s: the Bash call after it ran: %v, want %v\n%s", c.file, c.key, err == nil, c.runs, res)
		}
		if !c.runs {
			continue
		}
		out := BundlectlRun(t, t.TempDir(), "review", "--json", root)
		if strings.Contains(out, `"tools": [`) {
			t.Errorf("%s: the review shows tools as a restriction Claude Code does not make:\n%s", c.file, out)
		}
	}
}
