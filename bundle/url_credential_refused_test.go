package bundle

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestURLCredentialRefusedURL: user information in a url JavaScript's
// URL refuses — a password holding '#', '/' or '?', a bad port, an
// empty or bracketed host, a space in the host — or in a url of another
// scheme with an authority ("sftp://tok@h/") is a secret.url credential,
// and no finding, nor redactURL, echoes it. Each got no secret.url
// finding (the mcp.url finding said "must not contain user information"
// and the bundle was trusted with it), and the hook schema finding
// quoted the url whole; redactURLText, cutting first at '#' or '?',
// kept the password's start ("https://u:hunter2 …").
func TestURLCredentialRefusedURL(t *testing.T) {
	for _, raw := range []string{
		"https://u:hunter2#tok@h.example/mcp",
		"https://u:hunter2/tok@h.example/mcp",
		"https://u:hunter2?tok@h.example/mcp",
		"https://hunter2tok@h.example:99999/mcp",
		"https://hunter2tok@h.example:x/mcp",
		"https://hunter2tok@[::1/mcp",
		"https://hunter2tok@/mcp",
		"https://hunter2tok@bad host/mcp",
		"sftp://hunter2tok@h.example/mcp",
	} {
		if !urlHasCredential(raw) {
			t.Errorf("urlHasCredential(%q) = false", raw)
		}
		if r := redactURL(raw); strings.Contains(r, "hunter2") {
			t.Errorf("redactURL(%q) = %q", raw, r)
		}
		u, _ := json.Marshal(raw)
		b := writeTree(t, "p", map[string]string{
			ManifestClaude:     `{"name": "p"}`,
			".mcp.json":        `{"mcpServers": {"s": {"type": "http", "url": ` + string(u) + `}}}`,
			"hooks/hooks.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": ` + string(u) + `}]}]}}`,
		})
		n := 0
		for _, f := range b.Report.Findings {
			if f.Rule == "secret.url" {
				n++
			}
			if strings.Contains(f.Message, "hunter2") {
				t.Errorf("%s: finding echoes the credential: %s", raw, f)
			}
		}
		if n != 2 {
			t.Errorf("%s: %d secret.url findings, want 2 (the server's and the hook's):%s", raw, n, dumpFindings(b))
		}
	}
	// A url JavaScript's URL parses keeps its reading: an '@' in its path
	// or query is no user information.
	for _, raw := range []string{
		"https://h.example/@me/mcp",
		"https://h.example/mcp?email=a@b.example",
		"sftp://h.example/a@b",
	} {
		if urlHasCredential(raw) {
			t.Errorf("urlHasCredential(%q) = true", raw)
		}
	}
}
