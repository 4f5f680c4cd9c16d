package agenttest

import (
	"path/filepath"
	"testing"
)

// TestHostsMCPNullIDErrorEndsNoRequest: each real host (Claude Code
// 2.1.332, Codex 0.171.0, Gemini CLI 0.61.0) behind bundlectl mcp (a
// timed proxy), whose server sends an error under id null before its
// answer to the host's initialize — id 0 at every host — or, in mode
// null-id-at-call, before its answer to the call. The MCP TypeScript SDK
// matches an answer to its request by Number(id), and Number(null) is 0:
// a host that read the error as initialize's would never offer the tool.
// Each host must call it and the answer reach the model. Claude Code and
// Gemini CLI did so with the error relayed (their SDK's schema takes no
// null id: the line never reaches that match); Codex did not start the
// server when the proxy relayed it before the initialize answer ("unsupported
// call"), and does now the proxy drops every reply under null, which
// answers no request it sent (harness TestProxyDropsNullIDReplies).
func TestHostsMCPNullIDErrorEndsNoRequest(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"null-id-at-initialize", "null-id-at-call"} {
		for _, h := range hosts {
			t.Run(mode+"/"+string(h), func(t *testing.T) {
				t.Parallel()
				a := New(t, h, MCPCall(h, "proxied", "hold", map[string]any{"query": "owl"}), Say("done"))
				command, args := shapeKit(t, a, filepath.Join(t.TempDir(), "home"), mode)
				serveThroughProxy(t, a, command, args, 30)
				res := a.Run(t, "look up owl")
				next, ok := lastAt(a, 1)
				if !ok || !next.Contains("plain answer") {
					t.Fatalf("the answer did not reach the model after a null-id error at initialize; it got %q\n%s\n%s", toolOutcome(next), res, a.Model.Dump())
				}
			})
		}
	}
}
