package agenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestClaudeMCPTimeoutPerCall: Claude Code 2.1.332 reads an MCP server's
// "timeout" (milliseconds) as its wait for each tool call, not for the
// server's start. A server that answers a call after 3 s, declared with
// a timeout of 1000 ms, is called and its answer never reaches the model;
// without a timeout (Claude Code's default) it does; a server that takes
// 3 s to start, with a timeout of 1000 ms, is called and answers. setup's
// entries carried no timeout (and exec's view none for a stdio server),
// so Claude Code waited for a call as long as its default, not as the
// review shows: both now give the reviewed timeout as is
// (hosts.ClaudeMCPTimeoutMs, cmd/bundlectl setup_mcp_timeout.txtar).
func TestClaudeMCPTimeoutPerCall(t *testing.T) {
	// Not parallel: its outcome turns on a short wait of a host's or the
	// proxy's (see doc.go).
	callLate := []string{"-c", `exec "$0" -call-delay 3s "$@"`}
	startLate := []string{"-c", `sleep 3; exec "$0" "$@"`}
	for _, c := range []struct {
		name     string
		timeout  any
		wrap     []string
		answered bool
	}{
		// The waits are in the server: a slow machine only makes the
		// 1000 ms call surer to be cut.
		{"call-3s-timeout-1000", json.Number("1000"), callLate, false},
		{"call-3s-no-timeout", nil, callLate, true},
		{"start-3s-timeout-1000", json.Number("1000"), startLate, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := filepath.Join(t.TempDir(), "mcp.jsonl")
			answer := "fakemcp-per-call-answer-42"
			a := New(t, Claude, MCPCall(Claude, "slow", "lookup", map[string]any{"query": "owl"}), Say("got it"))
			args := append(append([]string(nil), c.wrap...), FakeMCPServer(t), "-tool", "lookup", "-answer", answer, "-record", rec)
			srv := map[string]any{"type": "stdio", "command": "sh", "args": args}
			if c.timeout != nil {
				srv["timeout"] = c.timeout
			}
			p := filepath.Join(t.TempDir(), "mcp.json")
			j, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"slow": srv}})
			if err := os.WriteFile(p, j, 0o644); err != nil {
				t.Fatal(err)
			}
			a.Args = append(a.Args, "--mcp-config", p, "--strict-mcp-config", "--allowedTools", "Bash,mcp__slow__lookup")
			res := a.Run(t, "look up owl")
			called := len(mcpCalls(t, rec)) > 0
			next := a.Model.CallsAt(1)
			answered := len(next) > 0 && next[len(next)-1].Contains(answer)
			if !called || answered != c.answered {
				t.Fatalf("timeout %v: tool called %v (want true), answer reached the model %v (want %v), as Claude Code did when tried\n%s", c.timeout, called, answered, c.answered, res)
			}
		})
	}
}
