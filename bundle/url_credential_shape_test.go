package bundle

import (
	"strings"
	"testing"
)

// TestShapeDroppedURLCredential: a hook or MCP server inside a value a
// reader drops whole for its shape — an event's hooks written as an
// object, a matcher group's hooks as an object, a group with a matcher
// that is no string, a group that is no object, mcpServers written as an
// array, an mcp.json refused whole for a stray top-level key — still has
// its url checked for a credential, once, and no finding echoes it: it
// stays in the bundle's files, and each bundle was trusted with the
// user information in its snapshot and no finding.
func TestShapeDroppedURLCredential(t *testing.T) {
	const u = `"https://hunter2tok@h.example/mcp"`
	claude := func(file, doc string) map[string]string {
		return map[string]string{ManifestClaude: `{"name": "p"}`, file: doc}
	}
	for _, c := range []struct {
		name  string
		files map[string]string
		path  string
	}{
		{"event hooks an object", claude("hooks/hooks.json", `{"hooks": {"Notification": {"hooks": [{"type": "http", "url": `+u+`}]}}}`), "hooks.Notification.hooks[0].url"},
		{"group hooks an object", claude("hooks/hooks.json", `{"hooks": {"Notification": [{"hooks": {"type": "http", "url": `+u+`}}]}}`), "hooks.Notification[0].hooks.url"},
		{"matcher a number", claude("hooks/hooks.json", `{"hooks": {"Notification": [{"matcher": 5, "hooks": [{"type": "http", "url": `+u+`}]}]}}`), "hooks.Notification[0].hooks[0].url"},
		{"group an array", claude("hooks/hooks.json", `{"hooks": {"Notification": [[{"type": "http", "url": `+u+`}]]}}`), "hooks.Notification[0][0].url"},
		{".mcp.json servers an array", claude(".mcp.json", `{"mcpServers": [{"type": "http", "url": `+u+`}]}`), "mcpServers[0].url"},
		{"gemini servers an array", map[string]string{ManifestGemini: `{"name": "p", "version": "1.0.0", "mcpServers": [{"httpUrl": ` + u + `}]}`}, "mcpServers[0].httpUrl"},
		{"mcp.json refused whole", map[string]string{
			ManifestJSON: `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "p"}`,
			ManifestMCP:  `{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "x": 1, "mcpServers": {"s": {"type": "http", "url": ` + u + `}}}`,
		}, "mcpServers.s.url"},
	} {
		b := writeTree(t, "p", c.files)
		n := 0
		for _, f := range b.Report.Findings {
			if f.Rule == "secret.url" && strings.HasSuffix(f.Path, c.path) {
				n++
			}
			if strings.Contains(f.Message, "hunter2") || strings.Contains(f.Path, "hunter2") {
				t.Errorf("%s: finding echoes the credential: %s", c.name, f)
			}
		}
		if n != 1 {
			t.Errorf("%s: %d secret.url findings at %s, want 1:%s", c.name, n, c.path, dumpFindings(b))
		}
	}
}
