package bundle

import (
	"slices"
	"strings"
	"testing"
)

// A UTF-8 byte-order mark is read as the hosts read it
// (internal/agenttest TestClaudeBOMAndDuplicateServer,
// TestCodexBOMAndDuplicateServer, TestGeminiBOMAndDuplicateServer):
// Claude Code skips it before .claude-plugin/plugin.json and loads the
// plugin; Codex and Gemini CLI refuse a manifest so marked, and no host
// reads a marked .mcp.json or hooks file.
func TestJSONByteOrderMarkAsHostsRead(t *testing.T) {
	skill := "---\nname: s\ndescription: d\n---\nbody\n"

	// Claude Code: plugin.json read without the mark; Codex, which falls
	// back to the same file, loads nothing, and the review says so.
	b := writeTree(t, "p", map[string]string{
		ManifestClaude:      "\uFEFF" + `{"name": "p"}`,
		"skills/s/SKILL.md": skill,
	})
	if b.Report.Rejected() || len(b.Components.Skills) != 1 {
		t.Fatalf("a plugin.json with a byte-order mark, which Claude Code loads, was not read:\n%s", dumpFindings(b))
	}
	if s := b.Components.Skills[0]; slices.Contains(s.Hosts, HostCodex) || !slices.Contains(s.Hosts, HostClaude) {
		t.Errorf("the skill is shown for hosts %v; want Claude Code only (Codex refuses the marked manifest)", s.Hosts)
	}
	f := requireFinding(t, b, Warning, "codex.ignored", ManifestClaude)
	if !strings.Contains(f.Message, "byte-order mark") {
		t.Errorf("the Codex finding does not name the mark: %s", f.Message)
	}

	// Gemini CLI and Codex refuse their marked manifests: the finding
	// names the mark at its place rather than "syntax error".
	for _, m := range []string{ManifestGemini, ManifestCodex} {
		b := writeTree(t, "p", map[string]string{
			m:                   "\uFEFF" + `{"name": "p", "version": "1.0.0"}`,
			"skills/s/SKILL.md": skill,
		})
		f := requireFinding(t, b, Error, "manifest.json", m)
		if !strings.Contains(f.Message, "byte-order mark") || !strings.Contains(f.Message, "line 1, column 1") {
			t.Errorf("%s: the finding does not name the byte-order mark at its place: %s", m, f.Message)
		}
	}

	// A marked .mcp.json or hooks file loads in no host: skipped.
	b = writeTree(t, "p", map[string]string{
		ManifestClaude:     `{"name": "p"}`,
		".mcp.json":        "\uFEFF" + `{"mcpServers": {"s": {"command": "x"}}}`,
		"hooks/hooks.json": "\uFEFF" + `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}`,
	})
	requireFinding(t, b, Skip, "mcp.invalid-json", ".mcp.json")
	requireFinding(t, b, Skip, "hook.file", "hooks/hooks.json")
	if len(b.Components.MCP) != 0 || len(b.Components.Hooks) != 0 {
		t.Errorf("servers %v or hooks %v shown from marked files no host reads", b.Components.MCP, b.Components.Hooks)
	}
}

// A server name repeated in a host's MCP server map takes the last
// definition, as every host's JSON reader does, with a warning naming it;
// any other repeated name is still refused.
func TestDuplicateServerLastDefinition(t *testing.T) {
	two := `{"dup": {"command": "first"}, "other": {"command": "o"}, "dup": {"command": "last"}}`
	cases := []struct {
		name  string
		files map[string]string
		path  string
	}{
		{"claude .mcp.json", map[string]string{ManifestClaude: `{"name": "p"}`, ".mcp.json": `{"mcpServers": ` + two + `}`}, ".mcp.json: mcpServers.dup"},
		{"claude flat .mcp.json", map[string]string{ManifestClaude: `{"name": "p"}`, ".mcp.json": two}, ".mcp.json: dup"},
		{"claude inline", map[string]string{ManifestClaude: `{"name": "p", "mcpServers": ` + two + `}`}, ManifestClaude + ": mcpServers.dup"},
		{"codex .mcp.json", map[string]string{ManifestCodex: `{"name": "p", "version": "1.0.0"}`, ".mcp.json": `{"mcpServers": ` + two + `}`}, ".mcp.json: mcpServers.dup"},
		{"gemini", map[string]string{ManifestGemini: `{"name": "p", "version": "1.0.0", "mcpServers": ` + two + `}`}, ManifestGemini + ": mcpServers.dup"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := writeTree(t, "p", c.files)
			f := requireFinding(t, b, Warning, "mcp.last-definition", c.path)
			if !strings.Contains(f.Message, "last definition") {
				t.Errorf("the warning does not say the last definition runs: %s", f.Message)
			}
			var got []string
			for _, s := range b.Components.MCP {
				got = append(got, s.Name+"="+s.Command)
			}
			if !slices.Equal(got, []string{"dup=last", "other=o"}) {
				t.Errorf("servers %v; want dup=last (in its first place) and other=o\n%s", got, dumpFindings(b))
			}
		})
	}

	// Elsewhere a repeated name is refused as before: a repeated
	// mcpServers member, a repeated field of one server.
	for name, files := range map[string]map[string]string{
		"repeated mcpServers": {ManifestClaude: `{"name": "p"}`, ".mcp.json": `{"mcpServers": {}, "mcpServers": {"s": {"command": "x"}}}`},
		"repeated field":      {ManifestClaude: `{"name": "p"}`, ".mcp.json": `{"mcpServers": {"s": {"command": "x", "command": "y"}}}`},
		"repeated name":       {ManifestClaude: `{"name": "p", "name": "q"}`},
	} {
		b := writeTree(t, "p", files)
		if !slices.ContainsFunc(b.Report.Findings, func(f Finding) bool { return f.Rule == "json.duplicate-key" && f.Severity == Error }) {
			t.Errorf("%s: not refused as json.duplicate-key:\n%s", name, dumpFindings(b))
		}
	}
}
