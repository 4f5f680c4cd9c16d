package agenttest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
)

// TestClaudePluginHTTPHook: Claude Code 2.1.332 runs an http hook of a
// plugin's hooks/hooks.json: it POSTs the PreToolUse event to the url, and
// a deny in the answer blocks the tool, its command sibling running too.
// bundlectl's review shows the http hook for Claude Code, and through
// bundlectl exec (hooks exec POSTs it, harness TestHTTPHookAnswerCutShortBlocks)
// the same guard is asked once and blocks the tool.
func TestClaudePluginHTTPHook(t *testing.T) {
	t.Parallel()
	for _, viaExec := range []bool{false, true} {
		var calls atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var ev struct {
				Event string `json:"hook_event_name"`
			}
			if json.NewDecoder(r.Body).Decode(&ev) == nil && ev.Event == "PreToolUse" && r.Method == http.MethodPost {
				calls.Add(1)
			}
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"denied by the http guard"}}`))
		}))
		rec := t.TempDir()
		a := New(t, Claude, ShellCall(Claude, "touch "+filepath.Join(rec, "tool-ran")), Say("done"))
		dir := filepath.Join(a.Workdir, ".bundlectl", "bundles", "hh")
		writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": "hh", "version": "1.0.0"})
		writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
			"matcher": "Bash",
			"hooks":   []any{map[string]any{"type": "http", "url": srv.URL + "/guard"}, map[string]any{"type": "command", "command": "echo ran > " + filepath.Join(rec, "sibling")}},
		}}}})
		a.Args = []string{"--allowedTools", "Bash"}
		home := t.TempDir()
		t.Cleanup(func() { Writable(home) })
		out := BundlectlRun(t, home, "--workspace", a.Workdir, "review", "--json", "hh")
		var rv struct {
			Token      string `json:"token"`
			Components struct {
				Hooks []struct {
					Type, URL string
					Hosts     []string
				}
			}
		}
		if err := json.Unmarshal([]byte(out), &rv); err != nil || rv.Token == "" {
			t.Fatalf("review --json: %v\n%s", err, out)
		}
		if !slices.ContainsFunc(rv.Components.Hooks, func(h struct {
			Type, URL string
			Hosts     []string
		}) bool {
			return h.Type == "http" && h.URL == srv.URL+"/guard" && slices.Contains(h.Hosts, "claude")
		}) {
			t.Errorf("the review does not show the http hook for Claude Code\n%s", out)
		}
		if viaExec {
			BundlectlRun(t, home, "--workspace", a.Workdir, "trust", "hh", rv.Token)
			BundlectlRun(t, home, "--workspace", a.Workdir, "enable", "hh")
			a.Launcher = []string{Bundlectl(t), "--home", home, "--workspace", a.Workdir, "exec", "--"}
		} else {
			a.Args = append(a.Args, "--plugin-dir", dir)
		}
		res := a.Run(t, "hello")
		srv.Close()
		if got := recorded(t, rec); calls.Load() != 1 || !slices.Equal(got, []string{"sibling"}) {
			t.Errorf("exec=%v: the http guard was asked %d times and %q ran, want once and only the sibling (the tool blocked)\n%s", viaExec, calls.Load(), got, res)
		}
	}
}

// newDenyingHTTPGuard starts a server that answers every request with a
// PreToolUse deny, as an http guard would, and counts the requests; it
// stops when the test ends.
func newDenyingHTTPGuard(t *testing.T) (srv *httptest.Server, asked *atomic.Int32) {
	asked = new(atomic.Int32)
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"denied by the http guard"}}`))
	}))
	t.Cleanup(srv.Close)
	return srv, asked
}
