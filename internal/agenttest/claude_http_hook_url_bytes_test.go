package agenttest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
)

// TestClaudeHTTPHookURLBytes: real Claude Code 2.1.332 posts two http
// hooks whose urls hold every code point from U+0000 to U+00FF, one in a
// path ("/p/A…Z", but '#' and '?') and one in a query ("/q?A…Z", but
// '#'), with the request targets bundle.JSURLRequestTarget gives them,
// which hooks run sends (harness TestHookRequestSendsNodesBytes), read
// off the request line by a server that is no net/http.
func TestClaudeHTTPHookURLBytes(t *testing.T) {
	t.Parallel()
	var all strings.Builder
	for c := rune(0); c <= 0xFF; c++ {
		if c != '#' {
			all.WriteRune(c)
		}
	}
	query := "A" + all.String() + "Z"
	path := strings.ReplaceAll(query, "?", "")
	srv := newHookServer(t, nil)
	base := "http://" + srv.Addr()
	urls := map[string]string{"/p/": base + "/p/" + path, "/q?": base + "/q?" + query}
	a := New(t, Claude, ShellCall(Claude, "true"), Say("done"))
	dir := filepath.Join(a.Workdir, "ub")
	writeHTTPHookPlugin(t, dir, "ub", "PreToolUse", urls["/p/"], urls["/q?"])
	a.Env = []string{"NO_PROXY=*", "no_proxy=*"}
	a.Args = []string{"--allowedTools", "Bash", "--plugin-dir", dir}
	res := a.Run(t, "hello")
	got := map[string]string{}
	for _, r := range srv.take() {
		got[r.Target[:3]] = r.Target
	}
	for k, u := range urls {
		_, p, q, ok := bundle.JSURLRequestTarget(u)
		if !ok {
			t.Fatalf("JSURLRequestTarget(%q) reads no url", u)
		}
		if got[k] != p+q {
			t.Errorf("Claude Code 2.1.332 asked at\n%q\nhooks run asks at\n%q\n%s", got[k], p+q, res)
		}
	}
}
