package harness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (f *fakeClock) now() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.t }
func (f *fakeClock) add(d time.Duration) {
	f.mu.Lock()
	f.t = f.t.Add(d)
	f.mu.Unlock()
}

// codexInitialize is the start of Codex 0.171.0's initialize request, the
// one client the proxy pauses for.
const codexInitialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"codex-mcp-client","version":"0.171.0"}}}`

// lockedBuffer is a bytes.Buffer the proxy's goroutines may write to.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// TestProxyElicitationPausesCalls: while the server's elicitation/create
// request is open, every timed call of the server is paused — one made
// before it, whatever it relates to, and one made while it is open — and
// resumes with the running time it had left once the client answers
// (Codex 0.171.0's active_time_timeout). The time is a fake clock; a
// paused call has no timer at all.
func TestProxyElicitationPausesCalls(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1e9, 0)}
	p := codexProxyCalling(t, io.Discard, clk.now)
	clk.add(10 * time.Minute)
	// The method as a host decodes it: "\/" is "/".
	p.noteServerRequests([]byte(`{"jsonrpc":"2.0","id":"e1","method":"elicitation\/create","params":{"message":"name?","requestedSchema":{"type":"object","properties":{}}}}`))
	c1 := p.calls["1"]
	if c1 == nil || !c1.paused || c1.timer != nil || c1.left != 50*time.Minute {
		t.Fatalf("call 1 during the elicitation: %+v; want paused with 50m left", c1)
	}
	p.track([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b"}}`))
	if c2 := p.calls["2"]; c2 == nil || !c2.paused || c2.timer != nil || c2.left != time.Hour {
		t.Fatalf("a call made during the elicitation: %+v; want paused with its whole timeout left", c2)
	}
	clk.add(5 * time.Hour) // the person takes their time
	// Replies to other ids (a ping of the server's, say) resume nothing.
	p.noteClientReplies([]byte(`{"jsonrpc":"2.0","id":"other","result":{}}`))
	if !c1.paused {
		t.Fatal("a reply under another id resumed the calls")
	}
	p.noteClientReplies([]byte(`[{"jsonrpc":"2.0","id":"e1","result":{"action":"accept","content":{}}}]`))
	if c1.paused || c1.timer == nil || c1.left != 50*time.Minute || !c1.since.Equal(clk.now()) {
		t.Fatalf("call 1 after the answer: %+v; want running again with 50m left", c1)
	}
	if c2 := p.calls["2"]; c2.paused || c2.timer == nil || c2.left != time.Hour {
		t.Fatalf("call 2 after the answer: %+v; want running with its whole timeout", c2)
	}
	// The server may cancel its own elicitation: that ends it too.
	p.noteServerRequests([]byte(`{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{}}`))
	if !c1.paused {
		t.Fatal("a second elicitation did not pause call 1")
	}
	p.noteServerRequests([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7.0}}`))
	if c1.paused || c1.timer == nil {
		t.Fatal("the server's cancellation of its elicitation did not resume call 1")
	}
	// Only an elicitation pauses: a server's other requests do not.
	p.noteServerRequests([]byte(`{"jsonrpc":"2.0","id":8,"method":"sampling/createMessage","params":{}}`))
	p.noteServerRequests([]byte(`{"jsonrpc":"2.0","id":9,"method":"Elicitation/Create","params":{}}`))
	if c1.paused {
		t.Fatal("a request other than elicitation/create paused call 1")
	}
}

// TestProxyElicitationsDoNotExtendACall: the running time of a call adds
// up across elicitations, so a server whose elicitations the host
// answers at once cannot keep a call alive: it ends after its timeout of
// running time, at the pause that finds it spent.
func TestProxyElicitationsDoNotExtendACall(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1e9, 0)}
	var toClient lockedBuffer
	p := codexProxyCalling(t, &toClient, clk.now)
	for i := range 3 {
		clk.add(20 * time.Minute)
		p.noteServerRequests([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"elicitation/create","params":{}}`, 100+i)))
		p.noteClientReplies([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"action":"decline"}}`, 100+i)))
	}
	if p.calls["1"] != nil || p.ended.len() != 1 {
		t.Fatalf("after an hour of running time across three elicitations call 1 is still timed: %+v", p.calls["1"])
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(toClient.String()), &got); err != nil || got["id"] != float64(1) || errorCode(got) != rpcRequestTimeout {
		t.Fatalf("the client got %q; want the proxy's timeout error for call 1", toClient.String())
	}
}

// TestProxyOpenElicitationsBounded: the record of open elicitations stays
// bounded however many a server opens.
func TestProxyOpenElicitationsBounded(t *testing.T) {
	p := codexProxyCalling(t, io.Discard, nil)
	for i := range maxOpenElicitations + 500 {
		p.noteServerRequests([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"elicitation/create","params":{}}`, i)))
	}
	if len(p.elicits) > maxOpenElicitations {
		t.Fatalf("%d open elicitations held; want at most %d", len(p.elicits), maxOpenElicitations)
	}
}

