package bundle

import (
	"slices"
	"testing"
)

// Claude Code names an agent in a subdirectory of agents/ by the
// subdirectories and then its front matter's name (agents/sub/x.md with
// "name: dn" is sub:dn; internal/agenttest TestClaudeNestedAgentNames).
// The review named it dn, so two such agents in two subdirectories, which
// Claude Code loads side by side, read as one name.
func TestClaudeNestedAgentNames(t *testing.T) {
	agent := func(fm string) string { return "---\n" + fm + "description: d\n---\nbody\n" }
	b := writeTree(t, "cn", map[string]string{
		ManifestClaude:            `{"name": "cn", "version": "1.0.0"}`,
		"agents/top.md":           agent("name: other\n"),
		"agents/review/helper.md": agent("name: helper\n"),
		"agents/deploy/helper.md": agent("name: helper\n"),
		"agents/sub/deeper/x.md":  agent("name: dn\n"),
		"agents/sub/noname.md":    agent(""),
	})
	if b.Rejected() {
		t.Fatalf("rejected:%s", dumpFindings(b))
	}
	var names []string
	for _, d := range b.Components.Agents {
		names = append(names, d.Name)
	}
	slices.Sort(names)
	if want := []string{"deploy:helper", "other", "review:helper", "sub:deeper:dn", "sub:noname"}; !slices.Equal(names, want) {
		t.Errorf("agent names %q, want %q", names, want)
	}
}
