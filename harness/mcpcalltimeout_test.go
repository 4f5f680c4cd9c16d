package harness

import (
	"context"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/inventory"
)

// TestExecMCPTimesEachCall runs a real server behind the proxy with a
// reviewed per-call timeout of 1 s. A call the server holds past it is
// answered by the proxy with a timeout error under its id, the server is
// sent notifications/cancelled for it, and the server's late answer never
// reaches the client; other requests, and a call answered in time, pass
// untouched. The held call is answered only when the test releases it,
// after the proxy's error came, so nothing depends on how fast the
// machine is.
func TestExecMCPTimesEachCall(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := startMCPSessionPolicy(t, ctx, MCPPolicy{CallTimeout: time.Second})
	if init := s.call(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`); init["result"] == nil {
		t.Fatalf("initialize answered %v", init)
	}
	if list := s.call(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); list["result"] == nil {
		t.Fatalf("tools/list answered %v", list)
	}
	held := s.call(`{"jsonrpc":"2.0","id":"h-7","method":"tools/call","params":{"name":"hold"}}`)
	e, _ := held["error"].(map[string]any)
	msg, _ := e["message"].(string)
	if held["id"] != "h-7" || errorCode(held) != rpcRequestTimeout || !strings.Contains(msg, "passed its reviewed timeout of 1 s") {
		t.Fatalf("the held call was answered %v; want the proxy's timeout error under its id", held)
	}
	s.awaitLogged("cancelled:3")
	// The late answer comes before test/release's own; the client must
	// get only the latter.
	if rel := s.call(`{"jsonrpc":"2.0","id":3,"method":"test/release"}`); rel["id"] != float64(3) {
		t.Fatalf("after the release the client got %v; want only the answer to the release (the late answer dropped)", rel)
	}
	// A call answered at once passes under the same timeout.
	if ok := s.call(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo"}}`); ok["id"] != float64(4) || ok["result"] == nil {
		t.Fatalf("a prompt call was answered %v", ok)
	}
	s.close()
	if calls := s.calls(); !slices.Equal(calls, []string{"hold", "cancelled:3", "echo"}) {
		t.Fatalf("the server saw %q; want the held call, its cancellation under the proxy's id for it (3: after initialize and tools/list), then echo", calls)
	}
}

// TestMCPCallTimeoutOf: which reviewed field is a server's wait for each
// call.
func TestMCPCallTimeoutOf(t *testing.T) {
	for _, c := range []struct {
		s    inventory.MCPServer
		want time.Duration
	}{
		{inventory.MCPServer{}, 0},
		{inventory.MCPServer{TimeoutSec: 30}, 30 * time.Second}, // Claude Code's, Gemini CLI's, bundlectl's own
		{inventory.MCPServer{Other: map[string]json.RawMessage{"tool_timeout_sec": json.RawMessage("0.5"), "startup_timeout_sec": json.RawMessage("20")}}, 500 * time.Millisecond},
		{inventory.MCPServer{Other: map[string]json.RawMessage{"startup_timeout_sec": json.RawMessage("20")}}, 0}, // Codex's default per call
		{inventory.MCPServer{Other: map[string]json.RawMessage{"tool_timeout_sec": json.RawMessage("0")}}, 0},     // Codex gives up at once: left out
		{inventory.MCPServer{Other: map[string]json.RawMessage{"tool_timeout_sec": json.RawMessage("1e300")}}, 0}, // Codex panics: left out
		{inventory.MCPServer{Other: map[string]json.RawMessage{"tool_timeout_sec": json.RawMessage("1e12")}}, 0},  // past a Duration: untimed
	} {
		if got := MCPCallTimeoutOf(c.s); got != c.want {
			t.Errorf("MCPCallTimeoutOf(%+v) = %s, want %s", c.s, got, c.want)
		}
	}
}

// TestProxyMCPCallTimeout: a library caller gets the per-call timeout
// through ProxyMCP's policy as ServeMCP does: a call the server never
// answers is answered by the proxy with -32001 under its id, and the
// server is sent notifications/cancelled for it, under the id the proxy
// forwarded it under. The server sends
// notifications/progress for the call until it is cancelled: they reach
// the client and do not extend the wait, as no host extends its own for
// them (agenttest TestHostsMCPProgressNoExtension). Nothing depends on
// the machine's speed: the server never answers.
func TestProxyMCPCallTimeout(t *testing.T) {
	cr, cw := io.Pipe() // client -> proxy
	pr, pw := io.Pipe() // proxy -> client
	sr, sw := io.Pipe() // proxy -> server
	or, ow := io.Pipe() // server -> proxy
	defer func() { _ = cw.Close(); _ = pr.Close(); _ = sr.Close() }()
	seen := make(chan string, 4)
	cancelled := make(chan struct{})
	go func() {
		lr := newLineReader(sr)
		for {
			line, _, err := lr.next()
			if err != nil {
				return
			}
			if strings.Contains(string(line), "notifications/cancelled") {
				close(cancelled)
			}
			seen <- string(line)
		}
	}()
	go func() { // progress for call 5 until it is cancelled
		defer ow.Close()
		for i := 1; ; i++ {
			select {
			case <-cancelled:
				return
			case <-time.After(5 * time.Millisecond):
			}
			if _, err := io.WriteString(ow, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":5,"progress":`+strconv.Itoa(i)+`}}`+"\n"); err != nil {
				return
			}
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- ProxyMCP(ctx, MCPConn{R: cr, W: pw}, MCPConn{R: or, W: sw}, MCPPolicy{CallTimeout: 50 * time.Millisecond}, io.Discard)
	}()
	const call = `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"hold","_meta":{"progressToken":5}}}`
	if _, err := io.WriteString(cw, call+"\n"); err != nil {
		t.Fatal(err)
	}
	lr := newLineReader(pr)
	for {
		line, _, err := lr.next()
		if err != nil {
			t.Fatalf("the client's stream ended before the call was answered: %v", err)
		}
		var got map[string]any
		if err := json.Unmarshal(line, &got); err != nil {
			t.Fatalf("the client got %q", line)
		}
		if got["method"] == "notifications/progress" {
			continue
		}
		if got["id"] != float64(5) || errorCode(got) != rpcRequestTimeout {
			t.Fatalf("the client got %s; want the proxy's timeout error under id 5", line)
		}
		break
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }() // progress still on its way
	// The server gets the call under the proxy's first id, every other
	// byte as the client wrote it (the progress token the client's), and
	// the cancellation under that id.
	if got, want := <-seen, strings.Replace(call, `"id":5`, `"id":1`, 1); got != want {
		t.Fatalf("the server first got %s; want the call under the proxy's id: %s", got, want)
	}
	if c := <-seen; !strings.Contains(c, `"notifications/cancelled"`) || !strings.Contains(c, `"requestId":1`) {
		t.Fatalf("the server got %s; want notifications/cancelled for 1, the call's id at the server", c)
	}
	if err := <-done; err != nil {
		t.Fatalf("ProxyMCP: %v", err)
	}
}
