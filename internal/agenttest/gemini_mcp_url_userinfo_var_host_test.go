package agenttest

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGeminiMCPURLUserinfoVarPicksHost: a variable in a remote MCP url's
// user information can pick the host it is reached at: Gemini CLI 0.61
// expands "https://${BC_U}@ub.example/mcp" with BC_U set to
// "ue.example/x?" into https://ue.example/x?@ub.example/mcp and asks for
// ue.example, not ub.example. The variable's value is the environment's,
// so the review lists ub.example, the host written, and names ${BC_U}
// as deciding the host at run time unless its value is an ordinary user
// name (bundle.MCPURLAuthorityVar; run_time_hosts' written_host), where
// it named no variable and a reader took ub.example as the only host.
func TestGeminiMCPURLUserinfoVarPicksHost(t *testing.T) {
	t.Parallel()
	proxy := newConnectRecorder(t)
	a := New(t, GeminiCLI, Say("done"))
	ext := filepath.Join(a.ConfigDir(), "extensions", "uv")
	writeJSONFile(t, ext, "gemini-extension.json", map[string]any{
		"name": "uv", "version": "1.0.0",
		// A short timeout: the recording proxy answers nothing, and
		// Gemini CLI waits 10 minutes for a server by default.
		"mcpServers": map[string]any{"user": map[string]any{"httpUrl": "https://${BC_U}@ub.example/mcp", "timeout": 5000}},
	})
	a.Env = append(slices.Clone(proxy.Env), "BC_U=ue.example/x?")
	res := a.Run(t, "hello")
	got := proxy.take()
	if !slices.Contains(got, "CONNECT ue.example:443 HTTP/1.1") {
		t.Fatalf("Gemini CLI 0.61 asked the proxy %q, want CONNECT ue.example:443: this test's premise no longer holds\n%s", got, res)
	}
	out := BundlectlRun(t, t.TempDir(), "review", "--json", ext)
	if !strings.Contains(out, `"variable": "${BC_U}"`) || !strings.Contains(out, `"written_host": "ub.example"`) {
		t.Errorf("review --json gives no run_time_hosts entry for ${BC_U} with written_host ub.example:\n%s", out)
	}
	text := BundlectlRun(t, t.TempDir(), "review", ext)
	if want := `and a host decided by "${BC_U}" at run time (mcp server "user"; "ub.example" unless its value holds`; !strings.Contains(text, want) {
		t.Errorf("the review does not say %q:\n%s", want, text)
	}
}
