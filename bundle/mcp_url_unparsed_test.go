package bundle

import (
	"slices"
	"strings"
	"testing"
)

// TestClaudeMCPURLUnparsedWarns: a remote MCP server whose url Go's url
// parser takes but JavaScript's URL refuses (a last label that is a
// number but no IPv4 address, an escaped '%', an IPv6 zone, an octet past
// 255) is one Claude Code 2.1.332 loads and never connects to
// (internal/agenttest TestClaudeMCPURLUnparsed): the review warns, in a
// Claude Code plugin and in bundlectl's own format alike, and not for a
// url JavaScript's URL parses, a url whose authority Claude Code expands
// first, or a server of another host only. A "${" after the host
// ("https://bc3e.9/${MCP_PATH}/mcp") was taken for one the host expands
// first, and not warned of, though no expansion there makes the host
// one the parser reads.
func TestClaudeMCPURLUnparsedWarns(t *testing.T) {
	b := loadFiles(t, files{
		".claude-plugin/plugin.json": `{"name": "demo", "version": "1.0.0"}`,
		".mcp.json": `{"mcpServers": {
			"numlabel": {"type": "http", "url": "https://bc3e.9/mcp"},
			"escaped": {"type": "http", "url": "https://c%2541.example.com/mcp"},
			"zoned": {"type": "sse", "url": "https://[fe80::1%25eth0]/sse"},
			"octet": {"type": "http", "url": "https://1.2.3.256/mcp"},
			"good": {"type": "http", "url": "https://good.example/mcp"},
			"goodpct": {"type": "http", "url": "https://c%41.example/mcp"},
			"numlabelvar": {"type": "http", "url": "https://bc3e.9/${MCP_PATH}/mcp"},
			"expanded": {"type": "http", "url": "https://h.example:${PORT}/mcp"},
			"expandedhost": {"type": "http", "url": "https://bc3e.9${DOMAIN}/mcp"}}}`,
	})
	var warned []string
	for _, f := range b.Report.Findings {
		if f.Rule == "mcp.url" && strings.Contains(f.Message, "never connects to it") {
			warned = append(warned, strings.TrimSuffix(strings.TrimPrefix(f.Path, ".mcp.json: mcpServers."), ".url"))
			if f.Severity != Warning {
				t.Errorf("%s: %v, want a warning: the rest of the bundle loads", f.Path, f.Severity)
			}
		}
	}
	slices.Sort(warned)
	warned = slices.Compact(warned) // the sse server has a view each for Claude Code and Codex
	if got, want := strings.Join(warned, " "), "escaped numlabel numlabelvar octet zoned"; got != want {
		t.Errorf("warned of %q, want %q; findings:%s", got, want, dumpFindings(b))
	}

	own := loadFiles(t, withPlugin(files{"mcp.json": mcpJSON(`{"numlabel": {"type": "streamable-http", "url": "https://bc3e.9/mcp"}}`)}))
	requireFinding(t, own, Warning, "mcp.url", "numlabel")
}

// TestMCPURLUnparsedNamesHosts: the mcp.url warning names the hosts that
// read the server and never connect to it: Claude Code, Codex 0.171,
// whose url crate refuses the same urls, and Gemini CLI 0.61
// (internal/agenttest TestCodexMCPURLUnparsed, TestGeminiMCPURLUnparsed).
// A Codex plugin's or Gemini extension's server was not warned of.
func TestMCPURLUnparsedNamesHosts(t *testing.T) {
	codex := loadFiles(t, files{
		".codex-plugin/plugin.json": `{"name": "demo", "version": "1.0.0"}`,
		".mcp.json":                 `{"mcpServers": {"numlabel": {"url": "https://bc3e.9/mcp"}}}`,
	})
	f := requireFinding(t, codex, Warning, "mcp.url", "numlabel")
	if !strings.Contains(f.Message, "which Codex (Rust's url crate) connects with: it loads this server but never connects to it") || strings.Contains(f.Message, "Claude Code") {
		t.Errorf("the warning names other hosts than Codex: %s", f.Message)
	}
	claude := loadFiles(t, files{
		".claude-plugin/plugin.json": `{"name": "demo", "version": "1.0.0"}`,
		".mcp.json":                  `{"mcpServers": {"numlabel": {"type": "http", "url": "https://bc3e.9/mcp"}}}`,
	})
	f = requireFinding(t, claude, Warning, "mcp.url", "numlabel")
	if !strings.Contains(f.Message, "which Claude Code (JavaScript's URL) and Codex (Rust's url crate) connect with: each loads") {
		t.Errorf("the warning does not name Claude Code and Codex, which both read a Claude Code plugin: %s", f.Message)
	}
	gemini := loadFiles(t, files{
		"gemini-extension.json": `{"name": "demo", "version": "1.0.0", "mcpServers": {"numlabel": {"httpUrl": "https://bc3e.9/mcp"}}}`,
	})
	f = requireFinding(t, gemini, Warning, "mcp.url", "numlabel")
	if !strings.Contains(f.Message, "which Gemini CLI (JavaScript's URL) connects with: it loads this server but never connects to it") {
		t.Errorf("the warning does not name Gemini CLI alone: %s", f.Message)
	}
}
