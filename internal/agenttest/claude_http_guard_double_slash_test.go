package agenttest

import (
	"net"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// TestClaudeHTTPGuardDoubleSlashPath: real Claude Code 2.1.332 posts an
// http guard whose url is "http://127.0.0.1:PORT//evil.example/deny" in
// origin form ("POST //evil.example/deny", the Host header naming
// 127.0.0.1), and a server that reads the target as it comes denies
// there; so does bundlectl exec -- claude, whose hooks run sent the
// target in absolute form ("POST http://127.0.0.1:PORT//evil.example/deny"),
// which such a server reads as another path, and let the call through
// (harness TestHookRequestDoubleSlashOriginForm).
func TestClaudeHTTPGuardDoubleSlashPath(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var mu sync.Mutex
	var got []string
	go serveRequestLines(ln, func(target string) string {
		mu.Lock()
		got = append(got, target)
		mu.Unlock()
		if target != "//evil.example/deny" {
			return `{}`
		}
		return `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"denied at //evil.example/deny"}}`
	})
	rec := t.TempDir()
	a := New(t, Claude, ShellCall(Claude, "touch "+filepath.Join(rec, "tool-ran")), Say("done"))
	dir := filepath.Join(a.Workdir, ".bundlectl", "bundles", "ds")
	writeClaudeBashGuard(t, dir, "ds", map[string]any{"type": "http", "url": "http://" + ln.Addr().String() + "//evil.example/deny", "timeout": 10})
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
		if ran := exists(filepath.Join(rec, "tool-ran")); ran || !slices.Equal(got, []string{"//evil.example/deny"}) {
			t.Errorf("%s: the tool ran = %v, the guard was asked at %q; want it asked at //evil.example/deny and the tool blocked (found by trying Claude Code 2.1.332)\n%s", via, ran, got, res)
		}
	}
	run("claude --plugin-dir", "--plugin-dir", dir)
	home := t.TempDir()
	t.Cleanup(func() { Writable(home) })
	BundlectlRun(t, home, "--workspace", a.Workdir, "trust", "ds", reviewToken(t, home, a.Workdir, "ds"))
	BundlectlRun(t, home, "--workspace", a.Workdir, "enable", "ds")
	a.Launcher = []string{Bundlectl(t), "--home", home, "--workspace", a.Workdir, "exec", "--"}
	run("bundlectl exec")
}
