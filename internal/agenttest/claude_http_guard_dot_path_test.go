package agenttest

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// TestClaudeHTTPGuardDotSegmentPath: real Claude Code 2.1.332 posts an
// http guard whose url is "http://127.0.0.1:PORT/allow/../deny" to /deny,
// the path JavaScript's URL resolves, and the deny there blocks the tool;
// so does bundlectl exec -- claude, whose hooks run sent the path as
// written (/allow/../deny) and let the call through (harness
// TestHTTPHookDotSegmentPath).
func TestClaudeHTTPGuardDotSegmentPath(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.RequestURI)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path != "/deny" {
			w.Write([]byte(`{}`))
			return
		}
		w.Write([]byte(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"denied at /deny"}}`))
	}))
	defer srv.Close()
	rec := t.TempDir()
	a := New(t, Claude, ShellCall(Claude, "touch "+filepath.Join(rec, "tool-ran")), Say("done"))
	dir := filepath.Join(a.Workdir, ".bundlectl", "bundles", "dp")
	writeClaudeBashGuard(t, dir, "dp", map[string]any{"type": "http", "url": srv.URL + "/allow/../deny", "timeout": 10})
	a.Env = []string{"NO_PROXY=*", "no_proxy=*"}
	run := func(via string, args ...string) {
		mu.Lock()
		got = nil
		mu.Unlock()
		removeIfExists(t, filepath.Join(rec, "tool-ran"))
		a.Args = append([]string{"--allowedTools", "Bash"}, args...)
		res := a.Run(t, "hello")
		mu.Lock()
		defer mu.Unlock()
		if ran := exists(filepath.Join(rec, "tool-ran")); ran || !slices.Equal(got, []string{"/deny"}) {
			t.Errorf("%s: the tool ran = %v, the guard was asked at %q; want it asked at /deny and the tool blocked (found by trying Claude Code 2.1.332)\n%s", via, ran, got, res)
		}
	}
	run("claude --plugin-dir", "--plugin-dir", dir)
	home := t.TempDir()
	t.Cleanup(func() { Writable(home) })
	BundlectlRun(t, home, "--workspace", a.Workdir, "trust", "dp", reviewToken(t, home, a.Workdir, "dp"))
	BundlectlRun(t, home, "--workspace", a.Workdir, "enable", "dp")
	a.Launcher = []string{Bundlectl(t), "--home", home, "--workspace", a.Workdir, "exec", "--"}
	run("bundlectl exec")
}
