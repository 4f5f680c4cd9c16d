package bundle

import (
	"strings"
	"testing"
)

func skill(front string) string { return "---\n" + front + "\n---\nbody\n" }

func TestSkillRules(t *testing.T) {
	ok := "name: s\ndescription: d"
	runRuleCases(t, []ruleCase{
		{"skills is a file", files{"skills": "x"}, Skip, "skill.location", "skills", ""},
		{"no front matter", files{"skills/s/SKILL.md": "# s\n"}, Skip, "skill.front-matter", "skills/s/SKILL.md", ""},
		{"unclosed front matter", files{"skills/s/SKILL.md": "---\nname: s\n"}, Skip, "skill.front-matter", "skills/s/SKILL.md", ""},
		{"invalid yaml", files{"skills/s/SKILL.md": skill("name: s\ndescription: [unclosed")}, Skip, "skill.front-matter", "skills/s/SKILL.md", ""},
		{"not a mapping", files{"skills/s/SKILL.md": skill("- name: s")}, Skip, "skill.front-matter", "skills/s/SKILL.md", ""},
		{"alias", files{"skills/s/SKILL.md": skill("name: &n s\ndescription: *n")}, Skip, "skill.front-matter", "skills/s/SKILL.md", ""},
		{"second document", files{"skills/s/SKILL.md": skill(ok + "\n...\nmodel: x")}, Skip, "skill.front-matter", "skills/s/SKILL.md", ""},
		{"duplicate key", files{"skills/s/SKILL.md": skill(ok + "\nname: s")}, Skip, "skill.front-matter", "skills/s/SKILL.md", ""},
		{"unknown key", files{"skills/s/SKILL.md": skill(ok + "\nfrobnicate: opus")}, Skip, "skill.unknown-field", "skills/s/SKILL.md: frobnicate", ""},
		{"name not a string", files{"skills/s/SKILL.md": skill("name: [s]\ndescription: d")}, Skip, "skill.field-type", "SKILL.md: name", ""},
		{"name is a number", files{"skills/7/SKILL.md": skill("name: 7\ndescription: d")}, Skip, "skill.field-type", "SKILL.md: name", ""},
		{"metadata nested", files{"skills/s/SKILL.md": skill(ok + "\nmetadata:\n  a: [1]")}, Skip, "skill.field-type", "SKILL.md: metadata", ""},
		{"metadata not a map", files{"skills/s/SKILL.md": skill(ok + "\nmetadata: x")}, Skip, "skill.field-type", "SKILL.md: metadata", ""},
		{"name missing", files{"skills/s/SKILL.md": skill("description: d")}, Skip, "skill.name", "SKILL.md: name", ""},
		{"name uppercase", files{"skills/Sk/SKILL.md": skill("name: Sk\ndescription: d")}, Skip, "skill.name", "SKILL.md: name", ""},
		{"name leading hyphen", files{"skills/-s/SKILL.md": skill("name: -s\ndescription: d")}, Skip, "skill.name", "SKILL.md: name", ""},
		{"name double hyphen", files{"skills/a--b/SKILL.md": skill("name: a--b\ndescription: d")}, Skip, "skill.name", "SKILL.md: name", ""},
		{"name with period", files{"skills/a.b/SKILL.md": skill("name: a.b\ndescription: d")}, Skip, "skill.name", "SKILL.md: name", ""},
		{"name too long", files{"skills/" + strings.Repeat("a", 65) + "/SKILL.md": skill("name: " + strings.Repeat("a", 65) + "\ndescription: d")}, Skip, "skill.name", "SKILL.md: name", ""},
		{"name mismatch", files{"skills/s/SKILL.md": skill("name: other\ndescription: d")}, Skip, "skill.name-mismatch", "SKILL.md: name", ""},
		{"description missing", files{"skills/s/SKILL.md": skill("name: s")}, Skip, "skill.description", "SKILL.md: description", ""},
		{"description empty", files{"skills/s/SKILL.md": skill("name: s\ndescription: \"  \"")}, Skip, "skill.description", "SKILL.md: description", ""},
		{"description too long", files{"skills/s/SKILL.md": skill("name: s\ndescription: " + strings.Repeat("é", 1025))}, Skip, "skill.description", "SKILL.md: description", ""},
		{"compatibility too long", files{"skills/s/SKILL.md": skill(ok + "\ncompatibility: " + strings.Repeat("x", 501))}, Skip, "skill.compatibility", "SKILL.md: compatibility", ""},
		{"compatibility empty", files{"skills/s/SKILL.md": skill(ok + "\ncompatibility: \"\"")}, Skip, "skill.compatibility", "SKILL.md: compatibility", ""},
		{"SKILL.md is a directory", files{"skills/s/SKILL.md/": ""}, Warning, "skill.not-a-file", "skills/s/SKILL.md", ""},
		{"control character in description", files{"skills/s/SKILL.md": skill("name: s\ndescription: \"a\\x1b[31mb\"")}, Error, "text.control", "SKILL.md: description", ""},
		{"bidi character in description", files{"skills/s/SKILL.md": skill("name: s\ndescription: \"a\\u202eb\"")}, Error, "text.bidi", "SKILL.md: description", ""},
	})
}