// TestProxyMCPElicitationPausesCallTimer runs ProxyMCP end to end: the
// server opens an elicitation, the client makes a call while it is open
// and answers the elicitation only after several times the call's
// timeout; the proxy's timeout notice for the call must come after that
// answer, not while the person was answering. (A correct proxy cannot
// fail this on a slow machine: it does not time the call until it has
// read the answer.) The call then still ends at its timeout.
func TestProxyMCPElicitationPausesCallTimer(t *testing.T) {
	const timeout = 50 * time.Millisecond
	cr, cw := io.Pipe() // client -> proxy
	pr, pw := io.Pipe() // proxy -> client
	sr, sw := io.Pipe() // proxy -> server
	or, ow := io.Pipe() // server -> proxy
	defer func() { _ = cw.Close(); _ = pr.Close(); _ = sr.Close(); _ = ow.Close() }()
	var mu sync.Mutex
	var events []string
	log := func(s string) { mu.Lock(); events = append(events, s); mu.Unlock() }
	notices := writerFunc(func(b []byte) (int, error) {
		if strings.Contains(string(b), "passed its reviewed timeout") {
			log("timeout notice")
		}
		return len(b), nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- ProxyMCP(ctx, MCPConn{R: cr, W: pw}, MCPConn{R: or, W: sw}, MCPPolicy{CallTimeout: timeout}, notices)
	}()
	// The server reads the client's initialize (forwarded once the proxy
	// has read it), asks, and then reads and never answers.
	go func() {
		br := bufio.NewReader(sr)
		if _, err := br.ReadBytes('\n'); err != nil {
			return
		}
		_, _ = io.WriteString(ow, `{"jsonrpc":"2.0","id":"el-1","method":"elicitation/create","params":{"message":"token?","requestedSchema":{"type":"object","properties":{}}}}`+"\n")
		_, _ = io.Copy(io.Discard, br)
	}()
	if _, err := io.WriteString(cw, codexInitialize+"\n"); err != nil {
		t.Fatal(err)
	}
	lr := newLineReader(pr)
	next := func() map[string]any {
		t.Helper()
		line, _, err := lr.next()
		if err != nil {
			t.Fatalf("the client's stream ended: %v", err)
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("the client got %q", line)
		}
		return m
	}
	if el := next(); el["method"] != "elicitation/create" {
		t.Fatalf("the client got %v; want the server's elicitation", el)
	}
	if _, err := io.WriteString(cw, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow"}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(6 * timeout) // the person answering; a lower bound, not a deadline
	log("answered")
	if _, err := io.WriteString(cw, `{"jsonrpc":"2.0","id":"el-1","result":{"action":"accept","content":{}}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	if got := next(); got["id"] != float64(5) || errorCode(got) != rpcRequestTimeout {
		t.Fatalf("the client got %v; want the proxy's timeout error for call 5 after the answer", got)
	}
	mu.Lock()
	order := strings.Join(events, ", ")
	mu.Unlock()
	if order != "answered, timeout notice" {
		t.Fatalf("events %q; want the call timed out only after the elicitation was answered", order)
	}
	_ = ow.Close()
	if err := <-done; err != nil {
		t.Fatalf("ProxyMCP: %v", err)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// initializeAs is an initialize request whose clientInfo.name is name.
func initializeAs(name string) string {
	return `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"` + name + `","version":"1"}}}`
}

// askAndHold starts call id of the server's "elicit" tool and returns,
// once the client has the server's elicitation/create for it, that
// elicitation's id: "el-" and the id the call reached the server under
// (the proxy's own, when it times calls).
func (s *mcpSession) askAndHold(id string) string {
	s.t.Helper()
	el := s.call(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"elicit"}}`)
	elID, _ := el["id"].(string)
	if el["method"] != "elicitation/create" || !strings.HasPrefix(elID, "el-") {
		s.t.Fatalf("the client got %v; want the server's elicitation for call %s", el, id)
	}
	return elID
}

// wantTimeout waits for the proxy's timeout error for call id.
func (s *mcpSession) wantTimeout(id float64) {
	s.t.Helper()
	if got := s.receive(); got["id"] != id || errorCode(got) != rpcRequestTimeout {
		s.t.Fatalf("the client got %v; want the proxy's timeout error for call %v", got, id)
	}
}

