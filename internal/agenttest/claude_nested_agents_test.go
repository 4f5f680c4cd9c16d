package agenttest

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestClaudeNestedAgentNames: Claude Code 2.1.332 names an agent in a
// subdirectory of agents/ by the subdirectories and then its front
// matter's name (agents/review/helper.md with "name: helper" is
// <plugin>:review:helper), so two such agents load side by side; the
// review names them the same way (bundle TestClaudeNestedAgentNames).
// Of two agents of agents/ itself with one name, it offers one: the
// review refuses the pair (document.duplicate), as a host view could
// hold only one of them.
func TestClaudeNestedAgentNames(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), pluginName)
	writeJSONFile(t, root, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
	agents := map[string]string{ // path -> front matter name
		"agents/review/helper.md": "helper",
		"agents/deploy/helper.md": "helper",
		"agents/sub/deeper/x.md":  "dn",
	}
	for rel, name := range agents {
		writeFile(t, root, rel, "---\nname: "+name+"\ndescription: agenttest-nested-agent "+rel+"\n---\nbody\n", 0o644)
	}
	var review struct {
		Components struct {
			Agents []struct {
				Name string `json:"name"`
			} `json:"agents"`
		} `json:"components"`
	}
	out := BundlectlRun(t, t.TempDir(), "review", "--json", root)
	if err := json.Unmarshal([]byte(out), &review); err != nil {
		t.Fatalf("review --json: %v\n%s", err, out)
	}
	var listed []string
	for _, a := range review.Components.Agents {
		listed = append(listed, pluginName+":"+a.Name)
	}
	slices.Sort(listed)

	writeFile(t, root, "agents/one.md", "---\nname: same\ndescription: agenttest-top-agent-one\n---\nbody\n", 0o644)
	writeFile(t, root, "agents/two.md", "---\nname: same\ndescription: agenttest-top-agent-two\n---\nbody\n", 0o644)
	a := New(t, Claude, Say("done"))
	a.Args = []string{"--plugin-dir", root, "--allowedTools", "Bash"}
	res := a.Run(t, "hello")
	first := a.Model.CallsAt(0)
	if len(first) == 0 {
		t.Fatalf("no model call\n%s", res)
	}
	var offered []string
	tops := map[string]bool{}
	for _, line := range strings.Split(strings.Join(first[0].Strings(), "\n"), "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "- ")
		if _, desc, ok := strings.Cut(line, ": agenttest-top-agent-"); ok {
			tops[desc[:3]] = true
		}
		if name, _, ok := strings.Cut(line, ": agenttest-nested-agent "); ok {
			offered = append(offered, name)
		}
	}
	slices.Sort(offered)
	offered = slices.Compact(offered)
	if want := []string{pluginName + ":deploy:helper", pluginName + ":review:helper", pluginName + ":sub:deeper:dn"}; !slices.Equal(offered, want) {
		t.Fatalf("Claude Code offered the agents %q, want %q\n%s", offered, want, a.Model.Dump())
	}
	if len(tops) != 1 {
		t.Errorf("Claude Code offered %d of two agents named alike (%v); want one", len(tops), tops)
	}
	if !slices.Equal(listed, offered) {
		t.Errorf("the review names the agents %q; Claude Code offered %q\n%s", listed, offered, out)
	}
}
