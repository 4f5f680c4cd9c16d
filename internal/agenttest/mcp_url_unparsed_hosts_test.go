package agenttest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// unparsedMCPURLs are remote MCP server urls Go's url parser takes and
// the WHATWG URL parser refuses (a last label that is a number but no
// IPv4 address, an escaped '%', an IPv6 zone, and the first with a
// variable in its path), with two that both take.
var unparsedMCPURLs = map[string]string{
	"numlabel": "https://bc3e.9/mcp",
	// A variable after the host leaves it as written, expanded or not.
	"numlabelvar": "https://bc3e.9/${MCP_PATH}/mcp",
	"escaped":     "https://c%2541.example.com/mcp",
	"zoned":       "https://[fe80::1%25eth0]/mcp",
	"good":        "https://good.example/mcp",
	"goodpct":     "https://c%41.example/mcp",
}

// unparsedWantAsked is what a recording proxy is asked when a host
// connects to the servers whose urls parse and to no other.
var unparsedWantAsked = []string{"CONNECT ca.example:443 HTTP/1.1", "CONNECT good.example:443 HTTP/1.1"}

// TestCodexMCPURLUnparsed: Codex 0.171 (Rust's url crate) connects to no
// remote MCP server whose url the WHATWG URL parser refuses: it logs
// "invalid IPv4 address", "invalid international domain name" or
// "invalid IPv6 address" for each, asks a recording proxy only for the
// two that parse, and goes on (exit 0). The mcp.url warning names Codex
// (bundle TestMCPURLUnparsedNamesHosts).
func TestCodexMCPURLUnparsed(t *testing.T) {
	t.Parallel()
	proxy := newConnectRecorder(t)
	a := New(t, Codex, Say("done"))
	var cfg strings.Builder
	for _, name := range sortedNames(unparsedMCPURLs) {
		fmt.Fprintf(&cfg, "[mcp_servers.%s]\nurl = %q\n", name, unparsedMCPURLs[name])
	}
	a.CodexConfig = cfg.String()
	a.Env = proxy.Env
	res := a.Run(t, "hello")
	checkUnparsedAsked(t, "Codex 0.171", proxy, res, "invalid IPv4 address", "invalid international domain name", "invalid IPv6 address")
}

// TestGeminiMCPURLUnparsed: so does Gemini CLI 0.61 (JavaScript's URL),
// which says "MCP issues detected" and goes on (exit 0).
func TestGeminiMCPURLUnparsed(t *testing.T) {
	t.Parallel()
	proxy := newConnectRecorder(t)
	a := New(t, GeminiCLI, Say("done"))
	servers := map[string]any{}
	for name, u := range unparsedMCPURLs {
		// A short timeout: the recording proxy answers nothing, and
		// Gemini CLI waits 10 minutes for a server by default.
		servers[name] = map[string]any{"httpUrl": u, "timeout": 5000}
	}
	a.Settings = map[string]any{"mcpServers": servers}
	a.Env = proxy.Env
	res := a.Run(t, "hello")
	checkUnparsedAsked(t, "Gemini CLI 0.61", proxy, res, "MCP issues detected")
}

func checkUnparsedAsked(t *testing.T, who string, proxy *connectRecorder, res *Result, said ...string) {
	t.Helper()
	got := proxy.take()
	slices.Sort(got)
	got = slices.Compact(got)
	if res.Exit != 0 || !slices.Equal(got, unparsedWantAsked) {
		t.Fatalf("%s exited %d and asked the proxy %q; want exit 0 and only %q: this test's premise no longer holds\n%s", who, res.Exit, got, unparsedWantAsked, res)
	}
	for _, s := range said {
		if !strings.Contains(res.Stderr, s) {
			t.Errorf("%s did not say %q\n%s", who, s, res)
		}
	}
}

func sortedNames(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