// TestExecMCPElicitationPausesOnlyForCodex runs a real server behind the
// proxy: for a client that is not Codex — Claude Code and Gemini CLI, as
// their initialize names them, one the proxy does not know, one naming
// none — an open elicitation pauses nothing, because the host's own
// timer does not pause either, and a call the server holds behind an
// elicitation nobody answers ends at its timeout. (Without the rule the
// proxy waited for the answer for ever: the test's hang guard fails it.)
func TestExecMCPElicitationPausesOnlyForCodex(t *testing.T) {
	for _, init := range []string{
		initializeAs("claude-code"),
		initializeAs("gemini-cli-mcp-client"),
		initializeAs("my-client"),
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`,
	} {
		ctx, cancel := context.WithCancel(context.Background())
		s := startMCPSessionPolicy(t, ctx, MCPPolicy{CallTimeout: time.Second})
		if got := s.call(init); got["result"] == nil {
			t.Fatalf("initialize answered %v", got)
		}
		s.askAndHold("5")
		s.wantTimeout(5)
		s.close()
		cancel()
	}
}

// TestExecMCPDroppedReplyEndsPause: for Codex, whose elicitations pause
// calls, a client line the proxy does not forward cannot leave a pause on
// (a call with no timer): a line that is not JSON ends every pause, and
// a refused batch holding the answer to an elicitation ends that one and
// gives the server an error for it. Each held call then ends at its
// timeout. (Without the rule both calls wait for ever: the test's hang
// guard fails it.)
func TestExecMCPDroppedReplyEndsPause(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := startMCPSessionPolicy(t, ctx, MCPPolicy{Filter: excludeFilter, CallTimeout: time.Second})
	if got := s.call(codexInitialize); got["result"] == nil {
		t.Fatalf("initialize answered %v", got)
	}
	el5 := s.askAndHold("5")
	s.send(`{"jsonrpc":"2.0","id":"` + el5 + `","result":{"action":"accept","content":{}`) // not JSON: no answer (TestProxyAnswersNoClientLineUnderNull)
	s.wantTimeout(5)

	el6 := s.askAndHold("6")
	refused := s.receiveLineAfter(`[{"jsonrpc":"2.0","id":"` + el6 + `","result":{"action":"accept","content":{}}},{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"delete_all"}}]`)
	if !bytes.Contains(refused, []byte(`"id":9`)) || !bytes.Contains(refused, []byte(`-32602`)) {
		t.Fatalf("the batch calling a filtered tool was answered %s; want its refusal", refused)
	}
	s.wantTimeout(6)
	s.close()
	if calls := s.calls(); !slices.Contains(calls, `answer:"`+el6+`":error`) || slices.Contains(calls, `answer:"`+el5+`":result`) {
		t.Fatalf("the server saw %q; want an error for el-6 from the proxy", calls)
	}
}

// receiveLineAfter sends msg and returns the next line the client gets.
func (s *mcpSession) receiveLineAfter(msg string) []byte {
	s.t.Helper()
	s.send(msg)
	return s.receiveLine()
}

// TestExecMCPReusedIDGetsItsOwnAnswer: the proxy forwards each request
// under an id of its own, so a request reusing the id of one the proxy
// stopped awaiting — a call it answered at its timeout, a call the
// client cancelled — gets its own answer, and the late answer to the
// old one is dropped: the client gets exactly one answer under the id.
// (Before, the late answer reached the client as the new request's, or
// the new request was refused.) The server holds the calls until
// test/release answers them all, so no answer races another.
func TestExecMCPReusedIDGetsItsOwnAnswer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := startMCPSessionPolicy(t, ctx, MCPPolicy{CallTimeout: time.Second})
	if got := s.call(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`); got["result"] == nil {
		t.Fatalf("initialize answered %v", got)
	}
	if held := s.call(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"hold"}}`); held["id"] != float64(7) || errorCode(held) != rpcRequestTimeout {
		t.Fatalf("the held call was answered %v; want the proxy's timeout error", held)
	}
	s.awaitLogged("cancelled:2")
	s.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"hold"}}`)
	s.send(`{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"hold"}}`)
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c","reason":"user"}}`)
	s.send(`{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"hold"}}`)
	// The server answers all four held calls, oldest first, then the
	// release: the client gets the answers of the two live calls only.
	s.send(`{"jsonrpc":"2.0","id":8,"method":"test/release"}`)
	for i, want := range []string{"7 result", "c result", "8 result"} {
		got := s.receive()
		kind := "result"
		if got["result"] == nil {
			kind = fmt.Sprint(got["error"])
		}
		if g := fmt.Sprint(got["id"]) + " " + kind; g != want {
			t.Fatalf("answer %d: the client got %v; want %s", i+1, got, want)
		}
	}
	if echo := s.call(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo"}}`); echo["id"] != float64(9) {
		t.Fatalf("after the release the client got %v; want the answer to call 9, no late answer", echo)
	}
	s.close()
	if calls := s.calls(); !slices.Equal(calls, []string{"hold", "cancelled:2", "hold", "hold", "cancelled:4", "hold", "echo"}) {
		t.Fatalf("the server saw %q; want four held calls and the cancellations of the first (the proxy's) and the third (the client's), under the proxy's ids", calls)
	}
}

