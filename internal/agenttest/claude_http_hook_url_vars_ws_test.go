package agenttest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestClaudeHTTPHookURLVarsAndWebSocket: what Claude Code 2.1.332 does with
// an http guard whose url is ws:// or wss://, or holds
// ${CLAUDE_PLUGIN_ROOT}, and that bundlectl agrees.
//
//   - ws:// and wss://: no request at all (no WebSocket either); the hook
//     fails on every call and the tool runs, or, under onFailure "block",
//     every call it matches is blocked (tried for both schemes). bundlectl's review showed it
//     as a guard that "POSTs to" the url, with no warning; it now warns
//     (hook.url) that the hook fails on every call and never blocks, and
//     hooks exec fails it the same way (Go's client posts only http and
//     https).
//   - ${CLAUDE_PLUGIN_ROOT} (and ${PLUGIN_ROOT}, ${CLAUDE_PLUGIN_DATA}) in
//     the query: posted as written, the deny blocks the tool. bundlectl
//     posts it as written too, through bundlectl exec, and now says so in
//     a hook.url warning (it said nothing: plugin variables were left out).
//   - ${CLAUDE_PLUGIN_ROOT} after the port: JavaScript's URL does not parse
//     the url, so Claude Code loads nothing of the plugin (its sibling
//     command hook does not run either). bundlectl's review showed the
//     guard for Claude Code; it now reads it as Claude Code's schema does
//     (hook.schema: the bundle is reviewed for Codex only).
func TestClaudeHTTPHookURLVarsAndWebSocket(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.RequestURI())
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"denied by the http guard"}}`))
	}))
	defer srv.Close()
	hostport := strings.TrimPrefix(srv.URL, "http://")
	for _, c := range []struct {
		name, url string
		onFailure string
		// what Claude Code does: the request it sends ("" none), whether
		// the tool and the sibling command hook run
		request          string
		toolRan, sibling bool
		// what bundlectl's review says
		rule, says string
		viaExec    bool
	}{
		{name: "ws", url: "ws://" + hostport + "/guard", toolRan: true, sibling: true, rule: "hook.url", says: "fails on every call and never blocks"},
		{name: "wss", url: "wss://" + hostport + "/guard", toolRan: true, sibling: true, rule: "hook.url", says: "fails on every call and never blocks"},
		{name: "ws-block", url: "ws://" + hostport + "/guard", onFailure: "block", toolRan: false, sibling: true, rule: "hook.url", says: "blocks every PreToolUse", viaExec: true},
		{name: "wss-block", url: "wss://" + hostport + "/guard", onFailure: "block", toolRan: false, sibling: true, rule: "hook.url", says: "blocks every PreToolUse", viaExec: true},
		{name: "root-query", url: srv.URL + "/guard?root=${CLAUDE_PLUGIN_ROOT}&d=${CLAUDE_PLUGIN_DATA}", request: "POST /guard?root=${CLAUDE_PLUGIN_ROOT}&d=${CLAUDE_PLUGIN_DATA}", toolRan: false, sibling: true, rule: "hook.url", says: "the server gets that text", viaExec: true},
		{name: "root-port", url: srv.URL + "${CLAUDE_PLUGIN_ROOT}/guard", toolRan: true, sibling: false, rule: "hook.schema", says: "not a URL"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := t.TempDir()
			a := New(t, Claude, ShellCall(Claude, "touch "+filepath.Join(rec, "tool-ran")), Say("done"))
			dir := filepath.Join(a.Workdir, ".bundlectl", "bundles", "hh")
			hook := map[string]any{"type": "http", "url": c.url}
			if c.onFailure != "" {
				hook["onFailure"] = c.onFailure
			}
			writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": "hh", "version": "1.0.0"})
			writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
				"matcher": "Bash", "hooks": []any{hook, map[string]any{"type": "command", "command": "touch " + filepath.Join(rec, "sibling")}},
			}}}})
			run := func(via string, args ...string) {
				mu.Lock()
				got = nil
				mu.Unlock()
				Writable(rec)
				for _, f := range []string{"tool-ran", "sibling"} {
					removeIfExists(t, filepath.Join(rec, f))
				}
				a.Args = append([]string{"--allowedTools", "Bash"}, args...)
				res := a.Run(t, "hello")
				files := recorded(t, rec)
				mu.Lock()
				defer mu.Unlock()
				wantReq := []string(nil)
				if c.request != "" {
					wantReq = []string{c.request}
				}
				if !slices.Equal(got, wantReq) || slices.Contains(files, "tool-ran") != c.toolRan || slices.Contains(files, "sibling") != c.sibling {
					t.Errorf("%s: url %q: the server got %q, and %q ran; want %q, tool ran %v, sibling %v (found by trying Claude Code 2.1.332)\n%s", via, c.url, got, files, wantReq, c.toolRan, c.sibling, res)
				}
			}
			run("claude --plugin-dir", "--plugin-dir", dir)
			home := t.TempDir()
			t.Cleanup(func() { Writable(home) })
			ws, out := ReviewWarnings(t, dir)
			if !slices.ContainsFunc(ws, func(w ReviewWarning) bool { return w.Rule == c.rule && strings.Contains(w.Message, c.says) }) {
				t.Errorf("review: no %s warning saying %q\n%s", c.rule, c.says, out)
			}
			if c.viaExec {
				BundlectlRun(t, home, "--workspace", a.Workdir, "trust", "hh", reviewToken(t, home, a.Workdir, "hh"))
				BundlectlRun(t, home, "--workspace", a.Workdir, "enable", "hh")
				a.Launcher = []string{Bundlectl(t), "--home", home, "--workspace", a.Workdir, "exec", "--"}
				run("bundlectl exec")
				a.Launcher = nil
			}
		})
	}
}

func removeIfExists(t *testing.T, p string) {
	t.Helper()
	if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}

// reviewToken is the token bundlectl review prints for the workspace
// bundle name.
func reviewToken(t *testing.T, home, workspace, name string) string {
	t.Helper()
	out := BundlectlRun(t, home, "--workspace", workspace, "review", "--json", name)
	var rv struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal([]byte(out), &rv); err != nil || rv.Token == "" {
		t.Fatalf("review --json %s: %v\n%s", name, err, out)
	}
	return rv.Token
}
