package agenttest

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeHTTPGuardLoopbackForms: how Claude Code 2.1.332 reads an http
// guard's url host. "127.1" is 127.0.0.1 to it (JavaScript's URL): it
// POSTs the event and the deny blocks the tool. "localhost." gets no
// request and the tool runs (a failed hook). A ${VAR} in the url is not
// expanded, even one allowedEnvVars lists (that list is for headers): no
// request, the tool runs. bundlectl's review takes only "localhost" and
// IP literals netip reads as loopback (127.0.0.0/8, ::1) as this machine,
// so it refuses a guard bundle with the first two (hook.url, failing
// closed), and posts a ${VAR} url as written (script
// review_hook_http_loopback_forms).
func TestClaudeHTTPGuardLoopbackForms(t *testing.T) {
	t.Parallel()
	srv, calls := newDenyingHTTPGuard(t)
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	for _, c := range []struct {
		name, url string
		asked     bool
	}{
		{"127.1", "http://127.1:" + port + "/g", true},
		{"localhost-dot", "http://localhost.:" + port + "/g", false},
		{"var-host", "http://${OF_HOST}:" + port + "/g", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			calls.Store(0)
			rec := t.TempDir()
			dir := filepath.Join(t.TempDir(), "lb")
			writeClaudeBashGuard(t, dir, "lb", map[string]any{"type": "http", "url": c.url, "allowedEnvVars": []any{"OF_HOST"}})
			a := New(t, Claude, ShellCall(Claude, "touch "+filepath.Join(rec, "tool-ran")), Say("done"))
			a.Env = []string{"OF_HOST=127.0.0.1"}
			a.Args = []string{"--plugin-dir", dir, "--allowedTools", "Bash"}
			res := a.Run(t, "hello")
			if asked, ran := calls.Load() > 0, exists(filepath.Join(rec, "tool-ran")); asked != c.asked || ran == c.asked {
				t.Fatalf("the guard was asked = %v and the tool ran = %v, want %v and %v (found by trying Claude Code 2.1.332)\n%s", asked, ran, c.asked, !c.asked, res)
			}
		})
	}
}
