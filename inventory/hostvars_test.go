package inventory_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/inventory"
)

// In bundlectl's own formats "${X}" in a server's argv is literal text
// (Agent Plugins §9.2): it must not make the review list X as read from
// the host, nor the runtime copy X into the child's environment. The same
// text in a Claude Code server is a host variable the host expands; in a
// remote server only Codex reads, whose url and http_headers Codex sends as
// written, it is again literal text.
func TestLiteralTextIsNoHostVariableInOwnFormats(t *testing.T) {
	write := func(dir string, files map[string]string) *bundle.Bundle {
		for rel, body := range files {
			p := filepath.Join(dir, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return bundle.Load(dir, bundle.ScopeDir, bundle.Limits{})
	}
	own := write(filepath.Join(t.TempDir(), "own"), map[string]string{
		"plugin.json": `{"$schema": "` + bundle.PluginSchemaV1 + `", "name": "own"}`,
		"mcp.json":    `{"$schema": "` + bundle.MCPSchemaV1 + `", "mcpServers": {"s": {"type": "stdio", "command": "node", "args": ["literal ${SECRET_TOKEN_X}"]}}}`,
	})
	claude := write(filepath.Join(t.TempDir(), "claude"), map[string]string{
		".claude-plugin/plugin.json": `{"name": "claude"}`,
		".mcp.json":                  `{"mcpServers": {"s": {"command": "node", "args": ["${SECRET_TOKEN_X}"]}}}`,
	})
	// Codex sends a remote server's url and http_headers as written, and
	// bundlectl exec gives them to Codex so: nothing reads the variable.
	codex := write(filepath.Join(t.TempDir(), "codex"), map[string]string{
		".codex-plugin/plugin.json": `{"name": "codex"}`,
		".mcp.json":                 `{"mcpServers": {"s": {"url": "https://a.example/mcp", "http_headers": {"X-Key": "${SECRET_TOKEN_X}"}}}}`,
	})
	claudeRemote := write(filepath.Join(t.TempDir(), "claude-remote"), map[string]string{
		".claude-plugin/plugin.json": `{"name": "claude-remote"}`,
		".codex-plugin/plugin.json":  `{"name": "claude-remote"}`,
		".mcp.json":                  `{"mcpServers": {"s": {"type": "http", "url": "https://a.example/mcp", "headers": {"X-Key": "${SECRET_TOKEN_X}"}}}}`,
	})
	for _, c := range []struct {
		b    *bundle.Bundle
		want bool
	}{{own, false}, {claude, true}, {codex, false}, {claudeRemote, true}} {
		if !c.b.Valid() {
			t.Fatalf("%s invalid: %v", c.b.Name, c.b.Report.Findings)
		}
		inv := inventory.Of(c.b)
		if len(inv.MCPServers) == 0 {
			t.Fatalf("%s: servers %+v", c.b.Name, inv.MCPServers)
		}
		got := slices.Contains(inv.MCPServers[0].HostVariables, "SECRET_TOKEN_X")
		if got != c.want || slices.Contains(c.b.HostVars, "SECRET_TOKEN_X") != c.want {
			t.Errorf("%s: reads SECRET_TOKEN_X = %v (server %v, bundle %v), want %v", c.b.Name, got, inv.MCPServers[0].HostVariables, c.b.HostVars, c.want)
		}
	}
}
