package agenttest

import (
	"path/filepath"
	"testing"
)

// TestHostsMCPNullIDFilterOnly is TestHostsMCPNullIDErrorEndsNoRequest
// behind a proxy that only filters tools (reviewed excludeTools, no
// per-call timeout): the server sends an error under id null before its
// initialize answer, or before a call's. The timed proxy dropped such a
// reply (Codex 0.171.0 did not start a server that sent one before its
// initialize answer), the filtering proxy relayed it; it answers no
// request there either (the proxy forwards only lines it read), and now
// it is dropped alike (harness TestProxyDropsNullIDRepliesUntimed).
func TestHostsMCPNullIDFilterOnly(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"null-id-at-initialize", "null-id-at-call"} {
		for _, h := range hosts {
			t.Run(mode+"/"+string(h), func(t *testing.T) {
				t.Parallel()
				a := New(t, h, MCPCall(h, "proxied", "hold", map[string]any{"query": "owl"}), Say("done"))
				command, args := shapeKitFiltered(t, a, filepath.Join(t.TempDir(), "home"), mode)
				serveThroughProxy(t, a, command, args, 30)
				res := a.Run(t, "look up owl")
				next, ok := lastAt(a, 1)
				if !ok || !next.Contains("plain answer") {
					t.Fatalf("the answer did not reach the model after a null-id error (%s) through a filtering proxy; it got %q\n%s\n%s", mode, toolOutcome(next), res, a.Model.Dump())
				}
			})
		}
	}
}
