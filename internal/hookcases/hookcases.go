// Package hookcases holds hook cases that the harness tests and their
// real-CLI twins in internal/agenttest both run: what a host was found to
// do with a hook by trying it (agenttest), and that bundlectl does the
// same (harness), read from one table so the two cannot drift apart. It
// is not part of bundlectl's API.
package hookcases

import (
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// OnFailure is a PreToolUse hook that fails in one way, and whether
// Claude Code 2.1.332 blocks the tool when the hook has "onFailure":
// "block".
type OnFailure struct {
	Name    string
	Hook    map[string]any // without "onFailure"; a fresh map each call
	Blocked bool
}

// ClaudeOnFailureModes are the ways a hook can fail, as Claude Code
// 2.1.332 was found to treat them under "onFailure": "block"
// (internal/agenttest TestClaudeOnFailureModes): a timeout, a command not
// found, an exec-form spawn failure, a non-2 exit with output, JSON that
// fails its output schema, an http hook whose server answers 500 (url
// answers500) or refuses the connection (url refused) block the tool;
// stdout that starts with '{' but is no JSON (plain output to it) does
// not, nor does a hook with "async" or "asyncRewake" true, which runs in
// the background; with asyncRewake false it blocks.
func ClaudeOnFailureModes(answers500, refused string) []OnFailure {
	return []OnFailure{
		{"timeout", map[string]any{"type": "command", "command": "cat >/dev/null; sleep 30", "timeout": 1}, true},
		{"not-found", map[string]any{"type": "command", "command": "/nonexistent/of-hook"}, true},
		{"spawn", map[string]any{"type": "command", "command": "/nonexistent/of-hook", "args": []any{}}, true},
		{"exit-3-output", map[string]any{"type": "command", "command": "cat >/dev/null; echo out; echo err >&2; exit 3"}, true},
		{"bad-shape", map[string]any{"type": "command", "command": `cat >/dev/null; echo '{"decision": 5}'`}, true},
		{"not-json", map[string]any{"type": "command", "command": "cat >/dev/null; echo '{not json'"}, false},
		{"http-500", map[string]any{"type": "http", "url": answers500}, true},
		{"http-refused", map[string]any{"type": "http", "url": refused}, true},
		{"async", map[string]any{"type": "command", "command": "cat >/dev/null; exit 1", "async": true}, false},
		{"async-rewake", map[string]any{"type": "command", "command": "cat >/dev/null; exit 1", "asyncRewake": true}, false},
		{"async-rewake-false", map[string]any{"type": "command", "command": "cat >/dev/null; exit 1", "asyncRewake": false}, true},
	}
}

// HTTPAnswer is a 2xx answer an http hook can get whose body is no JSON
// object, served at Path by NewHTTPAnswers, and whether Claude Code
// 2.1.332 blocks the tool when the hook has "onFailure": "block"
// (internal/agenttest TestClaudeHTTPHookAnswers): the hook fails, except
// on a blank body, which is an empty answer.
type HTTPAnswer struct {
	Name, Path string
	Blocked    bool
}

// HTTPAnswers are the answers NewHTTPAnswers serves.
var HTTPAnswers = []HTTPAnswer{
	{"text", "/text", true},   // "ok" as text/plain
	{"html", "/html", true},   // an HTML page
	{"brace", "/brace", true}, // "{not json"
	{"blank", "/blank", false},
}

// NewHTTPAnswers starts a server that answers each of HTTPAnswers at its
// path, and any other path with a 500; it stops when the test ends.
func NewHTTPAnswers(t testing.TB) *httptest.Server {
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
			w.Write([]byte("  \n"))
		default:
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte("oops"))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// RefusedURL returns an http url on 127.0.0.1 whose port was just
// listened on and closed, so a connection to it is refused.
func RefusedURL(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return "http://" + ln.Addr().String() + "/g"
}
