package agenttest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ignoringAgent is an agent whose front matter sets the keys Claude Code
// ignores for a plugin agent: permissionMode, hooks (on PreToolUse and
// Stop, each touching a file under rec), mcpServers (a server that records
// that it started), initialPrompt, observer, observerMessage and
// observeSubagents.
func ignoringAgent(t *testing.T, name, body, rec string) string {
	return fmt.Sprintf(`---
name: %s
description: owls
tools: Read
permissionMode: bypassPermissions
initialPrompt: agenttest-initial-prompt-9d2f
observer: true
observerMessage: agenttest-observer-message
observeSubagents: true
mcpServers:
  agentsrv:
    command: %s
    args: ["-record", "%s/agentsrv"]
hooks:
  PreToolUse:
    - matcher: Read
      hooks:
        - type: command
          command: touch %s/prehook
  Stop:
    - hooks:
        - type: command
          command: touch %s/stophook
---
%s
`, name, FakeMCPServer(t), rec, rec, rec, body)
}

// TestClaudePluginAgentIgnoredFields: Claude Code 2.1.332 ignores
// permissionMode, hooks and mcpServers in a plugin agent's front matter,
// and initialPrompt, observer, observerMessage and observeSubagents too
// (their log line says "Define the agent in .claude/agents/ to use <key>")
// (its agent loader drops them and logs "sets <key>, which is ignored for
// plugin agents", checked here in its --debug log): the agent's hooks
// never run and its server never starts. (The log is the evidence: a
// project agent's front-matter hooks did not run in -p either, so their
// absence alone would prove little.) bundle TestClaudePluginAgentIgnoredKeys holds the review to
// showing them as ignored, not as grants.
func TestClaudePluginAgentIgnoredFields(t *testing.T) {
	t.Parallel()
	body := "agenttest-ignoring-agent-5c1e"
	script := []Turn{
		Call("Agent", map[string]any{"subagent_type": pluginName + ":ignorer", "description": "owls", "prompt": "go"}),
		Call("Read", map[string]any{"file_path": "/etc/hostname"}),
		Say("done"),
	}
	ran := func(rec string) []string {
		var out []string
		for _, n := range []string{"prehook", "stophook", "agentsrv"} {
			if _, err := os.Stat(filepath.Join(rec, n)); err == nil {
				out = append(out, n)
			}
		}
		return out
	}

	t.Run("plugin", func(t *testing.T) {
		rec := t.TempDir()
		root := filepath.Join(t.TempDir(), pluginName)
		writeJSONFile(t, root, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
		writeFile(t, root, "agents/ignorer.md", ignoringAgent(t, "ignorer", body, rec), 0o644)
		a := New(t, Claude, script...)
		a.Args = []string{"--plugin-dir", root, "--allowedTools", "Agent,Read", "--debug"}
		res := a.Run(t, "hello owls")
		if _, ok := subagentTools(a, body); !ok {
			t.Fatalf("the agent never ran\n%s\n%s", res, a.Model.Dump())
		}
		if got := ran(rec); len(got) != 0 {
			t.Errorf("the plugin agent's %v ran; Claude Code was expected to ignore its hooks and servers", got)
		}
		sawBody := false
		for _, r := range a.Model.Requests() {
			sawBody = sawBody || strings.Contains(string(r.Body), body)
			if strings.Contains(string(r.Body), "agenttest-initial-prompt-9d2f") {
				t.Errorf("the plugin agent's initialPrompt reached the model")
			}
		}
		if !sawBody {
			t.Errorf("no request carries the agent's body: the check of its initialPrompt would prove nothing")
		}
		logged := res.Stderr
		filepath.WalkDir(a.Home, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if b, err := os.ReadFile(p); err == nil {
					logged += string(b)
				}
			}
			return nil
		})
		for _, k := range []string{"permissionMode", "hooks", "mcpServers", "initialPrompt", "observer", "observerMessage", "observeSubagents"} {
			if !strings.Contains(logged, "sets "+k+", which is ignored for plugin agents") {
				t.Errorf("no debug line saying %s is ignored for plugin agents", k)
			}
		}
	})

}

// TestClaudeAgentToolsNonString: Claude Code keeps only the strings of an
// agent's tools list; a tools value that is not a string or a list (a
// number, a boolean, a mapping) or a list of no strings gives the agent no
// tool. bundle TestClaudeAgentToolsNonString holds the review to that.
func TestClaudeAgentToolsNonString(t *testing.T) {
	t.Parallel()
	agents := []struct{ name, line string }{
		{"mixed", "tools: [1, Read]"},
		{"numbers", "tools: [1, 2]"},
		{"number", "tools: 5"},
		{"boolean", "tools: true"},
		{"mapping", "tools: {Read: yes}"},
		{"nested", "tools: [[Read]]"},
	}
	root := filepath.Join(t.TempDir(), pluginName)
	writeJSONFile(t, root, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
	for _, ag := range agents {
		writeFile(t, root, "agents/"+ag.name+".md", "---\nname: "+ag.name+"\ndescription: owls\n"+ag.line+"\n---\nagenttest-nonstring-"+ag.name+"\n", 0o644)
	}
	for _, ag := range agents {
		tools := runSubagent(t, root, ag.name, "agenttest-nonstring-"+ag.name)
		want := []string{}
		if ag.name == "mixed" {
			want = []string{"Read"}
		}
		if !slices.Equal(tools, want) {
			t.Errorf("%s (%s): ran with tools %v; want %v", ag.name, ag.line, tools, want)
		}
	}
}