// TestNoteServerRequestsCommonPathCheap: a server line that cannot name
// elicitation/create or notifications/cancelled — one with other escapes
// ("\n", "\"") in a tool's text, the common case — is not parsed (no
// allocation), while one spelling the method with a \u escape still
// pauses.
func TestNoteServerRequestsCommonPathCheap(t *testing.T) {
	p := codexProxyCalling(t, io.Discard, nil)
	common := []byte(`{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"line one\nline \"two\"\/"}]}}`)
	if n := testing.AllocsPerRun(100, func() { p.noteServerRequests(common) }); n != 0 {
		t.Fatalf("a line naming neither method cost %v allocations; want none (no parse)", n)
	}
	p.noteServerRequests([]byte(`{"jsonrpc":"2.0","id":"e","method":"\u0065licitation\/create","params":{}}`))
	if c := p.calls["1"]; c == nil || !c.paused {
		t.Fatal(`an elicitation spelled with a \u escape did not pause the call`)
	}
	if n := testing.AllocsPerRun(100, func() { p.noteClientInit(common) }); n != 0 {
		t.Fatalf("a client line that cannot name initialize cost %v allocations; want none", n)
	}
}

// TestProxyNullIDReplyEndsPause: a client reply under id null, or an
// error with no id (its error for a message it could not read: the
// elicitation, perhaps), may answer any open elicitation, so it ends
// every pause, forwarded or dropped; the call runs again with the time
// it had left.
func TestProxyNullIDReplyEndsPause(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1e9, 0)}
	p := codexProxyCalling(t, io.Discard, clk.now)
	p.noteServerRequests([]byte(`{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{}}`))
	c := p.calls["1"]
	if c == nil || !c.paused {
		t.Fatal("the elicitation did not pause call 1")
	}
	p.noteClientReplies([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`))
	if c.paused || c.timer == nil || c.left != time.Hour {
		t.Fatalf("call 1 after the client's null-id error: %+v; want running with its whole timeout", c)
	}
	// The same in a line the proxy refuses (a batch calling a filtered
	// tool, say), and a message with neither method nor id ends nothing.
	p.noteServerRequests([]byte(`{"jsonrpc":"2.0","id":"e2","method":"elicitation/create","params":{}}`))
	p.noteClientReplies([]byte(`{"jsonrpc":"2.0","result":{}}`))
	if !c.paused {
		t.Fatal("a message with no id ended the pause")
	}
	p.noteClientDrop([]byte(`[{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}},{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"delete_all"}}]`))
	if c.paused || c.timer == nil {
		t.Fatalf("call 1 after a dropped null-id error: %+v; want running", c)
	}
	// An error with no id at all is what Codex 0.171 answers a message
	// it cannot read (agenttest TestCodexMCPProxyMalformedElicitation):
	// it too ends every pause, forwarded or dropped.
	for _, note := range []func([]byte){p.noteClientReplies, p.noteClientDrop} {
		p.noteServerRequests([]byte(`{"jsonrpc":"2.0","id":"e3","method":"elicitation/create","params":{}}`))
		if !c.paused {
			t.Fatal("elicitation e3 did not pause call 1")
		}
		note([]byte(`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request"}}`))
		if c.paused || c.timer == nil {
			t.Fatalf("call 1 after the client's error with no id: %+v; want running", c)
		}
	}
}

// TestProxyOverlongClientLineEndsPause: a client line over MaxMCPMessage
// in which the proxy finds no id may have been the answer to an open
// elicitation: it ends every pause.
func TestProxyOverlongClientLineEndsPause(t *testing.T) {
	p := codexProxyCalling(t, io.Discard, nil)
	p.noteServerRequests([]byte(`{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{}}`))
	line := append(append([]byte(`{"jsonrpc":"2.0","result":{"content":{"text":"`), bytes.Repeat([]byte("a"), MaxMCPMessage)...), `"}}}`+"\n"...)
	if err := p.pumpClient(bytes.NewReader(line)); err != nil {
		t.Fatal(err)
	}
	if c := p.calls["1"]; c == nil || c.paused || c.timer == nil {
		t.Fatalf("call 1 after an overlong client line with no id: %+v; want running", c)
	}
}

