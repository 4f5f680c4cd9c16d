package agenttest

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// TestCodexMCPDefaultTimeouts: Codex 0.171's own MCP timeouts, which
// apply when a plugin's server gives none (and so under bundlectl exec
// and setup, which then write none), are 30 s to start a server and
// longer than 60 s for a tool call — codex-rs rmcp_client.rs has
// DEFAULT_STARTUP_TIMEOUT 30 s and DEFAULT_TOOL_TIMEOUT 300 s. docs/codex.md
// said 10 s and 60 s. A required server that never answers its start
// fails the session, Codex naming the wait it gave up after; a call the
// server answers after 70 s reaches the model. Neither outcome depends on
// the machine's speed (the waits are Codex's and the server's).
func TestCodexMCPDefaultTimeouts(t *testing.T) {
	t.Parallel()
	t.Run("startup", func(t *testing.T) {
		t.Parallel()
		a := New(t, Codex, Say("done"))
		args, _ := json.Marshal([]string{"-init-delay", "1h", "-record", filepath.Join(t.TempDir(), "mcp.jsonl")})
		a.CodexConfig = fmt.Sprintf("[mcp_servers.stuck]\ncommand = %q\nargs = %s\nrequired = true\n", FakeMCPServer(t), args)
		res := a.Run(t, "hello")
		m := regexp.MustCompile(`timed out handshaking with MCP server after ([0-9.]+)s`).FindStringSubmatch(res.Stderr)
		if res.Exit == 0 || m == nil {
			t.Fatalf("Codex exited %d without naming its start timeout, want a failed session naming it\n%s", res.Exit, res)
		}
		if sec, _ := strconv.ParseFloat(m[1], 64); sec < 29 || sec > 30 {
			t.Errorf("Codex gave up on the server's start after %s s, want its default of 30 s (found by trying Codex 0.171)\n%s", m[1], res)
		}
	})
	t.Run("tool", func(t *testing.T) {
		t.Parallel()
		const answer = "fakemcp-codex-default-wait-answer"
		rec := filepath.Join(t.TempDir(), "mcp.jsonl")
		a := New(t, Codex, MCPCall(Codex, "slow", "lookup", map[string]any{"query": "owl"}), Say("done"))
		args, _ := json.Marshal([]string{"-call-delay", "70s", "-answer", answer, "-record", rec})
		a.CodexConfig = fmt.Sprintf("[mcp_servers.slow]\ncommand = %q\nargs = %s\ndefault_tools_approval_mode = \"approve\"\n", FakeMCPServer(t), args)
		res := a.Run(t, "look up owl")
		next := a.Model.CallsAt(1)
		if len(mcpCalls(t, rec)) != 1 || len(next) == 0 || !next[len(next)-1].Contains(answer) {
			t.Errorf("a call answered after 70 s did not reach the model: Codex's default tool timeout is more than 60 s (found by trying Codex 0.171)\n%s", res)
		}
	})
}