func TestSkillLimitsInclusive(t *testing.T) {
	b := loadFiles(t, withPlugin(files{"skills/s/SKILL.md": skill("name: s\ndescription: " + strings.Repeat("é", 1024) + "\ncompatibility: " + strings.Repeat("x", 500))}))
	requireClean(t, b)
	if len(b.Components.Skills) != 1 {
		t.Fatalf("skills: %+v", b.Components.Skills)
	}
}

func TestSkillDiscoveryIsShallow(t *testing.T) {
	b := loadFiles(t, withPlugin(files{
		"skills/SKILL.md":             skill("name: skills\ndescription: d"), // a file directly in skills/
		"skills/group/inner/SKILL.md": skill("name: inner\ndescription: d"),  // too deep
		"skills/empty/":               "",
		"skills/notes.txt":            "x",
		"skills/ok/SKILL.md":          skill("name: ok\ndescription: d"),
		"skills/ok/nested/SKILL.md":   skill("name: nested\ndescription: d"),
	}))
	requireClean(t, b)
	if len(b.Components.Skills) != 1 || b.Components.Skills[0].Name != "ok" || b.Components.Skills[0].Path != "skills/ok/SKILL.md" {
		t.Fatalf("skills: %+v", b.Components.Skills)
	}
}

func TestInvalidSkillDoesNotStopOthers(t *testing.T) {
	b := loadFiles(t, withPlugin(files{
		"skills/a/SKILL.md": skill("name: a\ndescription: first"),
		"skills/b/SKILL.md": skill("name: wrong\ndescription: second"),
		"skills/c/SKILL.md": skill("name: c\ndescription: third"),
		"mcp.json":          mcpJSON(`{"s": {"type": "stdio", "command": "node"}}`),
	}))
	requireFinding(t, b, Skip, "skill.name-mismatch", "skills/b/SKILL.md")
	if b.Rejected() || len(b.Components.Skills) != 2 || len(b.Components.MCP) != 1 {
		t.Fatalf("skills %+v mcp %+v:%s", b.Components.Skills, b.Components.MCP, dumpFindings(b))
	}
}

func TestSkillFrontMatterForms(t *testing.T) {
	for name, content := range map[string]string{
		"crlf":           "---\r\nname: s\r\ndescription: d\r\n---\r\nbody\r\n",
		"bom":            "\xef\xbb\xbf---\nname: s\ndescription: d\n---\n",
		"no body":        "---\nname: s\ndescription: d\n---",
		"folded":         "---\nname: s\ndescription: >\n  long\n  text\n---\n",
		"literal":        "---\nname: s\ndescription: |\n  line one\n  line two\n---\n",
		"quoted":         "---\nname: \"s\"\ndescription: 'd'\nlicense: MIT\nallowed-tools: Read Bash(git:*)\n---\n",
		"metadata":       "---\nname: s\ndescription: d\nmetadata:\n  version: 1.0\n  author: me\n---\n",
		"trailing space": "---  \nname: s\ndescription: d\n---   \n",
	} {
		t.Run(name, func(t *testing.T) {
			b := loadFiles(t, withPlugin(files{"skills/s/SKILL.md": content}))
			requireClean(t, b)
			if len(b.Components.Skills) != 1 || strings.HasSuffix(b.Components.Skills[0].Description, "\n") {
				t.Fatalf("skills: %+v", b.Components.Skills)
			}
		})
	}
}

func TestDocumentRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{"commands is a file", files{"dev.bundlectl/commands": "x"}, Skip, "document.location", "dev.bundlectl/commands", ""},
		{"agents is a file", files{"dev.bundlectl/agents": "x"}, Skip, "document.location", "dev.bundlectl/agents", ""},
		{"bad command name", files{"dev.bundlectl/commands/Review.md": "x"}, Skip, "document.name", "dev.bundlectl/commands/Review.md", ""},
		{"bad agent name", files{"dev.bundlectl/agents/a_b.md": "x"}, Skip, "document.name", "dev.bundlectl/agents/a_b.md", ""},
		{"unclosed front matter", files{"dev.bundlectl/commands/r.md": "---\ndescription: x\n"}, Skip, "document.front-matter", "dev.bundlectl/commands/r.md", ""},
		{"description not a string", files{"dev.bundlectl/agents/a.md": "---\ndescription: [x]\n---\n"}, Skip, "document.front-matter", "dev.bundlectl/agents/a.md", ""},
		{"control character in description", files{"dev.bundlectl/agents/a.md": "---\ndescription: \"\\x07\"\n---\n"}, Error, "text.control", "dev.bundlectl/agents/a.md: description", ""},
	})
}

func TestDocuments(t *testing.T) {
	b := loadFiles(t, withPlugin(files{
		"dev.bundlectl/commands/review.md":     "---\ndescription: Review\nallowed-tools: Bash\nargument-hint: [file]\n---\nDo it.\n",
		"dev.bundlectl/commands/plain.md":      "No front matter at all.\n",
		"dev.bundlectl/commands/notes.txt":     "ignored",
		"dev.bundlectl/commands/sub/deeper.md": "ignored: not an immediate child",
		"dev.bundlectl/agents/helper.md":       "---\nname: helper\ndescription: Helps\ntools: Read, Grep\n---\n",
	}))
	requireClean(t, b)
	c := b.Components
	if len(c.Commands) != 2 || c.Commands[0].Name != "plain" || c.Commands[1].Name != "review" || c.Commands[1].Description != "Review" {
		t.Fatalf("commands: %+v", c.Commands)
	}
	if len(c.Agents) != 1 || c.Agents[0].Path != "dev.bundlectl/agents/helper.md" || c.Agents[0].Description != "Helps" {
		t.Fatalf("agents: %+v", c.Agents)
	}
}

func TestOversizedFilesAreSkipped(t *testing.T) {
	big := skill("name: s\ndescription: d") + strings.Repeat("x", MaxManifestBytes)
	b := loadFiles(t, withPlugin(files{
		"skills/s/SKILL.md":         big,
		"mcp.json":                  mcpJSON(`{}`) + strings.Repeat(" ", MaxManifestBytes),
		"dev.bundlectl/agents/a.md": big,
		"skills/ok/SKILL.md":        skill("name: ok\ndescription: d"),
	}))
	requireFinding(t, b, Skip, "skill.read", "skills/s/SKILL.md")
	requireFinding(t, b, Skip, "mcp.read", "mcp.json")
	requireFinding(t, b, Skip, "document.read", "dev.bundlectl/agents/a.md")
	if b.Rejected() || len(b.Components.Skills) != 1 || !b.Components.MCPDisabled {
		t.Fatalf("components: %+v:%s", b.Components, dumpFindings(b))
	}
}

// A host plugin's skill whose front matter name holds white space loads in
// Claude Code (named after its directory; the name is only shown) and in
// Gemini CLI, so it must be reviewed, under its directory's name, not
// skipped. A directory name the host rule refuses still skips it.
func TestHostSkillNamedWithSpacesIsReviewedByDirectory(t *testing.T) {
	b := loadFiles(t, files{
		".claude-plugin/plugin.json":   `{"name": "p"}`,
		"skills/tidy-up/SKILL.md":      skill("name: Tidy Up Files\ndescription: d"),
		"skills/with space/SKILL.md":   skill("name: Also Spaced\ndescription: d"),
		"skills/with space/helper.txt": "x",
		"skills/ns/SKILL.md":           skill("name: other:deploy\ndescription: d"),
		"skills/up/SKILL.md":           skill("name: ..\ndescription: d"),
	})
	// Only white space is forgiven: a colon could pass for another
	// plugin's namespace, and a reserved name is no name.
	requireFinding(t, b, Skip, "skill.name", "skills/ns/SKILL.md: name")
	requireFinding(t, b, Skip, "skill.name", "skills/up/SKILL.md: name")
	requireFinding(t, b, Warning, "skill.name", "skills/tidy-up/SKILL.md: name")
	requireFinding(t, b, Skip, "skill.name", "skills/with space/SKILL.md: name")
	if len(b.Components.Skills) != 1 || b.Components.Skills[0].Name != "tidy-up" {
		t.Fatalf("want the one skill tidy-up, got %+v", b.Components.Skills)
	}
}
