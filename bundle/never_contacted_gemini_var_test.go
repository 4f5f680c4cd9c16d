package bundle

import (
	"fmt"
	"slices"
	"testing"
)

// TestNeverContactedUnparsedMCPURLGeminiVar: a Gemini CLI extension's
// remote MCP server whose url holds a bare $NAME in its authority is not
// marked never contacted, nor warned of as one no host connects to:
// Gemini CLI expands $NAME (not only ${NAME}) in every string of its
// manifest, so "https://$X.9/mcp", which the WHATWG URL parser refuses
// as written, is "https://10.0.0.9/mcp" once X is "10.0.0", and Gemini
// CLI connects to it (internal/agenttest TestGeminiMCPURLBareVar). A bare
// $NAME after the authority, or in a Claude Code plugin's url (Claude
// Code expands ${NAME} only), leaves the url as written.
func TestNeverContactedUnparsedMCPURLGeminiVar(t *testing.T) {
	for _, c := range []struct {
		manifest, url, host string
		never               bool
	}{
		{ManifestGemini, "https://$X.9/mcp", "$x.9", false},
		{ManifestGemini, "https://a.$X_1.9/mcp", "a.$x_1.9", false},
		{ManifestGemini, "https://bc3e.9/$P/mcp", "bc3e.9", true},
		{ManifestGemini, "https://bc3e.9/mcp", "bc3e.9", true},
		{ManifestClaude, "https://$X.9/mcp", "$x.9", true},
	} {
		files := map[string]string{c.manifest: fmt.Sprintf(`{"name": "p", "version": "1.0.0", "mcpServers": {"m": {"httpUrl": %q}}}`, c.url)}
		if c.manifest == ManifestClaude {
			files[c.manifest] = fmt.Sprintf(`{"name": "p", "mcpServers": {"m": {"type": "http", "url": %q}}}`, c.url)
		}
		b := writeTree(t, "p", files)
		if !slices.Contains(b.Permissions.NetworkHosts, c.host) {
			t.Errorf("%s %s: %s not among the network hosts %v:%s", c.manifest, c.url, c.host, b.Permissions.NetworkHosts, dumpFindings(b))
			continue
		}
		never := slices.Contains(b.Permissions.NetworkNeverContacted, c.host)
		warned := slices.ContainsFunc(b.Report.Findings, func(f Finding) bool { return f.Rule == "mcp.url" })
		if never != c.never || warned != c.never {
			t.Errorf("%s %s: %s never contacted = %v, mcp.url warning = %v; want both %v:%s", c.manifest, c.url, c.host, never, warned, c.never, dumpFindings(b))
		}
	}
}
