package agenttest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestExecCodexMCPToolTimeout: Codex 0.171 reads an MCP server's
// tool_timeout_sec as its wait for each tool call, written in config.toml
// as a TOML integer (1) or float (1.0) alike: a call the server answers
// after 3 s, with a tool_timeout_sec of 1, is made and its answer never
// reaches the model. Under bundlectl exec the same server of a reviewed
// plugin behaves the same: the view gives Codex the reviewed
// tool_timeout_sec (and startup_timeout_sec plus hosts.MCPStartMargin).
// Before, the view's entry had no timeout, Codex waited its 60 s default,
// and the answer the review says Codex gives up on reached the model.
// The waits are in the server: a slow machine only makes the 1 s call
// surer to be cut.
func TestExecCodexMCPToolTimeout(t *testing.T) {
	const answer = "fakemcp-codex-late-answer-42"
	call := MCPCall(Codex, "slow", "lookup", map[string]any{"query": "owl"})
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
	// tool_timeout_sec (Codex's 60 s) the answer comes through.
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
			a := New(t, Codex, call, Say("done"))
			args, _ := json.Marshal([]string{"-call-delay", "3s", "-answer", answer, "-record", rec})
			a.CodexConfig = fmt.Sprintf("[mcp_servers.slow]\ncommand = %q\nargs = %s\nstartup_timeout_sec = 20.0\n%sdefault_tools_approval_mode = \"approve\"\n", FakeMCPServer(t), args, c.field)
			check(t, a, a.Run(t, "look up owl"), rec, c.answered)
		})
	}

	t.Run("exec", func(t *testing.T) {
		rec := filepath.Join(t.TempDir(), "mcp.jsonl")
		a := New(t, Codex, call, Say("done"))
		home := filepath.Join(t.TempDir(), "bundlectl-home")
		if err := os.MkdirAll(home, 0o700); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { Writable(home) })
		dir := filepath.Join(a.Workdir, ".bundlectl", "bundles", pluginName)
		writeJSONFile(t, dir, ".codex-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
		writeJSONFile(t, dir, ".mcp.json", map[string]any{"mcpServers": map[string]any{"slow": map[string]any{
			"command": "./bin/fakemcp", "cwd": ".", "default_tools_approval_mode": "approve",
			"args":             []string{"-call-delay", "3s", "-answer", answer, "-record", rec},
			"tool_timeout_sec": 1,
		}}})
		copyFakeMCP(t, dir)
		out := BundlectlRun(t, home, "--workspace", a.Workdir, "review", "--json", pluginName)
		var tok struct {
			Token string `json:"token"`
		}
		if err := json.Unmarshal([]byte(out), &tok); err != nil || tok.Token == "" {
			t.Fatalf("review --json: %v\n%s", err, out)
		}
		BundlectlRun(t, home, "--workspace", a.Workdir, "trust", pluginName, tok.Token)
		BundlectlRun(t, home, "--workspace", a.Workdir, "enable", pluginName)
		a.Args = []string{"-c", "features.plugins=true"}
		a.Launcher = []string{Bundlectl(t), "--home", home, "--workspace", a.Workdir, "exec", "--"}
		check(t, a, a.Run(t, "look up owl"), rec, false)
	})
}
