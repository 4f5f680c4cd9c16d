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
// Code expands ${NAME} only), leaves the url as written. The host such a
// variable picks is not listed among the network hosts, where the review
// listed "$x.9" as one: MCPURLHostVar names the variable instead.
func TestNeverContactedUnparsedMCPURLGeminiVar(t *testing.T) {
	for _, c := range []struct {
		manifest, url, host string
		never               bool
	}{
		{ManifestGemini, "https://$X.9/mcp", "", false},
		{ManifestGemini, "https://a.$X_1.9/mcp", "", false},
		{ManifestGemini, "https://bc3e.9/$P/mcp", "bc3e.9", true},
		{ManifestGemini, "https://bc3e.9/mcp", "bc3e.9", true},
		{ManifestClaude, "https://$X.9/mcp", "$x.9", true},
	} {
		files := map[string]string{c.manifest: fmt.Sprintf(`{"name": "p", "version": "1.0.0", "mcpServers": {"m": {"httpUrl": %q}}}`, c.url)}
		if c.manifest == ManifestClaude {
			files[c.manifest] = fmt.Sprintf(`{"name": "p", "mcpServers": {"m": {"type": "http", "url": %q}}}`, c.url)
		}
		b := writeTree(t, "p", files)
		if c.host == "" {
			// The variable picks the host (MCPURLHostVar): none is
			// listed, where "$x.9" was, a host no one connects to.
			if len(b.Permissions.NetworkHosts) > 0 || len(b.Permissions.NetworkNeverContacted) > 0 || len(b.Components.MCP) != 1 || mcpURLHostVarRef(c.url, b.Components.MCP[0].Hosts) == "" {
				t.Errorf("%s %s: network hosts %v, never contacted %v; want none, the host decided by the variable%s", c.manifest, c.url, b.Permissions.NetworkHosts, b.Permissions.NetworkNeverContacted, dumpFindings(b))
			}
			continue
		}
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

// TestMCPURLHostVar: the variable that picks a remote MCP server's host
// is named for the hosts that expand it: a ${NAME} in the authority for
// Claude Code and Gemini CLI (not Codex, which sends it as written), a
// bare $NAME there for Gemini CLI only; one in the path picks no host.
func TestMCPURLHostVar(t *testing.T) {
	for _, c := range []struct {
		url   string
		hosts []Host
		want  string
	}{
		{"https://$NET.9/mcp", []Host{HostGemini}, "$NET"},
		{"https://a.${N}.example/mcp", []Host{HostGemini}, "${N}"},
		{"https://${HOST:-127.0.0.1}/mcp", []Host{HostClaude, HostCodex}, "${HOST:-127.0.0.1}"},
		{"https://${HOST}/mcp", []Host{HostCodex}, ""},
		{"https://$NET.9/mcp", []Host{HostClaude}, ""},
		{"https://h.example/$P/mcp", []Host{HostGemini}, ""},
		{"https://h.example/${P}", []Host{HostClaude}, ""},
		// Only the user information or the port: the host is written.
		{"https://${U}@ub.example/mcp", []Host{HostClaude}, ""},
		{"https://${U}@ub.example/mcp", []Host{HostGemini}, ""},
		{"https://$U:${P}@ub.example/mcp", []Host{HostGemini}, ""},
		{"https://p.example:${PORT}/mcp", []Host{HostClaude, HostGemini}, ""},
		{"https://p.example:$PORT/mcp", []Host{HostGemini}, ""},
		{"https://${U}@${H}/mcp", []Host{HostClaude}, "${H}"},
		{"https://${U}@$H.example/mcp", []Host{HostGemini}, "$H"},
		{"${BASE}/mcp", []Host{HostClaude}, "${BASE}"},
		{"https://${H:-10.0.0.1:8080}/mcp", []Host{HostClaude}, "${H:-10.0.0.1:8080}"},
		{"https://${U:-a@b}.example/mcp", []Host{HostClaude}, "${U:-a@b}"},
	} {
		if got := mcpURLHostVarRef(c.url, c.hosts); got != c.want {
			t.Errorf("MCPURLHostVar(%q, %v) = %q, want %q", c.url, c.hosts, got, c.want)
		}
	}
}

func mcpURLHostVarRef(url string, hosts []Host) string {
	ref, _ := MCPURLHostVar(url, hosts)
	return ref
}

// TestMCPURLVarOutsideHost: a remote MCP server whose url holds a
// variable only in its user information or its port is reached at the
// host written, whatever the variable holds (internal/agenttest
// TestGeminiMCPURLVarOutsideHost: Gemini CLI 0.61 asks for
// "CONNECT ub.example:443" and "CONNECT pv.example:8443"): that host is
// listed among the network hosts, where the review listed none and said
// the host was decided by the variable at run time.
func TestMCPURLVarOutsideHost(t *testing.T) {
	for _, c := range []struct{ manifest, server string }{
		{ManifestClaude, `"m": {"type": "http", "url": "https://${U}@ub.example/mcp"}, "n": {"type": "http", "url": "https://pv.example:${P}/mcp"}`},
		{ManifestGemini, `"m": {"httpUrl": "https://${U}@ub.example/mcp"}, "n": {"httpUrl": "https://pv.example:${P}/mcp"}`},
	} {
		b := writeTree(t, "p", map[string]string{c.manifest: `{"name": "p", "version": "1.0.0", "mcpServers": {` + c.server + `}}`})
		if !slices.Equal(b.Permissions.NetworkHosts, []string{"pv.example", "ub.example"}) || len(b.Components.MCP) != 2 {
			t.Errorf("%s: network hosts %v, servers %d; want pv.example and ub.example, both servers kept%s", c.manifest, b.Permissions.NetworkHosts, len(b.Components.MCP), dumpFindings(b))
		}
		for _, s := range b.Components.MCP {
			if ref, _ := MCPURLHostVar(s.URL, s.Hosts); ref != "" {
				t.Errorf("%s %s: host decided by %q, want the host written", c.manifest, s.URL, ref)
			}
		}
	}
}
