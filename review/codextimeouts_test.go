package review

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
)

// A Codex MCP server's timeouts are shown as one timeout row, as other
// hosts' servers' are — how long Codex waits for the server to start and
// for each tool call, as written or Codex 0.171's default (30 s and
// 300 s, internal/agenttest TestCodexMCPDefaultTimeouts) — not as raw
// fields (before: "tool_timeout_sec 120", and nothing for a server that
// gives none). A startup_timeout_ms Codex does not use, beside a
// startup_timeout_sec, stays shown as written.
func TestRenderCodexMCPTimeouts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cx")
	writeTree(t, dir, map[string]string{
		".codex-plugin/plugin.json": `{"name": "cx", "version": "1.0.0"}`,
		"bin/s":                     "#!/bin/sh\n",
		".mcp.json": `{"mcpServers": {
			"a_plain": {"command": "./bin/s"},
			"b_tool": {"command": "./bin/s", "tool_timeout_sec": 120},
			"c_both": {"command": "./bin/s", "startup_timeout_sec": 20.5, "tool_timeout_sec": 0.5},
			"d_ms": {"command": "./bin/s", "startup_timeout_ms": 20000},
			"e_ms_unused": {"command": "./bin/s", "startup_timeout_ms": 5000, "startup_timeout_sec": 20},
			"f_never": {"command": "./bin/s", "tool_timeout_sec": 1e18}
		}}`,
	})
	b := bundle.Load(dir, bundle.ScopeDir, bundle.Limits{})
	if b.Rejected() {
		t.Fatalf("rejected: %+v", b.Report.Findings)
	}
	human, _ := renderBoth(t, b, false)
	out := string(human)
	for _, want := range []string{
		"timeout    start 30 s (Codex's default), each tool call 300 s (Codex's default)\n",
		"timeout    start 30 s (Codex's default), each tool call 120 s\n",
		"timeout    start 20.5 s, each tool call 0.5 s\n",
		"timeout    start 20000 ms, each tool call 300 s (Codex's default)\n",
		"timeout    start 20 s, each tool call 300 s (Codex's default)\n    startup_timeout_ms 5000\n",
		"timeout    start 30 s (Codex's default), each tool call 1e18 s (about 3.2e+10 years)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the review does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\n    tool_timeout_sec ") || strings.Contains(out, "\n    startup_timeout_sec ") {
		t.Errorf("the review still shows a Codex timeout as a raw field:\n%s", out)
	}
}
