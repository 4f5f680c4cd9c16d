package harness

import (
	"io"
	"strings"
	"testing"
	"time"
)

// TestProxyAnswersNoClientLineUnderNull: a client line the proxy refuses
// with no id it can read — not JSON, not UTF-8, no object or batch of
// objects, an empty batch, an id null or of another type, over
// MaxMCPMessage or nested past maxScanDepth with no id — gets no error,
// and stderr says why, with the help that names the proxy's rules. It
// got a JSON-RPC error under id null: no MCP client matches one to a
// request (MCP's ids are strings or numbers), Claude Code 2.1.332 and
// Gemini CLI 0.61.0 ignored the same line from the server, and Codex
// 0.171.0 did not start a server that sent it before its initialize
// answer (agenttest TestHostsMCPNullIDErrorEndsNoRequest), while the
// proxy's error reaches the client on the server's stdout, the same to
// it. A refused batch answers its requests with ids, none under null.
func TestProxyAnswersNoClientLineUnderNull(t *testing.T) {
	deep := strings.Repeat("[", maxScanDepth) + strings.Repeat("]", maxScanDepth)
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"`,                                  // cut short
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"} x`,                               // more than one value
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"` + "\xff" + `"}}`, // not UTF-8
		`42`,
		`[]`,
		`[1,{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`,
		`{"jsonrpc":"2.0","id":null,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"tools/call","params":{"name":"delete_all"}}`,
		`{"jsonrpc":"2.0","method":"tools/list","params":{"x":` + deep + `}}`,
		`{"jsonrpc":"2.0","method":"tools/list","params":{"x":"` + strings.Repeat("a", MaxMCPMessage) + `"}}`,
	}
	for _, timed := range []bool{false, true} {
		var toClient, notices lockedBuffer
		p := &proxy{filter: excludeFilter, toClient: &toClient, toServer: io.Discard, notices: &notices}
		if timed {
			p.callTimeout = time.Hour
			t.Cleanup(p.close)
		}
		in := strings.Join(lines, "\n") + "\n" +
			`[{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"delete_all"}},{"jsonrpc":"2.0","id":7,"method":"tools/list"}]` + "\n"
		if err := p.pumpClient(strings.NewReader(in)); err != nil {
			t.Fatal(err)
		}
		got := toClient.String()
		if strings.Contains(got, `"id":null`) || strings.Count(got, "\n") != 1 || !strings.HasPrefix(got, `[{"jsonrpc":"2.0","id":7,"error":{"code":-32600`) {
			t.Errorf("timed %v: the client got %.600q; want only the refused batch's error under 7, none under null", timed, got)
		}
		hint := "it gets no error, having no id an error could go under (one under id null answers no request, and stops Codex starting the server)\nbundlectl: hint: bundlectl mcp --help"
		want := len(lines)
		if !timed {
			want-- // a proxy that does not time calls forwards tools/list under any id
		}
		if n := strings.Count(notices.String(), hint); n != want {
			t.Errorf("timed %v: %d notices say the line gets no error, and the hint; want %d: %.2000q", timed, n, want, notices.String())
		}
	}
}
