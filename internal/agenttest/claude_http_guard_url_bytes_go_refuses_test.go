package agenttest

import "testing"

// TestClaudeHTTPGuardPathGoRefuses: real Claude Code 2.1.332 posts an
// http guard whose path holds bytes Go's url parser refuses — "%zz", a
// '%' with no escape after it, and a '"' — with those bytes as written
// ('"' escaped), and honours its deny. So does bundlectl exec -- claude,
// whose review refused the bundle ("is not a valid URL; this hook guards
// PreToolUse … bundlectl refuses the bundle"), as its url rules read the
// whole url with Go's parser (bundle TestHookURLHostReadsPathAsJS).
func TestClaudeHTTPGuardPathGoRefuses(t *testing.T) {
	t.Parallel()
	checkClaudeHTTPGuardAskedAt(t, "gr", `/x/a%zz"b%/deny`, "/x/a%zz%22b%/deny")
}

// TestClaudeHTTPGuardDoubleSlashPathBytes: real Claude Code 2.1.332 posts
// an http guard whose path starts "//" and holds a '|' and a stray '%'
// in origin form ("POST //evil.example/a|b%/deny"), as it does a plain
// "//" path (TestClaudeHTTPGuardDoubleSlashPath); so does bundlectl exec
// -- claude, whose hooks run sent such a target in absolute form
// ("POST http://127.0.0.1:PORT//evil.example/a|b%/deny"), which a server
// reading the target as it comes reads as another path, so its deny was
// lost (harness TestHookRequestDoubleSlashOriginForm).
func TestClaudeHTTPGuardDoubleSlashPathBytes(t *testing.T) {
	t.Parallel()
	checkClaudeHTTPGuardAskedAt(t, "dsb", "//evil.example/a|b%/deny", "//evil.example/a|b%/deny")
}

// TestClaudeHTTPGuardBackslashPathQueryBytes: real Claude Code 2.1.332
// posts an http guard whose path is written with backslashes, starts "//"
// once read, holds a '|', an escaped '/' and a stray '%', and has a query
// with '|' and a stray '%' in origin form ("POST
// //evil.example/a|b%2F%/deny?q|%"); so does bundlectl exec -- claude,
// its connection rewriting the absolute form Go writes for such a path
// (harness TestHookRequestDoubleSlashOriginForm).
func TestClaudeHTTPGuardBackslashPathQueryBytes(t *testing.T) {
	t.Parallel()
	checkClaudeHTTPGuardAskedAt(t, "bsq", `\\evil.example\a|b%2F%\deny?q|%`, "//evil.example/a|b%2F%/deny?q|%")
}
