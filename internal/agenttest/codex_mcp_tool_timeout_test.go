package agenttest

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestExecCodexMCPToolTimeout: Codex 0.171 reads an MCP server's
// tool_timeout_sec as its wait for each tool call, written in config.toml
// as a TOML integer (1) or float (1.0) alike: a call the server answers
// after 3 s, with a tool_timeout_sec of 1, is made and its answer never
// reaches the model; without the field (Codex's 300 s) it does. Under
// bundlectl exec, and in a session bundlectl setup codex wired, the same
// server of a reviewed plugin behaves the same: the view and setup's
// config.toml entry give Codex the reviewed tool_timeout_sec (and
// startup_timeout_sec plus hosts.MCPStartMargin). Before, their entries
// had no timeout, Codex waited its 300 s default, and the answer the
// review says Codex gives up on reached the model.
// The waits are in the server: a slow machine only makes the 1 s call
// surer to be cut.
func TestExecCodexMCPToolTimeout(t *testing.T) {
	// Not parallel: its outcome turns on a short wait of a host's or the
	// proxy's (see doc.go).
	const answer = "fakemcp-codex-late-answer-42"
	check := func(t *testing.T, a *Agent, res *Result, rec string, want bool) {
		t.Helper()
		called := len(mcpCalls(t, rec)) > 0
		next := a.Model.CallsAt(1)
		answered := len(next) > 0 && next[len(next)-1].Contains(answer)
		if !called || answered != want {
			t.Errorf("tool called %v (want true), its answer after 3 s reached the model %v (want %v)\n%s", called, answered, want, res)
		}
	}

	// Codex alone, the server in config.toml as setup writes it; without
	// tool_timeout_sec (Codex's 300 s) the answer comes through.
	for _, c := range []struct {
		name, field string
		answered    bool
	}{
		{"config-int", "tool_timeout_sec = 1\n", false},
		{"config-float", "tool_timeout_sec = 1.0\n", false},
		{"config-none", "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := filepath.Join(t.TempDir(), "mcp.jsonl")
			a := New(t, Codex, MCPCall(Codex, "slow", "lookup", map[string]any{"query": "owl"}), Say("done"))
			args, _ := json.Marshal([]string{"-call-delay", "3s", "-answer", answer, "-record", rec})
			a.CodexConfig = fmt.Sprintf("[mcp_servers.slow]\ncommand = %q\nargs = %s\nstartup_timeout_sec = 20.0\n%sdefault_tools_approval_mode = \"approve\"\n", FakeMCPServer(t), args, c.field)
			check(t, a, a.Run(t, "look up owl"), rec, c.answered)
		})
	}

	// A reviewed plugin whose server has tool_timeout_sec 1, through
	// bundlectl exec's view and through setup's config.toml entry.
	for _, through := range []string{"exec", "setup"} {
		t.Run(through, func(t *testing.T) {
			rec := filepath.Join(t.TempDir(), "mcp.jsonl")
			server := "slow"
			if through == "setup" {
				// setup's entry name, with '-' turned into '_' by Codex.
				server = strings.ReplaceAll("bundlectl-"+pluginName+"-slow", "-", "_")
			}
			a := New(t, Codex, MCPCall(Codex, server, "lookup", map[string]any{"query": "owl"}), Say("done"))
			f := newExecFixture(t, a)
			writeJSONFile(t, f.src, ".mcp.json", map[string]any{"mcpServers": map[string]any{"slow": map[string]any{
				"command": "./bin/fakemcp", "cwd": ".",
				"args":             []string{"-call-delay", "3s", "-answer", answer, "-record", rec},
				"tool_timeout_sec": 1,
			}}})
			copyFakeMCP(t, f.src)
			f.trust(t)
			if through == "exec" {
				a.Args = []string{"-c", "features.plugins=true"}
				a.Launcher = f.launcher(t)
			} else {
				if wrote := f.runSetup(t, a, "hello"); !strings.Contains(string(wrote), "\ntool_timeout_sec = 1.0\n") {
					t.Fatalf("setup wrote no tool_timeout_sec = 1.0:\n%s", wrote)
				}
			}
			check(t, a, a.Run(t, "look up owl"), rec, false)
		})
	}
}
