package harness_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
)

// TestHTTPHookPathBytes: hooks run posts an http guard's event with the
// request line Claude Code 2.1.332 sends for its url, byte for byte ('|'
// and "%41" as written, '^', '`', '{', '}' escaped, a single quote
// escaped in the query only; internal/agenttest TestClaudeHTTPHookURLBytes),
// and the server's deny there blocks the call. Go's url package sent
// "/a%5Eb%7CA%60%7Bx%7D%27": '|' and a single quote escaped too, and the
// path then decoded and escaped again, "%41" sent as "A".
func TestHTTPHookPathBytes(t *testing.T) {
	const want = "/a%5Eb|%41%60%7Bx%7D'?q|^%27"
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.RequestURI)
		mu.Unlock()
		if r.RequestURI != want {
			w.Write([]byte(`{}`))
			return
		}
		w.Write([]byte(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"denied"}}`))
	}))
	defer srv.Close()
	url := srv.URL + "/a^b|%41`{x}'?q|^'"
	home, ws := httpGuard(t, []byte(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": "`+url+`", "timeout": 5}]}]}}`))
	r, err := harness.Load(harness.Options{Home: home, Workspace: ws, Host: bundle.HostClaude})
	must(t, err)
	defer r.Close()
	out, err := r.FireHooks(context.Background(), "PreToolUse", []byte(`{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`))
	must(t, err)
	mu.Lock()
	defer mu.Unlock()
	if !out.Blocked || len(got) != 1 || got[0] != want {
		t.Fatalf("blocked %v, the server was asked at %q, errors %+v; want it asked at %q, as node 20's URL writes it", out.Blocked, got, out.Errors, want)
	}
}
