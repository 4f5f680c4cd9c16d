package bundle

import (
	"strings"
	"testing"
)

// TestDroppedComponentURLCredential: a hook or MCP server a reader
// drops before the rules see it — a plugin.toml server with no type, a
// bad one, a field of the other transport or a bad timeout; an mcp.json
// or .mcp.json server with no type or an unknown one; a stdio server with
// a stray url; a hook of a type bundlectl does not know — still has its
// url checked for a credential: it stays in the trusted bundle's files.
// Each was trusted, or skipped, with the password in it and no
// secret.url finding. The finding is made once, and no finding echoes
// the secret.
func TestDroppedComponentURLCredential(t *testing.T) {
	const head = "schema_version = 1\n[plugin]\nname = \"p\"\n"
	const pw = "https://u:hunter2@h.example/mcp"
	const q = "https://h.example/mcp?token=hunter2"
	claude := func(file, doc string) map[string]string {
		return map[string]string{ManifestClaude: `{"name": "p"}`, file: doc}
	}
	agent := func(servers string) map[string]string {
		return map[string]string{
			ManifestJSON: `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "p"}`,
			ManifestMCP:  `{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": {"s": ` + servers + `}}`,
		}
	}
	for _, c := range []struct {
		name  string
		files map[string]string
		path  string
	}{
		{"toml no type", map[string]string{ManifestTOML: head + "[mcp_servers.x]\nurl = \"" + pw + "\"\n"}, "mcp_servers.x.url"},
		{"toml bad type", map[string]string{ManifestTOML: head + "[mcp_servers.x]\ntype = \"ws\"\nurl = \"" + pw + "\"\n"}, "mcp_servers.x.url"},
		{"toml stdio with url", map[string]string{ManifestTOML: head + "[mcp_servers.x]\ntype = \"stdio\"\ncommand = \"a\"\nurl = \"" + pw + "\"\n"}, "mcp_servers.x.url"},
		{"toml remote with command", map[string]string{ManifestTOML: head + "[mcp_servers.x]\ntype = \"sse\"\ncommand = \"a\"\nurl = \"" + q + "\"\n"}, "mcp_servers.x.url"},
		{"toml bad timeout", map[string]string{ManifestTOML: head + "[mcp_servers.x]\ntype = \"sse\"\ntimeout_sec = -5\nurl = \"" + q + "\"\n"}, "mcp_servers.x.url"},
		{"mcp.json no type", agent(`{"url": "` + pw + `"}`), "mcpServers.s.url"},
		{"mcp.json bad type", agent(`{"type": "ws", "url": "` + pw + `"}`), "mcpServers.s.url"},
		{"mcp.json stdio with url", agent(`{"type": "stdio", "command": "a", "url": "` + pw + `"}`), "mcpServers.s.url"},
		{".mcp.json bad type", claude(".mcp.json", `{"mcpServers": {"s": {"type": "bogus", "url": "`+pw+`"}}}`), "mcpServers.s.url"},
		{".mcp.json stdio with url", claude(".mcp.json", `{"mcpServers": {"s": {"type": "stdio", "command": "a", "url": "`+pw+`"}}}`), "mcpServers.s.url"},
		{".mcp.json bad timeout", claude(".mcp.json", `{"mcpServers": {"s": {"type": "http", "url": "`+pw+`", "timeout": "x"}}}`), "mcpServers.s.url"},
		{"hook unknown type", claude("hooks/hooks.json", `{"hooks": {"Notification": [{"hooks": [{"type": "htp", "url": "`+pw+`"}]}]}}`), "hooks.Notification[0].hooks[0].url"},
		{"command hook with url", claude("hooks/hooks.json", `{"hooks": {"Notification": [{"hooks": [{"type": "command", "command": "true", "url": "`+q+`"}]}]}}`), "hooks.Notification[0].hooks[0].url"},
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

// TestHookURLUserinfoReason: an http hook's url whose user information
// JavaScript's URL reads only once it is trimmed or its backslashes read
// as slashes ("\u00a0https:\\u:pw@h/") is skipped, or refused on a
// guard's event, for its user information, as "https://u:pw@h/" is; it
// was refused as "must be an absolute URL with a host", which it is, as
// Claude Code reads it.
func TestHookURLUserinfoReason(t *testing.T) {
	for _, c := range []struct{ event, url string }{
		{"Notification", `\u00a0https:\\\\u:hunter2@h.example/`},
		{"PreToolUse", `\u00a0https:\\\\u:hunter2@h.example/`},
		{"PreToolUse", `https:\\\\hunter2@h.example/`},
		{"PreToolUse", `https:hunter2@h.example/`},
	} {
		b := writeTree(t, "p", map[string]string{
			ManifestClaude: `{"name": "p"}`,
			"hooks/hooks.json": `{"hooks": {"` + c.event + `": [{"hooks": [
				{"type": "http", "url": "` + c.url + `"}]}]}}`,
		})
		found := false
		for _, f := range b.Report.Findings {
			if f.Rule != "hook.url" {
				continue
			}
			if !strings.Contains(f.Message, "must not contain user information") {
				t.Errorf("%s %s: %s", c.event, c.url, f)
			}
			found = true
		}
		if !found {
			t.Errorf("%s %s: no hook.url finding:%s", c.event, c.url, dumpFindings(b))
		}
	}
}
