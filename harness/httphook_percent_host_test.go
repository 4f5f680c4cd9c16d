package harness_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
)

// TestHTTPHookPercentEncodedHost: a guard whose url percent-encodes an
// ASCII character of its host ("127.0.0%2E1", "l%6Fcalhost") is posted
// to the host JavaScript's URL decodes, as Claude Code 2.1.332 posts it
// (internal/agenttest TestClaudeHTTPHookNonASCIIHost), and its deny
// blocks the call. Go's url.Parse refuses such a host: the review refused
// the guard, and had it not, the post would have failed and let the call
// through.
func TestHTTPHookPercentEncodedHost(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"denied at ` + r.Host + `"}}`))
	}))
	defer srv.Close()
	port := srv.URL[strings.LastIndexByte(srv.URL, ':'):]
	for _, host := range []string{"127.0.0%2E1", "l%6Fcalhost", "LOC%41LHOST"} {
		t.Run(host, func(t *testing.T) {
			url := "http://" + host + port + "/deny"
			home, ws := httpGuard(t, []byte(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": "`+url+`", "timeout": 5}]}]}}`))
			r, err := harness.Load(harness.Options{Home: home, Workspace: ws, Host: bundle.HostClaude})
			must(t, err)
			defer r.Close()
			out, err := r.FireHooks(context.Background(), "PreToolUse", []byte(`{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`))
			must(t, err)
			if !out.Blocked || !strings.Contains(out.Reason, "denied at ") {
				t.Fatalf("blocked %v, reason %q, errors %+v; want the guard at %s asked and its deny honoured, as Claude Code", out.Blocked, out.Reason, out.Errors, url)
			}
		})
	}
}
