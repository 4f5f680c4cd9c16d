package harness

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/inventory"
)

// MCPCallTimeoutOf is the reviewed wait for each tool call of the MCP
// server s, which ServeMCP's proxy enforces itself: a Codex server's
// tool_timeout_sec (a value Codex gives up on at once or panics on is
// left out, as bundle.CodexMCPTimeouts reads), else the server's timeout
// (Claude Code's "timeout", its wait for each call; Gemini CLI's, its
// wait for the start and for each call; the one timeout of bundlectl's
// own formats, for both). 0 when the review gives none: the host's own
// default then applies, as when it loads the plugin itself.
func MCPCallTimeoutOf(s inventory.MCPServer) time.Duration {
	if _, tool, _, ok := bundle.CodexMCPTimeouts(s.Other); ok {
		if tool*float64(time.Second) >= math.MaxInt64 {
			return 0 // about 292 years: never in practice
		}
		return max(time.Duration(tool*float64(time.Second)), 1)
	}
	if s.TimeoutSec > 0 {
		return time.Duration(s.TimeoutSec) * time.Second
	}
	return 0
}

// MCPPolicyOf is the policy the review of the stdio MCP server s gives:
// its tool filter (ToolFilterOf) and its per-call timeout
// (MCPCallTimeoutOf).
func MCPPolicyOf(s inventory.MCPServer) MCPPolicy {
	return MCPPolicy{Filter: ToolFilterOf(s), CallTimeout: MCPCallTimeoutOf(s)}
}

// awaited is what the proxy keeps of a client request it forwarded under
// an id of its own until the server answers it.
type awaited struct {
	id  json.RawMessage // the id the client gave it, which its answer goes back under
	key string          // idKey(id): how the client's cancellation names it
}

// pendingCall is a tools/call the proxy forwarded and times. Its timer
// runs only while no elicitation is open (see elicitationOpened): left is
// the time it has to run, counted from since.
type pendingCall struct {
	awaited
	timer  *time.Timer // nil while paused
	left   time.Duration
	since  time.Time
	paused bool
}

// stop stops the call's timer, if it runs.
func (c *pendingCall) stop() {
	if c.timer != nil {
		c.timer.Stop()
	}
}

// arm starts the timer of call c, forwarded under the proxy's id key, for
// the time it has left; callsMu is held.
func (p *proxy) arm(key string, c *pendingCall) {
	c.paused, c.since = false, p.clock()
	c.timer = time.AfterFunc(c.left, func() { p.expire(key, c) })
}

// expire answers the client for call c (forwarded under the proxy's id
// key), which passed the timeout, and cancels it at the server; its
// answer, should it come, is dropped (no request is outstanding under
// key any more).
func (p *proxy) expire(key string, c *pendingCall) {
	p.callsMu.Lock()
	if p.calls[key] != c {
		p.callsMu.Unlock()
		return // answered meanwhile, cancelled, or the session is over
	}
	p.endLocked(key, c.awaited, "tool call %s, which the proxy answered when it passed its timeout")
	p.callsMu.Unlock()
	sec := strconv.FormatFloat(p.callTimeout.Seconds(), 'g', -1, 64)
	shown := shownID(c.id)
	p.notice("tool call %s passed its reviewed timeout of %s s; answered it with an error and cancelled it at the server", shown, sec)
	msg := fmt.Sprintf("the tool call passed its reviewed timeout of %s s: %s did not answer it in time; bundlectl's MCP proxy cancelled it", sec, p.server())
	if err := p.sendClient(rpcError(c.id, rpcRequestTimeout, msg)); err != nil {
		return
	}
	_ = p.sendServer(cancelNotice(key, "the tool call passed its reviewed timeout of "+sec+" s"))
}

// cancelNotice is notifications/cancelled for the request the proxy
// forwarded under its id key.
func cancelNotice(key, reason string) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled",
		"params": map[string]any{"requestId": json.RawMessage(key), "reason": reason}})
	return b
}

func bytes2str(b []byte) string { return strings.ToValidUTF8(string(b), "\uFFFD") }

// maxShownID is how much of an id a notice shows.
const maxShownID = 256

// shownID is id as every notice shows it: bytes2str of at most its
// first maxShownID bytes, and its length when longer. A line's id may be
// most of 16 MiB, which stderr need not carry.
func shownID(id []byte) string {
	if len(id) <= maxShownID {
		return bytes2str(id)
	}
	return fmt.Sprintf("%s… (%d bytes)", bytes2str(id[:maxShownID]), len(id))
}
