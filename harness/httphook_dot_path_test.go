package harness_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
)

// TestHTTPHookDotSegmentPath: a guard whose url's path holds dot segments
// or backslashes is posted to the path JavaScript's URL resolves, as
// Claude Code 2.1.332 posts it (node 20: "http://h/allow/../deny" is
// http://h/deny, and so are "/allow/%2e%2E/deny" and, a backslash read as
// '/', "/allow\..\deny"), its query encoded as it encodes it ("?a b"
// is ?a%20b). Go's client sent both as written: the server, which denies
// at /deny, was asked at /allow/../deny, and the call went through; a
// space in the query broke the request line (400), failing the hook.
func TestHTTPHookDotSegmentPath(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.RequestURI)
		mu.Unlock()
		if r.URL.Path != "/deny" {
			w.Write([]byte(`{}`))
			return
		}
		w.Write([]byte(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"denied at /deny"}}`))
	}))
	defer srv.Close()
	for _, path := range []string{"/allow/../deny", "/allow/%2e%2E/deny", `/allow\\..\\deny`, "/./deny?x=/../y", "/deny?a b"} {
		t.Run(path, func(t *testing.T) {
			mu.Lock()
			got = nil
			mu.Unlock()
			url := srv.URL + path
			home, ws := httpGuard(t, []byte(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": "`+url+`", "timeout": 5}]}]}}`))
			r, err := harness.Load(harness.Options{Home: home, Workspace: ws, Host: bundle.HostClaude})
			must(t, err)
			defer r.Close()
			out, err := r.FireHooks(context.Background(), "PreToolUse", []byte(`{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`))
			must(t, err)
			mu.Lock()
			defer mu.Unlock()
			if !out.Blocked || len(got) != 1 || !strings.HasPrefix(got[0], "/deny") {
				t.Fatalf("blocked %v, the server was asked at %q, errors %+v; want it asked at /deny and its deny honoured, as Claude Code posts it", out.Blocked, got, out.Errors)
			}
		})
	}
}
