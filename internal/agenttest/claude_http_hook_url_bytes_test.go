package agenttest

import (
	"net"
	"path/filepath"
	"strings"
	"sync"
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
	var all strings.Builder
	for c := rune(0); c <= 0xFF; c++ {
		if c != '#' {
			all.WriteRune(c)
		}
	}
	query := "A" + all.String() + "Z"
	path := strings.ReplaceAll(query, "?", "")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var mu sync.Mutex
	got := map[string]string{}
	go serveRequestLines(ln, func(target string) string {
		mu.Lock()
		got[target[:3]] = target
		mu.Unlock()
		return `{}`
	})
	base := "http://" + ln.Addr().String()
	urls := map[string]string{"/p/": base + "/p/" + path, "/q?": base + "/q?" + query}
	a := New(t, Claude, ShellCall(Claude, "true"), Say("done"))
	dir := filepath.Join(a.Workdir, "ub")
	writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": "ub", "version": "1.0.0"})
	writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{
		map[string]any{"type": "http", "url": urls["/p/"], "timeout": 10},
		map[string]any{"type": "http", "url": urls["/q?"], "timeout": 10},
	}}}}})
	a.Env = []string{"NO_PROXY=*", "no_proxy=*"}
	a.Args = []string{"--allowedTools", "Bash", "--plugin-dir", dir}
	res := a.Run(t, "hello")
	mu.Lock()
	defer mu.Unlock()
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
