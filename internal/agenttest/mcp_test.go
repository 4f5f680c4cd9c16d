package agenttest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// mcpRecord reads the JSON lines fakemcp appended to rec.
func mcpRecord(t *testing.T, rec string) []map[string]any {
	t.Helper()
	f, err := os.Open(rec)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var v map[string]any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("fakemcp record: %v", err)
		}
		out = append(out, v)
	}
	return out
}

func mcpCalls(t *testing.T, rec string) []map[string]any {
	var calls []map[string]any
	for _, r := range mcpRecord(t, rec) {
		if r["kind"] == "call" {
			calls = append(calls, r)
		}
	}
	return calls
}

// configureMCP declares one stdio MCP server named server, the host's way,
// and lets the agent call its tool lookup without asking. extra adds
// fields to Claude Code's or Gemini CLI's declaration (a timeout).
func configureMCP(t *testing.T, a *Agent, server, command string, args []string, extra map[string]any) {
	t.Helper()
	srv := map[string]any{"command": command, "args": args}
	for k, v := range extra {
		srv[k] = v
	}
	switch a.Host {
	case Claude:
		srv["type"] = "stdio"
		p := filepath.Join(t.TempDir(), "mcp.json")
		j, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{server: srv}})
		if err := os.WriteFile(p, j, 0o644); err != nil {
			t.Fatal(err)
		}
		a.Args = append(a.Args, "--mcp-config", p, "--strict-mcp-config", "--allowedTools", "Bash,mcp__"+server+"__lookup")
	case Codex:
		q, _ := json.Marshal(args) // a JSON array of strings is a TOML array
		a.CodexConfig += fmt.Sprintf("[mcp_servers.%s]\ncommand = %q\nargs = %s\ndefault_tools_approval_mode = \"approve\"\n", server, command, q)
		if len(extra) > 0 {
			t.Fatalf("configureMCP writes no extra fields into Codex's config.toml (%v)", extra)
		}
	case GeminiCLI:
		a.Settings = merge(a.Settings, map[string]any{"mcpServers": map[string]any{server: srv}})
	}
}

// configureNodeMCP writes js, a stdio MCP server in Node.js whose
// arguments are its answer and a file to record in, and declares it with
// configureMCP. It returns the record file.
func configureNodeMCP(t *testing.T, a *Agent, server, js, answer string, extra map[string]any) (rec string) {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, "server.js")
	if err := os.WriteFile(script, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	rec = filepath.Join(dir, "rec")
	configureMCP(t, a, server, "node", []string{script, answer, rec}, extra)
	return rec
}

// TestMCPToolAnswers: the agent starts a stdio MCP server, calls its tool on
// the stand-in's order, and the tool's answer reaches the next model request.
func TestMCPToolAnswers(t *testing.T) {
	t.Parallel()
	for _, h := range hosts {
		t.Run(string(h), func(t *testing.T) {
			t.Parallel()
			rec := filepath.Join(t.TempDir(), "mcp.jsonl")
			answer := "fakemcp-answer-" + string(h) + "-42"
			a := New(t, h, MCPCall(h, "fake", "lookup", map[string]any{"query": "owl"}), Say("got it"))
			configureMCP(t, a, "fake", FakeMCPServer(t), []string{"-tool", "lookup", "-answer", answer, "-record", rec}, nil)
			res := a.Run(t, "look up owl")
			calls := mcpCalls(t, rec)
			if len(calls) != 1 {
				t.Fatalf("want 1 tools/call, got %d\n%s\n%s", len(calls), res, a.Model.Dump())
			}
			if q, _ := calls[0]["arguments"].(map[string]any)["query"].(string); q != "owl" {
				t.Errorf("tool got arguments %v", calls[0]["arguments"])
			}
			next := a.Model.CallsAt(1)
			if len(next) == 0 || !next[len(next)-1].Contains(answer) {
				t.Fatalf("the tool's answer did not reach the model\n%s\n%s", res, a.Model.Dump())
			}
			for _, r := range mcpRecord(t, rec) {
				if r["kind"] == "start" {
					t.Logf("server start: argv=%v cwd=%v\nenv=%v", r["argv"], r["cwd"], r["env"])
				}
			}
		})
	}
}
