package bundle

import (
	"slices"
	"strings"
	"testing"
)

// Claude Code (2.1.332) reads an agent's "tools" and "disallowedTools",
// and a skill's or command's "disallowed-tools" or "disallowedTools",
// under those spellings only: "Tools: Read" or "disallowed-tools: Bash"
// on an agent leaves it every tool (internal/agenttest
// TestClaudeRestrictionSpellings). The review must not show such a key as
// a restriction: it is kept as written in Other, with a warning.
func TestRestrictionSpellings(t *testing.T) {
	b := writeTree(t, "spell", map[string]string{
		ManifestClaude:            `{"name": "spell"}`,
		"agents/exact.md":         "---\nname: exact\ndescription: d\ntools: Read\ndisallowedTools: Bash\n---\nbody\n",
		"agents/cap.md":           "---\nname: cap\ndescription: d\nTools: Read\n---\nbody\n",
		"agents/upper.md":         "---\nname: upper\ndescription: d\nTOOLS: Read\n---\nbody\n",
		"agents/dash.md":          "---\nname: dash\ndescription: d\ndisallowed-tools: Bash\n---\nbody\n",
		"agents/under.md":         "---\nname: under\ndescription: d\ndisallowed_tools: Bash\n---\nbody\n",
		"commands/dash.md":        "---\ndescription: d\ndisallowed-tools: Bash\n---\nbody\n",
		"commands/camel.md":       "---\ndescription: d\ndisallowedTools: Bash\n---\nbody\n",
		"commands/under.md":       "---\ndescription: d\ndisallowed_tools: Bash\n---\nbody\n",
		"skills/sk/SKILL.md":      "---\nname: sk\ndescription: d\nDisallowed-Tools: Bash\n---\nbody\n",
		"skills/exact/SKILL.md":   "---\nname: exact\ndescription: d\ndisallowed-tools: Bash\n---\nbody\n",
		"agents/allowed-under.md": "---\nname: allowed-under\ndescription: d\nallowed_tools: Bash\n---\nbody\n",
		"commands/tools.md":       "---\ndescription: d\ntools: Read\n---\nbody\n",
		"skills/tools/SKILL.md":   "---\nname: tools\ndescription: d\ntools: Read\n---\nbody\n",
	})
	docs := map[string]Grants{}
	for _, d := range b.Components.Agents {
		docs["agent:"+d.Name] = d.Grants
	}
	for _, d := range b.Components.Commands {
		docs["command:"+d.Name] = d.Grants
	}
	for _, s := range b.Components.Skills {
		docs["skill:"+s.Name] = s.Grants
	}
	restricted := func(name string) bool {
		g, ok := docs[name]
		if !ok {
			t.Fatalf("%s was not read\n%s", name, dumpFindings(b))
		}
		return len(g.Tools)+len(g.DisallowedTools) > 0
	}
	for _, name := range []string{"agent:exact", "command:dash", "command:camel", "skill:exact"} {
		if !restricted(name) {
			t.Errorf("%s: the restriction Claude Code reads is not shown: %+v", name, docs[name])
		}
	}
	for name, key := range map[string]string{
		"agent:cap": "Tools", "agent:upper": "TOOLS", "agent:dash": "disallowed-tools", "agent:under": "disallowed_tools",
		"command:under": "disallowed_tools", "skill:sk": "Disallowed-Tools",
		"command:tools": "tools", "skill:tools": "tools",
	} {
		if restricted(name) {
			t.Errorf("%s: %q is shown as a restriction, which Claude Code does not read: %+v", name, key, docs[name])
		}
		if _, ok := docs[name].Other[key]; !ok {
			t.Errorf("%s: %q is not kept as written: %+v", name, key, docs[name])
		}
	}
	// A grant is still read under any spelling: more shown, never less.
	if g := docs["agent:allowed-under"]; !slices.Equal(g.AllowedTools, []string{"Bash"}) {
		t.Errorf("allowed_tools is no longer read as a grant: %+v", g)
	}
	f := requireFinding(t, b, Warning, "document.unknown-field", "agents/dash.md")
	if !strings.Contains(f.Message, `only "disallowedTools"`) {
		t.Errorf("the warning does not name the key Claude Code reads: %s", f.Message)
	}
	requireFinding(t, b, Warning, "skill.unknown-field", "skills/sk/SKILL.md")
	// "tools" is read on agents only: on a command or skill no spelling
	// restricts anything.
	for _, f := range []Finding{
		requireFinding(t, b, Warning, "document.unknown-field", "commands/tools.md"),
		requireFinding(t, b, Warning, "skill.unknown-field", "skills/tools/SKILL.md"),
	} {
		if !strings.Contains(f.Message, "agents only") {
			t.Errorf("the warning does not say where the host reads tools: %s", f.Message)
		}
	}
}

// Claude Code's YAML reader ignores a !!null tag on text: "tools: !!null
// Read" restricts its agent to Read (internal/agenttest
// TestClaudeNullTaggedGrant), and "allowed-tools: !!null Bash" grants
// Bash, where Go's YAML reader reads null, no grant. Such front matter is
// refused; a tag that agrees with its text is not.
func TestRetypingTagRefused(t *testing.T) {
	b := writeTree(t, "tags", map[string]string{
		ManifestClaude:         `{"name": "tags"}`,
		"commands/null.md":     "---\ndescription: d\nallowed-tools: !!null Bash\n---\nbody\n",
		"agents/null.md":       "---\nname: null\ndescription: d\ntools: !!null Read\n---\nbody\n",
		"skills/bool/SKILL.md": "---\nname: bool\ndescription: d\ndisable-model-invocation: !!bool yes\n---\nbody\n",
		"commands/agree.md":    "---\ndescription: !!str 12\nallowed-tools: !!null ~\nmaxTurns: !!float 3\nx: !!bool true\n---\nbody\n",
	})
	requireFinding(t, b, Skip, "document.front-matter", "commands/null.md")
	requireFinding(t, b, Skip, "document.front-matter", "agents/null.md")
	f := requireFinding(t, b, Skip, "skill.front-matter", "skills/bool/SKILL.md")
	if !strings.Contains(f.Message, "line 3 is tagged !!bool") {
		t.Errorf("the finding does not name the line and tag: %s", f.Message)
	}
	if len(b.Components.Commands) != 1 || b.Components.Commands[0].Name != "agree" || len(b.Components.Agents)+len(b.Components.Skills) != 0 {
		t.Errorf("read %+v %+v %+v; want the agreeing command alone\n%s", b.Components.Commands, b.Components.Agents, b.Components.Skills, dumpFindings(b))
	}
}
