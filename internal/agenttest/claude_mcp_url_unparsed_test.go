package agenttest

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestClaudeMCPURLUnparsed: Claude Code 2.1.332 takes a plugin's remote
// MCP server whatever its url (its schema checks only the length), lists
// it, and connects only when JavaScript's URL parses the url: through a
// proxy that records each CONNECT line it asks good.example and
// ca.example ("c%41.example", decoded), and nothing for "bc3e.9" (its
// last label a number, no IPv4 address), "c%2541.example.com" (an escaped
// '%'), a zoned IPv6 literal or "foo"; each is listed as failed. Go's url
// parser takes the first three, so bundlectl's review showed them as
// servers Claude Code connects to; it now warns (mcp.url) that Claude
// Code never connects to them ("foo" it skips: no host at all), and marks
// their hosts "no endpoint reaches" among the network hosts it lists,
// where it listed them as hosts the bundle reaches.
func TestClaudeMCPURLUnparsed(t *testing.T) {
	t.Parallel()
	proxy := newConnectRecorder(t)
	unparsed := []string{"numlabel", "escaped", "zoned"}
	a := New(t, Claude, Say("done"))
	dir := filepath.Join(a.Workdir, "mu")
	writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": "mu", "version": "1.0.0"})
	writeJSONFile(t, dir, ".mcp.json", map[string]any{"mcpServers": map[string]any{
		"numlabel": map[string]any{"type": "http", "url": "https://bc3e.9/mcp"},
		"escaped":  map[string]any{"type": "http", "url": "https://c%2541.example.com/mcp"},
		"zoned":    map[string]any{"type": "sse", "url": "https://[fe80::1%25eth0]/sse"},
		"notaurl":  map[string]any{"type": "http", "url": "foo"},
		"good":     map[string]any{"type": "http", "url": "https://good.example/mcp"},
		"goodpct":  map[string]any{"type": "http", "url": "https://c%41.example/mcp"},
	}})
	a.Args = []string{"--plugin-dir", dir, "--output-format", "stream-json", "--verbose"}
	a.Env = proxy.Env
	res := a.Run(t, "hello")
	var listed []string
	for _, l := range strings.Split(res.Stdout, "\n") {
		var m struct {
			Subtype    string `json:"subtype"`
			MCPServers []struct {
				Name string `json:"name"`
			} `json:"mcp_servers"`
		}
		if json.Unmarshal([]byte(l), &m) == nil && m.Subtype == "init" {
			for _, s := range m.MCPServers {
				listed = append(listed, strings.TrimPrefix(s.Name, "plugin:mu:"))
			}
		}
	}
	got := proxy.take()
	slices.Sort(listed)
	slices.Sort(got)
	got = slices.Compact(got)
	if !slices.Equal(listed, []string{"escaped", "good", "goodpct", "notaurl", "numlabel", "zoned"}) ||
		!slices.Equal(got, []string{"CONNECT ca.example:443 HTTP/1.1", "CONNECT good.example:443 HTTP/1.1"}) {
		t.Fatalf("Claude Code listed %q and asked the proxy %q; want all six listed and only ca.example and good.example asked: this test's premise (Claude Code 2.1.332) no longer holds\n%s", listed, got, res)
	}

	out, errOut, _ := bundlectlRun(t, t.TempDir(), "review", "--json", dir)
	var rv struct {
		Warnings   []struct{ Path, Rule, Message string } `json:"warnings"`
		Components struct {
			Permissions struct {
				NetworkHosts []string `json:"network_hosts"`
			} `json:"permissions"`
		} `json:"components"`
		NetworkNeverContacted []string `json:"network_never_contacted"`
	}
	if err := json.Unmarshal([]byte(out), &rv); err != nil {
		t.Fatalf("review --json: %v\n%s%s", err, out, errOut)
	}
	var warned []string
	for _, w := range rv.Warnings {
		if w.Rule == "mcp.url" && strings.Contains(w.Message, "never connects to it") {
			name := strings.TrimSuffix(strings.TrimPrefix(w.Path, ".mcp.json: mcpServers."), ".url")
			warned = append(warned, name)
		}
	}
	slices.Sort(warned)
	warned = slices.Compact(warned) // the sse server has a view each for Claude Code and Codex
	slices.Sort(unparsed)
	if !slices.Equal(warned, unparsed) {
		t.Errorf("bundlectl review warned that Claude Code never connects to %q, want %q\n%s", warned, unparsed, out)
	}
	// Each network host the review lists is one Claude Code asked the
	// proxy for, or one it marks "no endpoint reaches", never both.
	hosts := rv.Components.Permissions.NetworkHosts
	for _, h := range hosts {
		asked := slices.Contains(got, "CONNECT "+h+":443 HTTP/1.1")
		if never := slices.Contains(rv.NetworkNeverContacted, h); asked == never {
			t.Errorf("bundlectl review lists network host %q, marked never contacted = %v, where Claude Code asked the proxy for it = %v (network hosts %q)", h, never, asked, hosts)
		}
	}
	if len(hosts) != 5 {
		t.Errorf("bundlectl review lists network hosts %q, want the five of the servers with a host", hosts)
	}
}
