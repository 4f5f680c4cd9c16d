package agenttest

import "testing"

// TestClaudeHTTPGuardDoubleSlashPath: real Claude Code 2.1.332 posts an
// http guard whose url is "http://127.0.0.1:PORT//evil.example/deny" in
// origin form ("POST //evil.example/deny", the Host header naming
// 127.0.0.1), and a server that reads the target as it comes denies
// there; so does bundlectl exec -- claude, whose hooks run sent the
// target in absolute form ("POST http://127.0.0.1:PORT//evil.example/deny"),
// which such a server reads as another path, and let the call through
// (harness TestHookRequestDoubleSlashOriginForm).
func TestClaudeHTTPGuardDoubleSlashPath(t *testing.T) {
	t.Parallel()
	checkClaudeHTTPGuardAskedAt(t, "ds", "//evil.example/deny", "//evil.example/deny")
}
