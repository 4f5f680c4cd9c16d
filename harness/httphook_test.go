package harness_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
	"github.com/bundlectl/bundlectl/lifecycle"
)

// TestHTTPHookAnswerCutShortBlocks: an http guard on 127.0.0.1 whose
// deny is cut — over the 1 MiB answer cap, or by a connection that breaks
// off after a 2xx header — blocks the event, as a command hook's cut
// answer does; a whole deny blocks with its reason, and an allow lets the
// event through. The server is real and so is the request.
func TestHTTPHookAnswerCutShortBlocks(t *testing.T) {
	deny := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"refused by the http guard"`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/deny":
			w.Write([]byte(deny + "}}"))
		case "/allow":
			w.Write([]byte("{}"))
		case "/huge":
			w.Write([]byte(deny + `,"pad":"` + strings.Repeat("x", 1<<20) + `"}}`))
		case "/broken":
			w.Header().Set("Content-Length", "100000")
			w.WriteHeader(http.StatusOK)
			w.Write([]byte(deny))
			w.(http.Flusher).Flush()
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.(*net.TCPConn).SetLinger(0) // a reset, not a clean end
				conn.Close()
			}
		}
	}))
	defer srv.Close()
	for _, c := range []struct {
		path, reason string
		blocked      bool
	}{
		{"/deny", "refused by the http guard", true},
		{"/allow", "", false},
		{"/huge", "wrote more than 1048576 bytes", true},
		{"/broken", "gave an answer that broke off", true},
	} {
		t.Run(strings.TrimPrefix(c.path, "/"), func(t *testing.T) {
			home, ws := httpGuard(t, []byte(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": "`+srv.URL+c.path+`"}]}]}}`))
			r, err := harness.Load(harness.Options{Home: home, Workspace: ws})
			must(t, err)
			defer r.Close()
			out, err := r.FireHooks(context.Background(), "PreToolUse", []byte(`{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`))
			must(t, err)
			if out.Blocked != c.blocked || !strings.Contains(out.Reason, c.reason) {
				t.Fatalf("blocked %v, reason %q; want blocked %v with %q", out.Blocked, out.Reason, c.blocked, c.reason)
			}
		})
	}
}

// An http hook's header values expand as Claude Code expands them: the
// longest upper-case name after $ or inside ${}, its value only when the
// name is in allowedEnvVars and nothing otherwise, and never a CR or LF
// from a variable's value. (A manifest header with a control character is
// invalid before it gets here.)
func TestHTTPHookHeadersExpandAsClaudeCode(t *testing.T) {
	got := make(chan http.Header, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
		w.Write([]byte("{}"))
	}))
	defer srv.Close()
	headers := map[string]string{
		"X-Long":     "Bearer $TOKEN",
		"X-Braces":   "${TOKEN}/${TOK}/$TOK_",
		"X-Unlisted": "[$SECRET][${SECRET}]",
		"X-Root":     "[${CLAUDE_PLUGIN_ROOT}]",
		"X-Lower":    "$lower ${lower} $ ${TOK",
		"X-Value":    "<$MULTI>",
	}
	hooks, err := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{
		"type": "http", "url": srv.URL, "headers": headers, "allowedEnvVars": []string{"TOK", "TOKEN", "MULTI"},
	}}}}}})
	must(t, err)
	home, ws := httpGuard(t, hooks)
	r, err := harness.Load(harness.Options{Home: home, Workspace: ws, Environ: []string{
		"TOK=short", "TOKEN=long", "SECRET=s3cret", "MULTI=x\r\ny", "PATH=/usr/bin:/bin",
	}})
	must(t, err)
	defer r.Close()
	out, err := r.FireHooks(context.Background(), "PreToolUse", []byte(`{"tool_name":"Bash","tool_input":{"command":"ls"}}`))
	must(t, err)
	if out.Blocked {
		t.Fatalf("blocked: %s", out.Reason)
	}
	var h http.Header
	select {
	case h = <-got: // sent before the answer, so here once FireHooks is back
	default:
		t.Fatalf("the http hook never reached the server (errors %v)", out.Errors)
	}
	for name, want := range map[string]string{
		"X-Long":     "Bearer long",
		"X-Braces":   "long/short/",
		"X-Unlisted": "[][]",
		"X-Root":     "[]",
		"X-Lower":    "$lower ${lower} $ ${TOK",
		"X-Value":    "<xy>",
	} {
		if v := h.Get(name); v != want {
			t.Errorf("header %s = %q, want %q", name, v, want)
		}
	}
}

// httpGuard makes a Claude Code plugin "hg" (http hooks are a Claude Code
// hook type) with the given hooks.json in the user root of a new home,
// trusted and enabled, and returns the home and an empty workspace.
func httpGuard(t *testing.T, hooksJSON []byte) (home, ws string) {
	t.Helper()
	return activeHookBundle(t, ".claude-plugin/plugin.json", hooksJSON)
}

// activeHookBundle makes a bundle "hg" whose manifest (manifest, a path
// in the bundle such as ".codex-plugin/plugin.json" or
// "gemini-extension.json") says only its name and version, with the given
// hooks/hooks.json, in the user root of a new home, trusted and enabled,
// and returns the home and an empty workspace.
func activeHookBundle(t *testing.T, manifest string, hooksJSON []byte) (home, ws string) {
	t.Helper()
	root := t.TempDir()
	home, ws = filepath.Join(root, "home"), filepath.Join(root, "ws")
	dir := filepath.Join(home, "bundles", "hg")
	must(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(manifest)), 0o755))
	must(t, os.MkdirAll(filepath.Join(dir, "hooks"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, manifest), []byte(`{"name": "hg", "version": "1.0.0"}`), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "hooks", "hooks.json"), hooksJSON, 0o644))
	must(t, os.MkdirAll(ws, 0o755))
	activate(t, lifecycle.New(bundle.Roots{Home: home, Workspace: ws}, bundle.Limits{}), "hg")
	return home, ws
}
