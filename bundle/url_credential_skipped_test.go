package bundle

import (
	"strings"
	"testing"
)

// TestSkippedHookURLCredential: an http hook skipped or refused for its
// url (user information, plain http on a non-blocking event) is still
// checked for a credential, because a skipped hook's url stays in the
// trusted bundle's files: it was trusted with the secret in it, with no
// secret.url finding.
func TestSkippedHookURLCredential(t *testing.T) {
	for _, c := range []struct{ event, url string }{
		{"Notification", "https://u:hunter2@h.example/"},
		{"Notification", "http://h.example/x?token=hunter2"},
		{"PreToolUse", "https://u:hunter2@h.example/"},
		{"PreToolUse", "http://h.example/x?api_key=hunter2"},
	} {
		b := writeTree(t, "p", map[string]string{
			ManifestClaude: `{"name": "p"}`,
			"hooks/hooks.json": `{"hooks": {"` + c.event + `": [{"hooks": [
				{"type": "http", "url": "` + c.url + `"}]}]}}`,
		})
		secret := false
		for _, f := range b.Report.Findings {
			secret = secret || f.Rule == "secret.url"
			if strings.Contains(f.Message, "hunter2") || strings.Contains(f.Path, "hunter2") {
				t.Errorf("%s %s: finding echoes the credential: %s: %s [%s]", c.event, c.url, f.Path, f.Message, f.Rule)
			}
		}
		if !secret {
			t.Errorf("%s %s: no secret.url finding:%s", c.event, c.url, dumpFindings(b))
		}
	}
}

// TestSkippedMCPURLCredential: a remote MCP server skipped for its url
// is still checked for a credential, as a skipped hook is: the server
// stays in the trusted bundle's files with the secret in it.
func TestSkippedMCPURLCredential(t *testing.T) {
	for _, u := range []string{
		"https://u:hunter2@h.example/mcp",
		"http://h.example/mcp?token=hunter2",
		"https://bc3e.9/mcp?api_key=hunter2",
	} {
		b := writeTree(t, "p", map[string]string{
			ManifestClaude: `{"name": "p"}`,
			".mcp.json":    `{"mcpServers": {"s": {"type": "http", "url": "` + u + `"}}}`,
		})
		secret := false
		for _, f := range b.Report.Findings {
			secret = secret || f.Rule == "secret.url"
			if strings.Contains(f.Message, "hunter2") || strings.Contains(f.Path, "hunter2") {
				t.Errorf("%s: finding echoes the credential: %s: %s [%s]", u, f.Path, f.Message, f.Rule)
			}
		}
		if !secret {
			t.Errorf("%s: no secret.url finding:%s", u, dumpFindings(b))
		}
	}
}
