package agenttest

import (
	"fmt"
	"path/filepath"
	"testing"
)

// TestGeminiMCPTimeoutConnectAndCall: Gemini CLI 0.61 applies an MCP
// server's "timeout" (milliseconds) both to the connection and to each
// call, as its source reads (mcp-client: connect and callTool take
// serverConfig.timeout). With "timeout": 1000 a server that answers
// initialize after 3 s has none of its tools offered, and a call answered
// after 3 s fails ("MCP tool 'lookup' reported an error"), its answer never
// reaching the model; with 6000 both go through. So hosts.GeminiMCPTimeoutMs
// is right to give a Gemini CLI entry started through `bundlectl mcp` the
// reviewed timeout plus MCPStartMargin: bundlectl's checks before the start
// count against the connection's time. The margin must not lengthen a
// call's wait: the proxy (`bundlectl mcp`) times each call by the reviewed
// timeout itself, so through bundlectl exec the call of a server reviewed
// with a 1 s timeout that answers after 3 s fails as it does when Gemini
// CLI loads the extension itself, with the proxy's error, and the answer
// never reaches the model (before the proxy timed calls it went through).
func TestGeminiMCPTimeoutConnectAndCall(t *testing.T) {
	// Not parallel: its outcome turns on a short wait of a host's or the
	// proxy's (see doc.go).
	for _, c := range []struct {
		name     string
		timeout  int
		flags    []string
		offered  bool // the tool was offered and called
		answered bool
	}{
		{"call-slow", 1000, []string{"-call-delay", "3s"}, true, false},
		{"call-in-time", 6000, []string{"-call-delay", "3s"}, true, true},
		{"start-slow", 1000, []string{"-init-delay", "3s"}, false, false},
		{"start-in-time", 6000, []string{"-init-delay", "3s"}, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			started, called, answered, res := mcpTimeoutRun(t, GeminiCLI, map[string]any{"timeout": c.timeout, "trust": true}, c.flags...)
			if !started || called != c.offered || answered != c.answered {
				t.Fatalf("Gemini CLI: started %v, called %v, answered %v; want true, %v, %v (found by trying Gemini CLI 0.61)\n%s", started, called, answered, c.offered, c.answered, res)
			}
		})
	}
	t.Run("exec-call-timed", func(t *testing.T) {
		a := New(t, GeminiCLI, MCPCall(GeminiCLI, "fake", "lookup", map[string]any{"query": "owl"}), Say("got it"))
		f := newExecFixture(t, a)
		writeJSONFile(t, f.src, "gemini-extension.json", map[string]any{
			"name": pluginName, "version": "1.0.0",
			"mcpServers": map[string]any{"fake": map[string]any{"command": "${extensionPath}${/}bin${/}serve", "timeout": 1000}},
		})
		writeFile(t, f.src, "bin/serve", fmt.Sprintf("#!/bin/sh\nexec \"$(dirname \"$0\")/fakemcp\" -tool lookup -answer \"%s$0\" -record %s/mcp.jsonl -call-delay 3s\n", servedBy, f.rec), 0o755)
		f.trust(t)
		allowExecTools(a)
		a.Launcher = f.launcher(t)
		res := a.Run(t, "look up owl")
		if calls := mcpCalls(t, filepath.Join(f.rec, "mcp.jsonl")); len(calls) != 1 {
			t.Fatalf("want 1 call of the MCP tool through exec, got %d\n%s", len(calls), res)
		}
		r, ok := lastAt(a, 1)
		if !ok || r.Contains(servedBy) {
			t.Fatalf("through exec the call answered after 3 s under a reviewed 1 s timeout reached the model (or the model was not asked again)\n%s\n%s", res, a.Model.Dump())
		}
		if !r.Contains("passed its reviewed timeout of 1 s") {
			t.Errorf("the model was not told the call passed its reviewed timeout\n%s\n%s", res, a.Model.Dump())
		}
	})
}
