package agenttest

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGeminiMCPURLUserinfo: Gemini CLI 0.61 connects to
// "https://${BC_U}@ub.example/mcp" only when BC_U is set and empty; set
// to a value ("alice", "alice:pw"), or unset (left as written), it is
// user information, and Gemini CLI asks the proxy for nothing. The
// review lists ub.example (the empty case reaches it) and says under the
// server when Gemini CLI connects, where it listed the host with no word
// that it is reached only then (bundle.MCPURLUserinfoVar).
func TestGeminiMCPURLUserinfo(t *testing.T) {
	t.Parallel()
	proxy := newConnectRecorder(t)
	var ext string
	for _, c := range []struct {
		env     []string
		reaches bool
	}{{nil, false}, {[]string{"BC_U="}, true}, {[]string{"BC_U=alice"}, false}, {[]string{"BC_U=alice:pw"}, false}} {
		a := New(t, GeminiCLI, Say("done"))
		ext = filepath.Join(a.ConfigDir(), "extensions", "uo")
		writeJSONFile(t, ext, "gemini-extension.json", map[string]any{
			"name": "uo", "version": "1.0.0",
			"mcpServers": map[string]any{"user": map[string]any{"httpUrl": "https://${BC_U}@ub.example/mcp", "timeout": 5000}},
		})
		a.Env = append(slices.Clone(proxy.Env), c.env...)
		res := a.Run(t, "hello")
		if got := proxy.take(); slices.Contains(got, "CONNECT ub.example:443 HTTP/1.1") != c.reaches || !c.reaches && len(got) > 0 {
			t.Errorf("env %q: Gemini CLI 0.61 asked the proxy %d times (%.80q); want CONNECT ub.example:443 %v\n%s", c.env, len(got), got, c.reaches, res)
		}
	}
	text := BundlectlRun(t, t.TempDir(), "review", ext)
	if want := `connects   Gemini CLI: only when "${BC_U}" is set and empty`; !strings.Contains(text, want) || !strings.Contains(text, `"ub.example"`) {
		t.Errorf("the review does not list ub.example and say %q:\n%s", want, text)
	}
}
