package agenttest

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// slashCommands returns the slash commands of the init message of a
// stream-json run.
func slashCommands(t *testing.T, res *Result) []string {
	t.Helper()
	for _, line := range strings.Split(res.Stdout, "\n") {
		var m struct {
			Type          string   `json:"type"`
			Subtype       string   `json:"subtype"`
			SlashCommands []string `json:"slash_commands"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.Type == "system" && m.Subtype == "init" {
			return m.SlashCommands
		}
	}
	t.Fatalf("no init message\n%s", res)
	return nil
}

// TestClaudeCommandCaseNames: a plain command commands/Deploy.md and a
// skill-mode command commands/deploy/SKILL.md are two commands to Claude
// Code 2.1.332, "<plugin>:Deploy" and "<plugin>:deploy", in place and
// through bundlectl exec, whose view writes them as Deploy.md and deploy/
// (no clash even on a case-insensitive file system). The review passes
// them (bundle TestDuplicateNamesFoldViewPaths).
func TestClaudeCommandCaseNames(t *testing.T) {
	t.Parallel()
	write := func(root string) {
		writeFile(t, root, "commands/Deploy.md", "---\ndescription: upper file command\n---\nupper body\n", 0o644)
		writeFile(t, root, "commands/deploy/SKILL.md", "---\ndescription: lower skill-mode command\n---\nlower body\n", 0o644)
	}
	want := []string{pluginName + ":Deploy", pluginName + ":deploy"}
	a := New(t, Claude, Say("done"))
	root := filepath.Join(t.TempDir(), pluginName)
	writeJSONFile(t, root, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
	write(root)
	a.Args = []string{"--plugin-dir", root, "--output-format", "stream-json", "--verbose"}
	res := a.Run(t, "hello")
	if got := slashCommands(t, res); !slices.Contains(got, want[0]) || !slices.Contains(got, want[1]) {
		t.Errorf("in place: slash commands %v, want both %v", got, want)
	}

	a = New(t, Claude, Say("done"))
	f := newExecFixture(t, a)
	write(f.src)
	f.trust(t)
	a.Args = []string{"--output-format", "stream-json", "--verbose"}
	a.Launcher = f.launcher(t)
	res = a.Run(t, "hello")
	if got := slashCommands(t, res); !slices.Contains(got, want[0]) || !slices.Contains(got, want[1]) {
		t.Errorf("through exec: slash commands %v, want both %v\n%s", got, want, res)
	}
}
