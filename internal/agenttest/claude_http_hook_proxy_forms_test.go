package agenttest

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestClaudeHTTPHookProxyOtherForms: what real Claude Code 2.1.332 does
// with a proxy url with no port ("http://127.77.0.1": the recorder
// listens on port 80), one with a leading space (" http://127.0.0.1:P")
// and a scheme-less host:port with a path ("localhost:P/"), which
// docs/hooks.md's proxy table had as "any other form": it posts through
// each (CONNECT tls.example:443 at 127.77.0.1:80, and at 127.0.0.1:P for
// the other two). hooks run asks port 80 too (harness
// TestHTTPHookProxyDefaultPort) and refuses the other two with a hint
// exporting the proxy Claude Code used (harness TestHTTPHookProxyFixRuns).
func TestClaudeHTTPHookProxyOtherForms(t *testing.T) {
	t.Parallel()
	rec := newConnectRecorder(t)
	port80 := newConnectRecorderAt(t, "127.77.0.1:80")
	port := strings.TrimPrefix(strings.TrimPrefix(rec.Env[0], "HTTPS_PROXY="), "http://127.0.0.1:")
	for _, c := range []struct {
		value string
		at    *connectRecorder
	}{
		{"http://127.77.0.1", port80},
		{" http://127.0.0.1:" + port, rec},
		{"localhost:" + port + "/", rec},
	} {
		a := New(t, Claude, ShellCall(Claude, "true"), Say("done"))
		dir := filepath.Join(a.Workdir, "pf")
		writeHTTPHookPlugin(t, dir, "pf", "PostToolUse", "https://tls.example/b")
		a.Env = []string{"https_proxy=" + c.value, "HTTPS_PROXY=", "http_proxy=", "HTTP_PROXY=", "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost"}
		a.Args = []string{"--allowedTools", "Bash", "--plugin-dir", dir}
		res := a.Run(t, "hello")
		got, other := c.at.take(), append(rec.take(), port80.take()...)
		if want := []string{"CONNECT tls.example:443 HTTP/1.1"}; !slices.Equal(got, want) || len(other) != 0 {
			t.Errorf("https_proxy=%q: the proxy saw %q, the other %q; want %q\n%s", c.value, got, other, want, res)
		}
	}
}
