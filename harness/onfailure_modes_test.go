package harness_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
)

// TestClaudeOnFailureModes: each way a PreToolUse hook can fail, with
// "onFailure": "block", against what Claude Code 2.1.332 does with it
// (internal/agenttest TestClaudeOnFailureModes): it blocks on a timeout, a
// command not found, a spawn failure, a non-2 exit with output, JSON that
// fails its output schema, and an http hook whose server refuses the
// connection or answers 500, or answers 2xx with a body that is not JSON
// ("ok", HTML, "{not json"; a blank body is an empty answer); it does not
// on a command's stdout that starts with '{' but is no JSON (plain output
// to it), nor for an asyncRewake hook, which runs in the background.
func TestClaudeOnFailureModes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/text":
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("ok"))
		case "/html":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html><body>ok</body></html>"))
		case "/brace":
			w.Write([]byte("{not json"))
		case "/blank":
			w.Write([]byte(" \n"))
		default:
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte("oops"))
		}
	}))
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	refused := "http://" + ln.Addr().String() + "/g"
	ln.Close()
	for _, c := range []struct {
		name, hook string
		blocked    bool
	}{
		{"timeout", `{"type": "command", "command": "cat >/dev/null; sleep 30", "timeout": 1}`, true},
		{"not-found", `{"type": "command", "command": "/nonexistent/zz-hook"}`, true},
		{"spawn", `{"type": "command", "command": "/nonexistent/zz-hook", "args": []}`, true},
		{"exit-3-output", `{"type": "command", "command": "cat >/dev/null; echo out; echo err >&2; exit 3"}`, true},
		{"bad-shape", `{"type": "command", "command": "cat >/dev/null; echo '{\"decision\": 5}'"}`, true},
		{"not-json", `{"type": "command", "command": "cat >/dev/null; echo '{not json'"}`, false},
		{"http-500", `{"type": "http", "url": "` + srv.URL + `/g"}`, true},
		{"http-refused", `{"type": "http", "url": "` + refused + `"}`, true},
		{"http-text", `{"type": "http", "url": "` + srv.URL + `/text"}`, true},
		{"http-html", `{"type": "http", "url": "` + srv.URL + `/html"}`, true},
		{"http-brace", `{"type": "http", "url": "` + srv.URL + `/brace"}`, true},
		{"http-blank", `{"type": "http", "url": "` + srv.URL + `/blank"}`, false},
		{"async-rewake", `{"type": "command", "command": "cat >/dev/null; exit 1", "asyncRewake": true}`, false},
		{"async-rewake-false", `{"type": "command", "command": "cat >/dev/null; exit 1", "asyncRewake": false}`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			hook := strings.TrimSuffix(c.hook, "}") + `, "onFailure": "block"}`
			home, ws := httpGuard(t, []byte(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [`+hook+`]}]}}`))
			r, err := harness.Load(harness.Options{Home: home, Workspace: ws, Host: bundle.HostClaude})
			must(t, err)
			defer r.Close()
			out, err := r.FireHooks(context.Background(), "PreToolUse", []byte(`{"tool_name":"Bash","tool_input":{"command":"ls"}}`))
			must(t, err)
			if out.Blocked != c.blocked {
				t.Fatalf("blocked %v, want %v as Claude Code does; reason %q, errors %+v", out.Blocked, c.blocked, out.Reason, out.Errors)
			}
		})
	}
}
