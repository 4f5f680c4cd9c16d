package agenttest

import "testing"

// TestClaudeHTTPGuardDotSegmentPath: real Claude Code 2.1.332 posts an
// http guard whose url is "http://127.0.0.1:PORT/allow/../deny" to /deny,
// the path JavaScript's URL resolves, and the deny there blocks the tool;
// so does bundlectl exec -- claude, whose hooks run sent the path as
// written (/allow/../deny) and let the call through (harness
// TestHTTPHookDotSegmentPath).
func TestClaudeHTTPGuardDotSegmentPath(t *testing.T) {
	t.Parallel()
	checkClaudeHTTPGuardAskedAt(t, "dp", "/allow/../deny", "/deny")
}
