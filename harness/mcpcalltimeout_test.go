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
	if calls := s.calls(); !slices.Equal(calls, []string{"hold", `cancelled:"h-7"`, "echo"}) {
		t.Fatalf("the server saw %q; want the held call, its cancellation, then echo", calls)
	}
}

// TestProxyCallTimeoutUnit drives the proxy's bookkeeping without a
// process: a reply settles its call by id value (1.0 settles 1), only
// tools/call requests are timed, a late answer is cut out of a batch,
// and without a timeout nothing is tracked.
func TestProxyCallTimeoutUnit(t *testing.T) {
	p := &proxy{callTimeout: time.Hour, notices: io.Discard}
	p.track([]byte(`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}},{"jsonrpc":"2.0","id":2,"method":"tools/list"},{"jsonrpc":"2.0","method":"tools/call","params":{"name":"n"}}]`))
	p.track([]byte(`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"b"}}`))
	p.track([]byte(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"c"}}`))
	if len(p.calls) != 3 {
		t.Fatalf("tracked %d calls, want 3 (the calls with an id)", len(p.calls))
	}
	// A call the client cancels is no longer timed.
	p.track([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9,"reason":"user"}}`))
	if len(p.calls) != 2 || p.calls["n9"] != nil {
		t.Fatalf("the cancelled call is still timed: %v", p.calls)
	}
	// Expire "x" by hand, as its timer would (the client is io.Discard).
	p.toClient, p.toServer = io.Discard, io.Discard
	p.expire("sx", p.calls["sx"])
	out := p.settleReplies([]byte(`[{"jsonrpc":"2.0","id":"x","result":{}},{"jsonrpc":"2.0","id":1.0,"result":{}},{"jsonrpc":"2.0","id":"x","method":"ping"}]`))
	var elems []map[string]any
	if err := json.Unmarshal(out, &elems); err != nil || len(elems) != 2 || elems[0]["id"] != float64(1) || elems[1]["method"] != "ping" {
		t.Fatalf("relayed %s; want the answer to 1 and the server's ping, the late answer to x dropped", out)
	}
	if len(p.calls) > 0 || p.expired.len() > 0 || p.requests.len() != 2 {
		t.Fatalf("calls left outstanding: %v %v %v; want only the tools/list request 2 and the cancelled call 9 awaiting an answer", p.calls, p.expired, p.requests)
	}
	p.close()

	q := &proxy{notices: io.Discard}
	line := []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	if got := q.settleReplies(line); string(got) != string(line) {
		t.Fatalf("without a timeout the reply became %s", got)
	}
}

// TestProxyForgetsOldestIDs: the record of calls the proxy answered (whose
// late answer it drops) and of the client's other requests is bounded;
// past the bound the oldest is forgotten, and from then on an answer
// under an id the proxy holds no request for is dropped, so the client
// never gets a second answer for a call the proxy answered, nor an
// answer for an id it already had an error for. Answers to requests
// still held pass.
func TestProxyForgetsOldestIDs(t *testing.T) {
	var notices strings.Builder
	p := &proxy{callTimeout: time.Hour, notices: &notices, toClient: io.Discard, toServer: io.Discard, idLimit: 2}
	relayed := func(id string) bool {
		return p.settleReplies([]byte(`{"jsonrpc":"2.0","id":`+id+`,"result":{}}`)) != nil
	}
	p.track([]byte(`{"jsonrpc":"2.0","id":100,"method":"tools/list"}`))
	// Before anything is forgotten an answer under an unknown id passes,
	// as it did (a server bug the client reports).
	if !relayed("77") {
		t.Fatal("an answer under an unknown id was dropped before any id was forgotten")
	}
	for _, id := range []string{"1", "2", "3"} {
		p.track([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"a"}}`))
		p.expire("n"+id, p.calls["n"+id])
	}
	if p.expired.len() != 2 || !p.forgot {
		t.Fatalf("expired holds %d ids (forgot %v); want the 2 newest, and the oldest forgotten", p.expired.len(), p.forgot)
	}
	if relayed("1") {
		t.Fatal("the late answer to forgotten call 1 reached the client, which had the proxy's error for it")
	}
	if relayed("2") || relayed("3") {
		t.Fatal("a late answer to a call the proxy answered reached the client")
	}
	if relayed("78") {
		t.Fatal("an answer under an id with no request outstanding reached the client after an id was forgotten")
	}
	if !relayed("100") {
		t.Fatal("the answer to the client's tools/list request was dropped")
	}
	p.track([]byte(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"a"}}`))
	if !relayed("4") {
		t.Fatal("the answer to an outstanding call was dropped")
	}
	if !strings.Contains(notices.String(), "answer under id 1, for which the client has no request outstanding") {
		t.Fatalf("notices %q do not say why the answer to 1 was dropped", notices.String())
	}
	// However many calls expire, the records stay bounded.
	for i := range 1000 {
		id := strconv.Itoa(1000 + i)
		p.track([]byte(`[{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"a"}},{"jsonrpc":"2.0","id":"r` + id + `","method":"ping"}]`))
		p.expire("n"+id, p.calls["n"+id])
	}
	if p.expired.len() > 2 || len(p.expired.order) > 2*2+64 || p.requests.len() > 2 || len(p.requests.order) > 2*2+64 {
		t.Fatalf("records grew past their bound: expired %d (%d entries), requests %d (%d entries)", p.expired.len(), len(p.expired.order), p.requests.len(), len(p.requests.order))
	}
	p.close()
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
// server is sent notifications/cancelled for it. The server sends
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
	if _, err := io.WriteString(cw, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"hold","_meta":{"progressToken":5}}}`+"\n"); err != nil {
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
	if call := <-seen; !strings.Contains(call, `"tools/call"`) {
		t.Fatalf("the server first got %s; want the call", call)
	}
	if c := <-seen; !strings.Contains(c, `"notifications/cancelled"`) || !strings.Contains(c, `"requestId":5`) {
		t.Fatalf("the server got %s; want notifications/cancelled for 5", c)
	}
	if err := <-done; err != nil {
		t.Fatalf("ProxyMCP: %v", err)
	}
}
