package agenttest

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestClaudeHTTPGuardPathBytes: real Claude Code 2.1.332 posts an http
// guard whose url is "http://127.0.0.1:PORT/x/./a^b|%41`{x}'/y/%2e%2E/c?q|^'`"
// with the request target "/x/a%5Eb|%41%60%7Bx%7D'/c?q|^%27`" ('|' and
// "%41" as written, '^', '`', '{', '}' escaped in the path, a single
// quote in the query, the dot segments resolved; node 20's URL keeps '^'
// in a path), read off the request line by a server that is no net/http,
// and the deny there blocks the tool. So does bundlectl exec -- claude,
// whose hooks run sent "/x/a%5Eb%7CA%60%7Bx%7D%27/c" and let the call
// through (harness TestHTTPHookPathBytes).
func TestClaudeHTTPGuardPathBytes(t *testing.T) {
	t.Parallel()
	checkClaudeHTTPGuardAskedAt(t, "pb", "/x/./a^b|%41`{x}'/y/%2e%2E/c?q|^'`", "/x/a%5Eb|%41%60%7Bx%7D'/c?q|^%27`")
}

// checkClaudeHTTPGuardAskedAt puts an http guard on Bash, in a bundle
// named name, whose url is a raw listener's address followed by path; the
// listener reads the request target as it comes and denies only at want.
// A Claude Code session whose model runs Bash is run twice, with
// --plugin-dir and then under bundlectl exec with the bundle trusted:
// each time the guard must be asked exactly once, at want, and the tool
// blocked.
func checkClaudeHTTPGuardAskedAt(t *testing.T, name, path, want string) {
	t.Helper()
	srv := newHookServer(t, func(r hookRequest) string {
		if r.Target != want {
			return `{}`
		}
		return `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"denied at the path Claude Code writes"}}`
	})
	rec := t.TempDir()
	a := New(t, Claude, ShellCall(Claude, "touch "+filepath.Join(rec, "tool-ran")), Say("done"))
	dir := filepath.Join(a.Workdir, ".bundlectl", "bundles", name)
	writeClaudeBashGuard(t, dir, name, map[string]any{"type": "http", "url": "http://" + srv.Addr() + path, "timeout": 10})
	a.Env = []string{"NO_PROXY=*", "no_proxy=*"}
	run := func(via string, args ...string) {
		srv.take()
		removeIfExists(t, filepath.Join(rec, "tool-ran"))
		a.Args = append([]string{"--allowedTools", "Bash"}, args...)
		res := a.Run(t, "hello")
		var got []string
		for _, r := range srv.take() {
			got = append(got, r.Target)
		}
		if ran := exists(filepath.Join(rec, "tool-ran")); ran || !slices.Equal(got, []string{want}) {
			t.Errorf("%s: the tool ran = %v, the guard was asked at %q; want it asked at %q and the tool blocked (found by trying Claude Code 2.1.332)\n%s", via, ran, got, want, res)
		}
	}
	run("claude --plugin-dir", "--plugin-dir", dir)
	launchThroughExec(t, a, name)
	run("bundlectl exec")
}