// TestProxyOverlongNullIDReplyEndsPause: a client reply over
// MaxMCPMessage under id null (the client's error for a message it could
// not read, with a long data member: the elicitation, perhaps) may answer
// any open elicitation, as a short one may: it ends every pause, and
// the last top-level id counts, so an earlier usable id in the line does
// not make it that request's answer.
func TestProxyOverlongNullIDReplyEndsPause(t *testing.T) {
	for _, head := range []string{
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error","data":"`,
		`{"jsonrpc":"2.0","id":"e1","id":null,"error":{"code":-32700,"message":"Parse error","data":"`,
	} {
		var notices strings.Builder
		p := codexProxyCalling(t, io.Discard, nil)
		p.notices = &notices
		p.noteServerRequests([]byte(`{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{}}`))
		p.noteServerRequests([]byte(`{"jsonrpc":"2.0","id":"e2","method":"elicitation/create","params":{}}`))
		line := append(append([]byte(head), bytes.Repeat([]byte("a"), MaxMCPMessage)...), `"}}`+"\n"...)
		if err := p.pumpClient(bytes.NewReader(line)); err != nil {
			t.Fatal(err)
		}
		if c := p.calls["1"]; c == nil || c.paused || c.timer == nil || p.openElicitations() != 0 {
			t.Fatalf("call 1 after an overlong client reply under id null: %+v, %d elicitations open; want it running and none open", c, p.openElicitations())
		}
		if !strings.Contains(notices.String(), "calls are timed again") {
			t.Fatalf("notices %q do not say the pause ended", notices.String())
		}
	}
}

// TestProxyLooseElicitationPausesNothing: an elicitation/create that a
// strict reader (Codex's serde) would not take for one — a repeated
// method, id, jsonrpc or params, no "jsonrpc": "2.0", params that are not
// an object, an id Codex 0.171 does not read (none spelled "id"
// exactly, a fraction, a number past 64 bits, null) — pauses no call:
// Codex would not pause its own timer for it, and a pause only the proxy
// takes leaves the call with none. Ids it reads pause, and its answer
// under the id's value ends the pause: strings, and integers within 64
// bits however written (-0, 1.0 and 1e2 it answers under 0, 1 and 100;
// agenttest TestCodexMCPProxyMalformedElicitation).
func TestProxyLooseElicitationPausesNothing(t *testing.T) {
	p := codexProxyCalling(t, io.Discard, nil)
	for _, line := range []string{
		`{"jsonrpc":"2.0","ID":"e","method":"elicitation/create","params":{}}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"elicitation/create","params":{}}`,
		`{"jsonrpc":"2.0","id":null,"method":"elicitation/create","params":{}}`,
		`{"jsonrpc":"2.0","id":9223372036854775808,"method":"elicitation/create","params":{}}`,
		`{"jsonrpc":"2.0","id":-9223372036854775809,"method":"elicitation/create","params":{}}`,
		`{"jsonrpc":"2.0","id":"e","method":"x","method":"elicitation/create","params":{}}`,
		`{"jsonrpc":"2.0","id":"e","id":"f","method":"elicitation/create","params":{}}`,
		`{"jsonrpc":"2.0","jsonrpc":"2.0","id":"e","method":"elicitation/create","params":{}}`,
		`{"jsonrpc":"2.0","id":"e","method":"elicitation/create","params":{},"params":{}}`,
		`{"id":"e","method":"elicitation/create","params":{}}`,
		`{"jsonrpc":"1.0","id":"e","method":"elicitation/create","params":{}}`,
		`{"jsonrpc":"2.0","id":"e","method":"elicitation/create"}`,
		`{"jsonrpc":"2.0","id":"e","method":"elicitation/create","params":[]}`,
	} {
		p.noteServerRequests([]byte(line))
		if c := p.calls["1"]; c == nil || c.paused {
			t.Fatalf("%s paused call 1: %+v", line, c)
		}
	}
	for _, c := range []struct{ id, answeredAs string }{
		{`"e"`, `"e"`}, {`9223372036854775807`, `9223372036854775807`}, {`-9223372036854775808`, `-9223372036854775808`},
		{`-0`, `0`}, {`1.0`, `1`}, {`1e2`, `100`}, {`-5`, `-5`},
	} {
		p.noteServerRequests([]byte(`{"jsonrpc":"2.0","id":` + c.id + `,"method":"elicitation/create","params":{}}`))
		if call := p.calls["1"]; call == nil || !call.paused {
			t.Fatalf("a well-formed elicitation under id %s did not pause call 1", c.id)
		}
		p.noteClientReplies([]byte(`{"jsonrpc":"2.0","id":` + c.answeredAs + `,"result":{"action":"decline"}}`))
		if call := p.calls["1"]; call == nil || call.paused {
			t.Fatalf("Codex's answer under %s to elicitation %s did not resume call 1", c.answeredAs, c.id)
		}
	}
}

// codexProxyCalling is a proxy timing calls for an hour, with Codex's
// initialize seen (so elicitations pause) and call 1 outstanding; its
// replies to the client go to toClient, and now, when set, is its clock.
func codexProxyCalling(t *testing.T, toClient io.Writer, now func() time.Time) *proxy {
	t.Helper()
	p := &proxy{callTimeout: time.Hour, notices: io.Discard, toClient: toClient, toServer: io.Discard, now: now}
	t.Cleanup(p.close)
	p.noteClientInit([]byte(codexInitialize))
	p.track([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}`))
	return p
}

// TestProxyClientRequestInAnyCaseEndsNoPause: a client request whose
// method is named in another letter case ("Method") is a request to the
// relay, which forwards it under an id of the proxy's own and awaits its
// answer, and to every server SDK (the TypeScript SDK's strict schemas
// read no reply without "result" or "error"; Go's decoder reads the name
// in any case as "method"): it answers no elicitation. Read as a reply,
// it closed the elicitation under the proxy's id it went under (2, an id
// the server's own requests may use too), and the calls the host still
// paused for ran on the proxy's timer.
func TestProxyClientRequestInAnyCaseEndsNoPause(t *testing.T) {
	for _, req := range []string{
		`{"jsonrpc":"2.0","id":"z","Method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"METHOD":"tools/list","params":{}}`,
		`[{"jsonrpc":"2.0","id":"z","mEthod":"ping"}]`,
	} {
		var toServer lockedBuffer
		p := codexProxyCalling(t, io.Discard, nil)
		p.toServer = &toServer
		p.noteServerRequests([]byte(`{"jsonrpc":"2.0","id":2,"method":"elicitation/create","params":{}}`))
		if err := p.pumpClient(strings.NewReader(req + "\n")); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(toServer.String(), `"id":2`) {
			t.Fatalf("the server got %q; want the request under the proxy's id 2", toServer.String())
		}
		if c := p.calls["1"]; c == nil || !c.paused || p.openElicitations() != 1 {
			t.Fatalf("after the client's request %s: call 1 %+v, %d elicitations open; want it paused, elicitation 2 open", req, c, p.openElicitations())
		}
	}
}

// TestProxyOverlongBatchNullIDReplyEndsPause: a client batch over
// MaxMCPMessage holding a reply under id null (or an error with no id)
// ends every pause, as the same batch within the limit does
// (noteClientReplies), though another message of it has an id: before,
// a request with a usable id beside it made the line "readable" and the
// pause outlived the reply.
func TestProxyOverlongBatchNullIDReplyEndsPause(t *testing.T) {
	big := strings.Repeat("a", MaxMCPMessage)
	for _, reply := range []string{
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request"}}`,
	} {
		batch := `[` + reply + `,{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"x":"` + big + `"}}]` + "\n"
		p := codexProxyCalling(t, io.Discard, nil)
		p.noteServerRequests([]byte(`{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{}}`))
		if err := p.pumpClient(strings.NewReader(batch)); err != nil {
			t.Fatal(err)
		}
		if c := p.calls["1"]; c == nil || c.paused || c.timer == nil || p.openElicitations() != 0 {
			t.Fatalf("call 1 after an overlong batch with %s: %+v, %d elicitations open; want it running, none open", reply, c, p.openElicitations())
		}
	}
}

// TestProxyDroppedRequestInAnyCaseEndsNoPause: a client message with
// "method" in another letter case that the proxy refuses (a filtered
// call, a method beside a result) was answered as a request, and is read
// as one for the pause too, as over MaxMCPMessage: it closes no
// elicitation, and the server gets no error under its id.
func TestProxyDroppedRequestInAnyCaseEndsNoPause(t *testing.T) {
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":"e1","Method":"tools/call","params":{"name":"delete_all"}}`,
		`{"jsonrpc":"2.0","id":"e1","Method":"x","result":{"action":"accept"}}`,
		`{"jsonrpc":"2.0","id":"e1","method":5}`,
	} {
		var toServer lockedBuffer
		p := codexProxyCalling(t, io.Discard, nil)
		p.filter = excludeFilter
		p.toServer = &toServer
		p.noteServerRequests([]byte(`{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{}}`))
		if err := p.pumpClient(strings.NewReader(msg + "\n")); err != nil {
			t.Fatal(err)
		}
		if c := p.calls["1"]; c == nil || !c.paused || p.openElicitations() != 1 || toServer.String() != "" {
			t.Fatalf("after the refused %s: call 1 %+v, %d elicitations open, the server got %q; want it paused, e1 open, nothing sent", msg, c, p.openElicitations(), toServer.String())
		}
	}
}

// FuzzOverlongClientLineEndsPausesAsRelayed: a client line the proxy
// scans because it is over MaxMCPMessage leaves open no elicitation the
// same line relayed within the limit (pumpClient) closes: no pause
// outlives an answer the proxy cannot pass on. It may close more (a
// line with no id it can read ends every pause). Elicitations are open
// under "e1", 2 (the proxy's id of the next request the client sends)
// and -0.
func FuzzOverlongClientLineEndsPausesAsRelayed(f *testing.F) {
	for _, s := range append(append(slices.Clone(overlongClientSeeds), overlongClientBatchSeeds...), overlongClientUnreadSeeds...) {
		f.Add([]byte(s), uint8(0))
	}
	for _, s := range deepClientSeeds {
		f.Add([]byte(s), uint8(7))
	}
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":"z","Method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"e1","Method":"x","result":{}}`,
		`[{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}},{"jsonrpc":"2.0","id":3,"method":"x"}]`,
		`[{"jsonrpc":"2.0","id":"e1","result":{}},{"jsonrpc":"2.0","id":0,"result":{}}]`,
		`{"jsonrpc":"2.0","id":2.0,"result":{}}`,
	} {
		f.Add([]byte(s), uint8(1))
	}
	f.Fuzz(func(t *testing.T, msg []byte, piece uint8) {
		if bytes.ContainsAny(msg, "\r\n") {
			return // more than one line
		}
		relayed := openAfter(t, func(p *proxy) {
			if err := p.pumpClient(bytes.NewReader(append(msg, '\n'))); err != nil {
				t.Fatal(err)
			}
		})
		if scanTooDeep(msg) != nil && utf8.Valid(msg) {
			// Nested past maxScanDepth: the relay answers it from the
			// same scan, so it is held to the relay's reading at any
			// depth instead (FuzzClientRepliesCloseAsRelayed).
			relayed = openAsRelayedAtAnyDepth(msg)
		}
		scanned := openAfter(t, func(p *proxy) {
			s := scanInPieces(msg, piece)
			p.unreadClientLine(s, lineTooLong)
		})
		for k := range scanned {
			if !relayed[k] {
				t.Fatalf("client line %q: relayed it closes elicitation %s, scanned over the limit (pieces of %d) it leaves it open", msg, k, piece)
			}
		}
	})
}

// openAfter is the elicitations of a timing proxy for Codex, open under
// "e1", 2 and -0 with call 1 paused, that are still open after f.
func openAfter(t *testing.T, f func(p *proxy)) map[string]bool {
	p := codexProxyCalling(t, io.Discard, nil)
	p.filter = excludeFilter
	for _, id := range []string{`"e1"`, `2`, `-0`} {
		p.noteServerRequests([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"elicitation/create","params":{}}`))
	}
	if p.openElicitations() != 3 {
		t.Fatalf("%d elicitations open; want 3", p.openElicitations())
	}
	f(p)
	p.callsMu.Lock()
	defer p.callsMu.Unlock()
	open := map[string]bool{}
	for k := range p.elicits {
		open[k] = true
	}
	return open
}

