package bundle

import (
	"strings"
	"testing"
)

// TestURLCredentialForms: a credential in a url is seen wherever
// JavaScript's URL, with which Claude Code posts, reads one, and never
// echoed where it is. Go's query parser dropped a pair with a bad escape
// or a ';' ("?token=hunter2%zz", "?a=1;token=hunter2"), so the url was
// not flagged (secret.url) and the bundle could be trusted with it;
// "https:\\u:hunter2@host" has user information the "://" pattern missed;
// and redactURL returned a url Go's parser refuses as it was, password
// and all ("https://u:hunter2@c%7b.example/"). A url Claude Code posts
// once trimmed ("\u00a0https:\\u:hunter2@host") was read untrimmed: not
// flagged, and echoed whole.
func TestURLCredentialForms(t *testing.T) {
	for _, raw := range []string{
		"https://example.com/g?token=hunter2%zz",
		"https://example.com/g?a=1;token=hunter2",
		"https://example.com/g?api%5Fkey=hunter2",
		"https://example.com/g?to+ken=x&key=hunter2",
		`https:\\u:hunter2@example.com/g`,
		"https://u:hunter2@c%7b.example/g",
		"https://c%7b.example/g?token=hunter2",
		"https://u:hunter2@bc3e.9/g",
		"https://c%/g?secret=hunter2",
		// Read trimmed as Claude Code trims a hook's url before it posts
		// (ClaudeURLTrim): JavaScript's URL alone keeps U+00A0.
		"\u00a0https:\\\\u:hunter2@example.com/g",
		"\u00a0https://u:hunter2@c%7b.example/g",
		"\u3000ftp://example.com/g?api_key=hunter2",
		" https://example.com/g?token=hunter2\u00a0",
		// Any literal user information: a user name alone may be a
		// token, and an escaped colon hides a password in one.
		"https://u%3Ahunter2@example.com/g",
		"https://hunter2@example.com/g",
		"https://hunter2:${PW}@example.com/g",
		"https://${U:-hunter2}@example.com/g",
		`https:\\hunter2@example.com/g`,
	} {
		if !urlHasCredential(raw) {
			t.Errorf("urlHasCredential(%q) = false", raw)
		}
		if r := redactURL(raw); strings.Contains(r, "hunter2") || !strings.Contains(r, "[credentials redacted]") {
			t.Errorf("redactURL(%q) = %q", raw, r)
		}
	}
	// Not a url: an argument's credential is redacted by its flag's rule,
	// not cut as a url's.
	for _, arg := range []string{"--key=ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "key:ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"} {
		if r := redactURL(arg); r != arg {
			t.Errorf("redactURL(%q) = %q, want it as it is", arg, r)
		}
	}
	for _, raw := range []string{
		"https://example.com/g?token=${TOKEN}",
		"https://example.com/g#token=x",
		"https://${U}@example.com/g",
		"https://${U}:${PW}@example.com/g",
		"https://$U@example.com/g",
		"https://example.com/g?tokens=1",
	} {
		if urlHasCredential(raw) {
			t.Errorf("urlHasCredential(%q) = true", raw)
		}
	}
}

// TestURLFindingsDoNotEcho: a finding that names an http hook's or an
// MCP server's url (hook.url: one Claude Code cannot post to, or refuses
// the address of, or whose hooks schema drops it; mcp.url: one
// JavaScript's URL refuses) names it without the credential secret.url
// refuses the bundle for: the review printed the token in the warning
// beside the error that said the url carries one. The codex.ignored
// warning on a url with a variable Codex does not expand quoted it whole
// ("https://hunter2@${H}/mcp": a user name alone, which the password
// redaction every finding gets does not take out).
func TestURLFindingsDoNotEcho(t *testing.T) {
	b := writeTree(t, "p", map[string]string{
		ManifestClaude: `{"name": "p"}`,
		".mcp.json": `{"mcpServers": {
			"numlabel": {"type": "http", "url": "https://bc3e.9/mcp?token=hunter2"},
			"varhost": {"type": "http", "url": "https://hunter2@${H}/mcp"}}}`,
		"hooks/hooks.json": `{"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [
			{"type": "http", "url": "https://169%2e254.169.254/x?token=hunter2"},
			{"type": "http", "url": "ftp://x.example/x?api_key=hunter2"},
			{"type": "http", "url": "https://c%/x?api_key=hunter2"},
			{"type": "http", "url": "\u00a0ftp://y.example/x?api_key=hunter2"}]}]}}`,
	})
	rules := map[string]bool{}
	for _, f := range b.Report.Findings {
		rules[f.Rule] = true
		if strings.Contains(f.Message, "hunter2") || strings.Contains(f.Path, "hunter2") {
			t.Errorf("finding echoes the credential: %s: %s [%s]", f.Path, f.Message, f.Rule)
		}
	}
	for _, r := range []string{"mcp.url", "hook.url", "secret.url"} {
		if !rules[r] {
			t.Errorf("no %s finding:%s", r, dumpFindings(b))
		}
	}
}
