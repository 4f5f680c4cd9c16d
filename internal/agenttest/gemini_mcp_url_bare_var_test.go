package agenttest

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGeminiMCPURLBareVar: Gemini CLI 0.61 expands a bare $NAME, not only
// ${NAME}, in an extension's remote MCP url before connecting: a server
// at "https://$BC_MCP_NET.9/mcp", which the WHATWG URL parser refuses as
// written, is asked for at 10.0.0.9 when BC_MCP_NET is "10.0.0". So the
// review marks no such host "no endpoint reaches" (bundle
// TestNeverContactedUnparsedMCPURLGeminiVar), where it said Gemini CLI
// never connects to it, lists no literal "$bc_mcp_net.9" among the
// network hosts, and says the host is decided by $BC_MCP_NET at run time
// (bundle.MCPURLHostVar).
func TestGeminiMCPURLBareVar(t *testing.T) {
	t.Parallel()
	proxy := newConnectRecorder(t)
	a := New(t, GeminiCLI, Say("done"))
	ext := filepath.Join(a.ConfigDir(), "extensions", "bv")
	writeJSONFile(t, ext, "gemini-extension.json", map[string]any{
		"name": "bv", "version": "1.0.0",
		// A short timeout: the recording proxy answers nothing, and
		// Gemini CLI waits 10 minutes for a server by default.
		"mcpServers": map[string]any{"bare": map[string]any{"httpUrl": "https://$BC_MCP_NET.9/mcp", "timeout": 5000}},
	})
	a.Env = append(slices.Clone(proxy.Env), "BC_MCP_NET=10.0.0")
	res := a.Run(t, "hello")
	if got := proxy.take(); !slices.Contains(got, "CONNECT 10.0.0.9:443 HTTP/1.1") {
		t.Fatalf("Gemini CLI 0.61 asked the proxy %q, want CONNECT 10.0.0.9:443: this test's premise no longer holds\n%s", got, res)
	}
	out := BundlectlRun(t, t.TempDir(), "review", "--json", ext)
	if strings.Contains(out, `"network_never_contacted"`) || strings.Contains(out, "$bc_mcp_net.9") {
		t.Errorf("the review marks a host never contacted, or lists the literal $bc_mcp_net.9, where Gemini CLI connects to the host $BC_MCP_NET picks:\n%s", out)
	}
	text := BundlectlRun(t, t.TempDir(), "review", ext)
	if want := `host       decided by "$BC_MCP_NET" at run time: Gemini CLI expands it from its environment`; !strings.Contains(text, want) {
		t.Errorf("the review does not say %q:\n%s", want, text)
	}
}

// TestGeminiMCPURLVarOutsideHost: a variable only in a remote MCP url's
// port or user information holding an ordinary value picks no host:
// Gemini CLI 0.61 expands "https://pv.example:${BC_P}/mcp" and asks for
// pv.example:8443. So the review lists pv.example among the network
// hosts and has no "host decided by" row for it, where it listed none
// and named ${BC_P} as deciding the host (bundle
// TestMCPURLVarOutsideHost); it names the variable as one whose value
// could pick another ('/', '?', '#', '@': TestGeminiMCPURLUserinfoVarPicksHost).
// The same holds for "https://${BC_U}@ub.example/mcp", listed as
// ub.example: Gemini CLI 0.61 asks the proxy for nothing there with BC_U
// set to a user name, and connects only when it is set and empty
// (TestGeminiMCPURLUserinfo, which the review says under the server).
func TestGeminiMCPURLVarOutsideHost(t *testing.T) {
	t.Parallel()
	proxy := newConnectRecorder(t)
	a := New(t, GeminiCLI, Say("done"))
	ext := filepath.Join(a.ConfigDir(), "extensions", "vo")
	writeJSONFile(t, ext, "gemini-extension.json", map[string]any{
		"name": "vo", "version": "1.0.0",
		"mcpServers": map[string]any{
			"user": map[string]any{"httpUrl": "https://${BC_U}@ub.example/mcp", "timeout": 5000},
			"port": map[string]any{"httpUrl": "https://pv.example:${BC_P}/mcp", "timeout": 5000},
		},
	})
	a.Env = append(slices.Clone(proxy.Env), "BC_U=alice", "BC_P=8443")
	res := a.Run(t, "hello")
	got := proxy.take()
	slices.Sort(got)
	if got = slices.Compact(got); !slices.Contains(got, "CONNECT pv.example:8443 HTTP/1.1") {
		t.Fatalf("Gemini CLI 0.61 asked the proxy %q, want CONNECT pv.example:8443: this test's premise no longer holds\n%s", got, res)
	}
	out := BundlectlRun(t, t.TempDir(), "review", "--json", ext)
	if !strings.Contains(out, `"pv.example"`) || !strings.Contains(out, `"ub.example"`) {
		t.Errorf("the review does not list pv.example and ub.example, the hosts the urls write:\n%s", out)
	}
	// The host written is the host: no "host decided by" row; the
	// variables are named as ones whose value could pick another
	// (TestGeminiMCPURLUserinfoVarPicksHost).
	if text := BundlectlRun(t, t.TempDir(), "review", ext); strings.Contains(text, "host       decided by") || !strings.Contains(text, `"pv.example" unless its value holds`) {
		t.Errorf("the review says a host is decided at run time, where the url writes it, or does not name the host written:\n%s", text)
	}
}
