package bundle

import (
	"slices"
	"strings"
	"testing"
)

// Claude Code reads an agent or command whose front matter fails only for
// a value holding ": " by quoting such values (internal/agenttest
// TestClaudeLenientFrontMatter: the agent then has exactly its tools and
// model); the review must show those grants. Front matter that fails
// that reading too loads with none, and where the rule cannot be followed
// exactly the document is skipped, saying what Claude Code may do.
func TestClaudeLenientFrontMatter(t *testing.T) {
	b := writeTree(t, "loose", map[string]string{
		ManifestClaude:          `{"name": "loose"}`,
		"agents/colon.md":       "---\nname: colon\ndescription: Use when the caller says: check the owls\ntools: Bash\nmodel: haiku\npermissionMode: bypassPermissions\n---\nbody\n",
		"agents/examples.md":    "---\nname: examples\ndescription: Use for owl review. Examples:\n<example>\nContext: owl code\nuser: \"review\"\n</example>\ntools: Read\n---\nbody\n",
		"agents/crlf.md":        "---\r\nname: crlf\r\ndescription: a: b\r\ntools: Bash\r\n---\r\nbody\r\n",
		"agents/flow.md":        "---\nname: flow\ndescription: a: b\ntools: [Bash, Read]\n---\nbody\n",
		"commands/tabbed.md":    "---\ndescription: Run it: now\nallowed-tools:\n\t- Bash(git:*)\n---\nbody\n",
		"commands/escape.md":    "---\ndescription: say \"hi\": \\o/\n---\nbody\n",
		"agents/other-error.md": "---\nname: other\ndescription: @at\n---\nbody\n",
	})
	agents := map[string]Document{}
	for _, d := range b.Components.Agents {
		agents[d.Name] = d
	}
	commands := map[string]Document{}
	for _, d := range b.Components.Commands {
		commands[d.Name] = d
	}
	c, ok := agents["colon"]
	if !ok || c.Description != "Use when the caller says: check the owls" || !slices.Equal(c.Grants.Tools, []string{"Bash"}) || c.Grants.Model != "haiku" || c.Grants.PermissionMode != "" || string(c.Grants.Ignored["permissionMode"]) != `"bypassPermissions"` {
		t.Errorf("colon agent read as %+v", c)
	}
	if tb, ok := commands["tabbed"]; !ok || !slices.Equal(tb.Grants.AllowedTools, []string{"Bash(git:*)"}) {
		t.Errorf("a line-leading tab is two spaces to Claude Code: %+v", tb)
	}
	if e, ok := commands["escape"]; !ok || e.Description != `say "hi": \o/` {
		t.Errorf("escaped quotes and backslashes: %+v", e)
	}
	for _, name := range []string{"examples", "crlf", "flow", "other"} {
		if _, ok := agents[name]; ok {
			t.Errorf("agent %q was read; it must be skipped", name)
		}
	}
	want := map[string]string{
		"agents/colon.md":       "document.front-matter-quoted",
		"agents/examples.md":    "loads the file with no front matter at all",
		"agents/crlf.md":        "bundlectl cannot tell which",
		"agents/flow.md":        "bundlectl cannot tell which",
		"agents/other-error.md": "bundlectl cannot tell which",
	}
	for path, w := range want {
		found := false
		for _, f := range b.Report.Findings {
			found = found || f.Path == path && (f.Rule == w || strings.Contains(f.Message, w))
		}
		if !found {
			t.Errorf("%s: no finding with %q:%s", path, w, dumpFindings(b))
		}
	}
}

// Gemini CLI reads agents strictly: a document it loads too is never read
// leniently.
func TestLenientFrontMatterIsClaudeCodeOnly(t *testing.T) {
	b := writeTree(t, "loose", map[string]string{
		ManifestClaude:    `{"name": "loose"}`,
		ManifestGemini:    `{"name": "loose", "version": "1.0.0"}`,
		"agents/colon.md": "---\nname: colon\ndescription: a: b\ntools: Bash\n---\nbody\n",
	})
	if len(b.Components.Agents) != 0 {
		t.Errorf("an agent Gemini CLI loads too was read leniently: %+v", b.Components.Agents)
	}
}

func FuzzClaudeLenientFrontMatter(f *testing.F) {
	f.Add([]byte("description: a: b\ntools: Bash\n"))
	f.Add([]byte("description: x\n<example>\nuser: \"y\"\n</example>\n"))
	f.Add([]byte("a: \"\n\tb: c: d\n"))
	f.Add([]byte("description: a: b\u0085tools: Bash\n"))
	f.Add([]byte("description: a: b\u2028tools: Bash\n"))
	f.Add([]byte("description: a: b\ntools: [Bash]\n"))
	f.Add([]byte("description: |\n  x: y\nname: a: b\n"))
	f.Add([]byte("description: \"\nname: a: b \\\" #\n"))
	f.Fuzz(func(t *testing.T, fm []byte) {
		q, ok := ClaudeLenientFrontMatter(fm)
		if !ok {
			return
		}
		if strings.Count(string(q), "\n") != strings.Count(string(fm), "\n") {
			t.Errorf("the rewrite changed the number of lines: %q -> %q", fm, q)
		}
		if strings.ContainsAny(string(q), "\r"+lineSeparators) {
			t.Errorf("followed a reading whose line ends hosts disagree on: %q", fm)
		}
	})
}

// U+0085, U+2028 and U+2029 end a line for Go's YAML reader, not for
// Claude Code's: there "description: hi<U+2028>tools: Bash" is one
// description, and the agent, with no tools key, gets every tool of the
// session (internal/agenttest TestClaudeLineSeparatorFrontMatter). The
// review must not show the tools grant: the document is skipped.
func TestFrontMatterLineSeparatorSkipped(t *testing.T) {
	for _, sep := range []string{"\u0085", "\u2028", "\u2029"} {
		b := writeTree(t, "loose", map[string]string{
			ManifestClaude:        `{"name": "loose"}`,
			"agents/sep.md":       "---\nname: sep\ndescription: hi" + sep + "tools: Bash\n---\nbody\n",
			"agents/colon.md":     "---\nname: colon\ndescription: a: b" + sep + "tools: Bash\n---\nbody\n",
			"skills/owl/SKILL.md": "---\nname: owl\ndescription: owls" + sep + "allowed-tools: Bash\n---\nbody\n",
		})
		if len(b.Components.Agents)+len(b.Components.Skills) != 0 {
			t.Errorf("%q: read as %+v %+v; want them skipped", sep, b.Components.Agents, b.Components.Skills)
		}
		requireFinding(t, b, Skip, "document.front-matter", "agents/sep.md")
		requireFinding(t, b, Skip, "skill.front-matter", "skills/owl/SKILL.md")
		f := requireFinding(t, b, Skip, "document.front-matter", "agents/colon.md")
		if !strings.Contains(f.Message, "bundlectl cannot tell which") {
			t.Errorf("%q: the lenient reading is not refused as one bundlectl cannot follow: %s", sep, f.Message)
		}
	}
}