// TestProxyDroppedBrokenBatchEndsPause: a client line that is not JSON
// but starts as a batch of whole messages (cut short, say) ends every
// pause, as any line the proxy cannot read does: the answer to an open
// elicitation may be in what is past them. Before, the messages it
// could read were taken for the whole line, and a pause whose answer
// was cut off held on.
func TestProxyDroppedBrokenBatchEndsPause(t *testing.T) {
	for _, line := range []string{
		`[{}`,
		`[{"jsonrpc":"2.0","id":"e1","result":{}},{"jsonrpc":"2.0","id":"e2","result":{"action":"acc`,
	} {
		p := codexProxyCalling(t, io.Discard, nil)
		for _, id := range []string{`"e1"`, `"e2"`} {
			p.noteServerRequests([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"elicitation/create","params":{}}`))
		}
		if err := p.pumpClient(strings.NewReader(line + "\n")); err != nil {
			t.Fatal(err)
		}
		if c := p.calls["1"]; c == nil || c.paused || c.timer == nil || p.openElicitations() != 0 {
			t.Fatalf("after the client line %q: call 1 %+v, %d elicitations open; want it running, none open", line, c, p.openElicitations())
		}
	}
}

// FuzzClientRepliesCloseAsRelayed: the elicitation bookkeeping reads a
// client line within the limit as the relay reads it (judge and track,
// walking its members): a message with a member named "method" in any
// letter case, escapes read, is a request, forwarded under the proxy's
// id, and closes no elicitation; any other message closes the one under
// the id walkedID reads, and ends every pause when that id is one the
// proxy cannot match (null, not a string or a number) or when it has no
// id and an "error"; a line with no message object in it, or not UTF-8
// JSON, ends every pause. Forwarded or refused alike. Elicitations are
// open under "e1", 2 (the proxy's id of the client's next request) and
// -0; read as a reply, a "Method" request under the proxy's id 2 closed
// the server's elicitation 2.
func FuzzClientRepliesCloseAsRelayed(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":"z","Method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"z","\u004dethod":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"z","METHOD":5}`,
		`[{"jsonrpc":"2.0","id":"z","mEthod":"ping"},{"jsonrpc":"2.0","id":"e1","result":{}}]`,
		`{"jsonrpc":"2.0","id":"e1","Method":"x","result":{}}`,
		`{"jsonrpc":"2.0","ID":"e1","result":{"action":"decline"}}`,
		`{"jsonrpc":"2.0","id":2.0,"result":{}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}`,
		`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request"}}`,
		`{"jsonrpc":"2.0","Error":{}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"delete_all"}}`,
		`[{"jsonrpc":"2.0","id":"e1","result":{}},1]`,
		`[]`,
		`7`,
		`[{}`,
		`[{"jsonrpc":"2.0","id":"e1","result":{}},{"jsonrpc":"2.0","id":"e2"`,
	} {
		f.Add([]byte(s))
	}
	for _, s := range deepClientSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.ContainsAny(line, "\r\n") || len(bytes.TrimSpace(line)) == 0 {
			return // more than one line, or none
		}
		got := openAfter(t, func(p *proxy) {
			if err := p.pumpClient(bytes.NewReader(append(line, '\n'))); err != nil {
				t.Fatal(err)
			}
		})
		if scanTooDeep(line) != nil {
			// Nested past maxScanDepth: no JSON to encoding/json, read by
			// the scan as a line over the limit, which may end more
			// pauses than the relay's reading with no depth limit
			// (a reply with no id it keeps ends every one), never fewer.
			want := openAsRelayedAtAnyDepth(line)
			for k := range got {
				if !want[k] {
					t.Fatalf("client line %q nested past %d levels leaves elicitation %s open; read as the relay reads it at any depth, it closes it", line, maxScanDepth, k)
				}
			}
			return
		}
		want := openAsRelayed(line)
		if !maps.Equal(got, want) {
			t.Fatalf("client line %q leaves elicitations %v open; read as the relay reads it, %v", line, slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
		}
	})
}

// deepClientSeeds are client lines nested one level past maxScanDepth
// (the message and its result or params among the levels), which the
// proxy answers from its scan (scanTooDeep): a reply to elicitation e1,
// one under 2.0 (the proxy's id 2), a request under "e1", which closes
// none, an error under null and a reply with no id, which end every
// pause, and a batch of a reply and a request.
var deepClientSeeds = func() []string {
	deep := strings.Repeat("[", maxScanDepth-1) + strings.Repeat("]", maxScanDepth-1) // inside an object: one level past
	return []string{
		`{"jsonrpc":"2.0","id":"e1","result":{"x":` + deep + `}}`,
		`{"jsonrpc":"2.0","result":{"x":` + deep + `},"id":2.0}`,
		`{"jsonrpc":"2.0","id":"e1","method":"x","params":{"x":` + deep + `}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m","data":` + deep + `}}`,
		`{"jsonrpc":"2.0","result":{"x":` + deep + `}}`,
		`[{"jsonrpc":"2.0","id":"e1","result":{}},{"jsonrpc":"2.0","id":3,"method":"x","params":` + deep + `}]`,
	}
}()

// openAsRelayedAtAnyDepth is openAsRelayed for a line nested past
// maxScanDepth, which encoding/json does not read: as the relay would
// read it were there no depth limit (the walk has none), when the scan
// reads it as whole JSON; none open otherwise.
func openAsRelayedAtAnyDepth(line []byte) map[string]bool {
	if s := scanTooDeep(line); s == nil || !utf8.Valid(line) {
		return map[string]bool{}
	}
	return openOfObjects(line)
}

// openAsRelayed is the elicitations of openAfter a client line leaves
// open, read as judge and track read it (walkMembers, nameFolds,
// walkedID).
func openAsRelayed(line []byte) map[string]bool {
	if !utf8.Valid(line) || !json.Valid(line) {
		return map[string]bool{}
	}
	return openOfObjects(line)
}

// openOfObjects is openAsRelayed of line, whole JSON: the elicitations
// left open by its message objects, read as judge and track read them.
func openOfObjects(line []byte) map[string]bool {
	open := map[string]bool{`se1`: true, `n2`: true, `n0`: true}
	none := map[string]bool{}
	var objs [][]byte
	switch firstByte(line) {
	case '{':
		objs = append(objs, line)
	case '[':
		forElements(line, func(v span) bool {
			if e := line[v.start:v.end]; firstByte(e) == '{' {
				objs = append(objs, e)
			}
			return true
		})
	}
	if len(objs) == 0 {
		return none
	}
	for _, obj := range objs {
		ms := walkMembers(obj, nil)
		request, hasError := false, false
		for _, m := range ms {
			request = request || nameFolds(m.name, "method")
			hasError = hasError || nameIs(m.name, "error")
		}
		if request {
			continue
		}
		id := walkedID(ms)
		key, ok := idKey(id)
		switch {
		case id == nil && hasError, id != nil && !ok:
			return none
		case ok:
			delete(open, key)
		}
	}
	return open
}
