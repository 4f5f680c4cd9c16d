package harness_test

import (
	"context"
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
			root := t.TempDir()
			home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
			// A Claude Code plugin: http hooks are a Claude Code hook type.
			dir := filepath.Join(home, "bundles", "hg")
			must(t, os.MkdirAll(filepath.Join(dir, ".claude-plugin"), 0o755))
			must(t, os.MkdirAll(filepath.Join(dir, "hooks"), 0o755))
			must(t, os.WriteFile(filepath.Join(dir, ".claude-plugin", "plugin.json"), []byte(`{"name": "hg", "version": "1.0.0"}`), 0o644))
			must(t, os.WriteFile(filepath.Join(dir, "hooks", "hooks.json"), []byte(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": "`+srv.URL+c.path+`"}]}]}}`), 0o644))
			must(t, os.MkdirAll(ws, 0o755))
			activate(t, lifecycle.New(bundle.Roots{Home: home, Workspace: ws}, bundle.Limits{}), "hg")
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
