package harness

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/internal/jsonobj"
)

// timedProxy is a proxy timing calls for an hour whose client and server
// writes go to toClient and toServer, and its notices to notices.
func timedProxy(t *testing.T, toClient, toServer, notices io.Writer) *proxy {
	t.Helper()
	p := &proxy{callTimeout: time.Hour, toClient: toClient, toServer: toServer, notices: notices}
	t.Cleanup(p.close)
	return p
}

// TestProxyRewritesRequestIDs: a proxy timing calls forwards every client
// request under an id of its own, 1, 2, 3 …, changing no other byte
// (params, the progress token in them, white space, member order), and
// every member named id in any letter case, so that every reader of the
// line sees the proxy's id; it puts the client's id, as the client wrote
// it, back on the server's answer, whatever form of the number the
// server writes (2.0). Notifications, the client's replies to the
// server's requests, and the server's own requests keep their ids.
func TestProxyRewritesRequestIDs(t *testing.T) {
	p := timedProxy(t, io.Discard, io.Discard, io.Discard)
	for _, c := range []struct{ in, out string }{
		{`{"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{"name":"x","arguments":{"id":7,"s":"\"id\":9"},"_meta":{"progressToken":"a-1"}}}`,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"id":7,"s":"\"id\":9"},"_meta":{"progressToken":"a-1"}}}`},
		{` { "id" : 1.0 , "ID":"x", "method":"tools/list" } `, ` { "id" : 2 , "ID":2, "method":"tools/list" } `},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{`{"jsonrpc":"2.0","id":"el-1","result":{"action":"decline"}}`, `{"jsonrpc":"2.0","id":"el-1","result":{"action":"decline"}}`},
		{`[{"jsonrpc":"2.0","id":9,"method":"ping"},{"jsonrpc":"2.0","method":"x"},{"jsonrpc":"2.0","id":"s1","result":{}}]`,
			`[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","method":"x"},{"jsonrpc":"2.0","id":"s1","result":{}}]`},
	} {
		if got := string(p.track([]byte(c.in))); got != c.out {
			t.Errorf("the client's\n\t%s\nwas forwarded as\n\t%s\nwant\n\t%s", c.in, got, c.out)
		}
	}
	for _, c := range []struct{ in, out string }{
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`, `{"jsonrpc":"2.0","id":"a-1","result":{"content":[]}}`},
		{`{"jsonrpc":"2.0","id":2.0,"error":{"code":1,"message":"m"}}`, `{"jsonrpc":"2.0","id":1.0,"error":{"code":1,"message":"m"}}`},
		{`{"jsonrpc":"2.0","id":"s2","method":"sampling/createMessage","params":{}}`, `{"jsonrpc":"2.0","id":"s2","method":"sampling/createMessage","params":{}}`},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"a-1","progress":1}}`, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"a-1","progress":1}}`},
		{`{"jsonrpc":"2.0","id":3,"result":{}}`, `{"jsonrpc":"2.0","id":9,"result":{}}`},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"p"}}`, ``}, // answers no request of the client's: dropped
	} {
		if got := string(p.settleReplies([]byte(c.in))); got != c.out {
			t.Errorf("the server's\n\t%s\nwas relayed as\n\t%s\nwant\n\t%s", c.in, got, c.out)
		}
	}
	if len(p.calls) != 0 || p.others.len() != 0 || len(p.byClient) != 0 {
		t.Fatalf("requests still awaited after their answers: calls %v, others %v, by client %v", p.calls, p.others.m, p.byClient)
	}
}

// TestProxyDropsAnswersNoRequestAwaits: with its own ids toward the
// server, the proxy relays a server reply only as the answer to a request
// it awaits: a second answer, an answer under an id it never sent (0, a
// string, a fraction, one past the last), and a late answer to a call it
// answered are dropped, each with a notice naming why.
func TestProxyDropsAnswersNoRequestAwaits(t *testing.T) {
	var notices strings.Builder
	p := timedProxy(t, io.Discard, io.Discard, &notices)
	p.track([]byte(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"a"}}`))
	p.track([]byte(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"b"}}`))
	p.expire("2", p.calls["2"])
	if out := p.settleReplies([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)); string(out) != `{"jsonrpc":"2.0","id":5,"result":{}}` {
		t.Fatalf("the answer to call 5 was relayed as %s", out)
	}
	for _, reply := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":0,"result":{}}`,
		`{"jsonrpc":"2.0","id":"1","result":{}}`,
		`{"jsonrpc":"2.0","id":1.5,"result":{}}`,
		`{"jsonrpc":"2.0","id":3,"result":{}}`,
		`{"jsonrpc":"2.0","id":2,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","result":{}}`,
		`{"jsonrpc":"2.0","id":7,"result":{}}`,
	} {
		if out := p.settleReplies([]byte(reply)); out != nil {
			t.Errorf("the server's %s was relayed as %s; want it dropped", reply, out)
		}
	}
	if !strings.Contains(notices.String(), "late answer to tool call 6, which the proxy answered when it passed its timeout") {
		t.Errorf("notices %q do not name call 6's late answer", notices.String())
	}
	if !strings.Contains(notices.String(), `answer under id "1", which bundlectl's MCP proxy never sent or no longer awaits`) {
		t.Errorf("notices %q do not say why the answer under \"1\" was dropped", notices.String())
	}
}

// TestProxyDropsNullIDReplies: a server reply under id null — its error
// for a message it could not read — answers no request the client sent
// (the proxy forwards only what it read, under ids of its own): it is
// dropped with a notice, and the call awaited stays timed. Relayed, it
// kept Codex 0.171.0 from starting the server when it came before the
// initialize answer (agenttest TestHostsMCPNullIDErrorEndsNoRequest).
func TestProxyDropsNullIDReplies(t *testing.T) {
	var notices strings.Builder
	p := timedProxy(t, io.Discard, io.Discard, &notices)
	p.track([]byte(`{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"a"}}`))
	for _, reply := range []string{
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		` { "id" : null , "jsonrpc":"2.0","result":{}}`,
	} {
		if out := p.settleReplies([]byte(reply)); out != nil {
			t.Errorf("the server's %s was relayed as %s; want it dropped", reply, out)
		}
	}
	if p.calls["1"] == nil || p.calls["1"].timer == nil {
		t.Fatalf("call 0 is no longer timed after replies under null: %v", p.calls)
	}
	if !strings.Contains(notices.String(), "dropped the server's reply under id null") {
		t.Errorf("notices %q do not say the reply under null was dropped", notices.String())
	}
}

// TestProxyDropsNullIDRepliesUntimed: a proxy that only filters tools
// (no per-call timeout) passes the client's ids on and settles nothing,
// but a server reply under id null answers no request of the client's
// there either (the proxy forwards only lines it read), and relayed
// before the initialize answer it kept real Codex 0.171.0 from starting
// the server (agenttest TestHostsMCPNullIDFilterOnly): it is dropped
// with a notice, as the timing proxy drops it, in a batch too, while
// the server's requests and notifications under null, and a reply whose
// last id (the one JSON.parse reads) is not null, pass as before. It
// relayed every one of them.
func TestProxyDropsNullIDRepliesUntimed(t *testing.T) {
	var toClient, notices strings.Builder
	p := &proxy{filter: excludeFilter, notices: &notices, toClient: &toClient, toServer: io.Discard}
	server := strings.Join([]string{
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		` { "id" : null , "jsonrpc":"2.0","result":{}}`,
		`{"jsonrpc":"2.0","id":1,"id":null,"result":{}}`,
		`{"jsonrpc":"2.0","id":null}`,
		`[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}},{"jsonrpc":"2.0","id":2,"result":{"null":null}}]`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":null}}`,
		`{"jsonrpc":"2.0","id":null,"id":3,"result":{}}`,
		`{"jsonrpc":"2.0","ID":null,"result":{}}`,
	}, "\n") + "\n"
	if err := p.pumpServer(strings.NewReader(server)); err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":2,"result":{"null":null}}` + "\n" +
		`{"jsonrpc":"2.0","id":null,"method":"ping"}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":null}}` + "\n" +
		`{"jsonrpc":"2.0","id":null,"id":3,"result":{}}` + "\n" +
		`{"jsonrpc":"2.0","ID":null,"result":{}}` + "\n"
	if toClient.String() != want {
		t.Errorf("the client got\n%s\nwant\n%s", toClient.String(), want)
	}
	if n := strings.Count(notices.String(), "dropped the server's reply under id null"); n != 5 {
		t.Errorf("notices %q say %d replies under null were dropped; want 5", notices.String(), n)
	}
}

// TestProxyReusedIDsGetTheirOwnAnswers drives the cases the client's own
// ids left open: a request reusing the id of a call the proxy answered
// at its timeout (however long ago: the record of it is bounded, here to
// 2), or of a call the client cancelled, reaches the server under a new
// id, and the old call's late answer is dropped, never taken for the new
// request's.
func TestProxyReusedIDsGetTheirOwnAnswers(t *testing.T) {
	var toServer bytes.Buffer
	p := timedProxy(t, io.Discard, &toServer, io.Discard)
	p.idLimit = 2
	call := func(id string) string { // the proxy's id for it
		p.track([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"a"}}`))
		return strconv.FormatUint(p.nextID, 10)
	}
	answer := func(pk string) []byte {
		return p.settleReplies([]byte(`{"jsonrpc":"2.0","id":` + pk + `,"result":{}}`))
	}
	first := call("7")
	p.expire(first, p.calls[first])
	for i := range 5 { // the proxy forgets call 7 ever was
		pk := call(strconv.Itoa(100 + i))
		p.expire(pk, p.calls[pk])
	}
	if p.ended.len() > 2 {
		t.Fatalf("the record of ended requests holds %d; want at most 2", p.ended.len())
	}
	reused := call("7")
	if out := answer(first); out != nil {
		t.Fatalf("the late answer to the forgotten call 7 was relayed as %s", out)
	}
	if out := answer(reused); string(out) != `{"jsonrpc":"2.0","id":7,"result":{}}` {
		t.Fatalf("the reused id 7's own answer was relayed as %s", out)
	}

	cancelled := call(`"c"`)
	out := p.track([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c","reason":"user"}}`))
	if want := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + cancelled + `,"reason":"user"}}`; string(out) != want {
		t.Fatalf("the client's cancellation was forwarded as %s; want %s", out, want)
	}
	again := call(`"c"`)
	if out := answer(cancelled); out != nil {
		t.Fatalf("the answer to the cancelled call c was relayed as %s", out)
	}
	if out := answer(again); string(out) != `{"jsonrpc":"2.0","id":"c","result":{}}` {
		t.Fatalf("the reused id c's own answer was relayed as %s", out)
	}
}

// TestProxyCancellationsMapOrDrop: a client's notifications/cancelled
// reaches the server only naming the proxy's id of a request it awaits
// (every requestId member, in any letter case, of every params): one
// naming an id no request awaits — answered already, never sent — or
// naming two requests is dropped, since passed on the client's id could
// be another request's at the server. Inside a batch only it is dropped.
func TestProxyCancellationsMapOrDrop(t *testing.T) {
	var notices strings.Builder
	p := timedProxy(t, io.Discard, io.Discard, &notices)
	p.track([]byte(`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}},{"jsonrpc":"2.0","id":2,"method":"ping"}]`))
	if out := p.settleReplies([]byte(`{"jsonrpc":"2.0","id":2,"result":{}}`)); string(out) != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Fatalf("ping's answer relayed as %s", out)
	}
	for _, c := range []struct{ in, out string }{
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`, ``},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`, ``},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"RequestID":2}}`, ``},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"no id"}}`, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"no id"}}`},
		{`[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}},{"jsonrpc":"2.0","id":4,"method":"ping"}]`, `[{"jsonrpc":"2.0","id":3,"method":"ping"}]`},
		{`{"jsonrpc":"2.0","method":"Notifications/Cancelled","params":{"requestId":1.0,"requestid":1},"Params":{"requestId":1}}`,
			`{"jsonrpc":"2.0","method":"Notifications/Cancelled","params":{"requestId":1,"requestid":1},"Params":{"requestId":1}}`},
	} {
		if got := string(p.track([]byte(c.in))); got != c.out {
			t.Errorf("the client's\n\t%s\nwas forwarded as\n\t%q\nwant\n\t%q", c.in, got, c.out)
		}
	}
	if len(p.calls) != 0 || p.others.len() != 1 {
		t.Fatalf("awaited after the cancellations: calls %v, others %v; want only ping 4 (the proxy's 3)", p.calls, p.others.m)
	}
	if !strings.Contains(notices.String(), "dropped the client's notifications/cancelled") {
		t.Fatalf("notices %q say nothing of the dropped cancellations", notices.String())
	}
}

// TestProxyAwaitsBoundedRequests: the client's requests other than calls
// that the proxy awaits are bounded; past the bound the oldest is
// answered by the proxy with an error under its id and cancelled at the
// server under the proxy's id, so nobody waits for an answer the proxy
// would drop, and its answer, should it come, is dropped.
func TestProxyAwaitsBoundedRequests(t *testing.T) {
	var toClient, toServer lockedBuffer
	p := timedProxy(t, &toClient, &toServer, io.Discard)
	p.idLimit = 2
	for _, id := range []string{`"a"`, `"b"`, `"c"`} {
		p.track([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"resources/read","params":{}}`))
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(toClient.String()), &got); err != nil || got["id"] != "a" || errorCode(got) != rpcInternalError {
		t.Fatalf("the client got %q; want the proxy's error for the oldest request, a", toClient.String())
	}
	if !strings.Contains(toServer.String(), `"notifications/cancelled"`) || !strings.Contains(toServer.String(), `"requestId":1`) {
		t.Fatalf("the server got %q; want the cancellation of 1, a's id there", toServer.String())
	}
	if out := p.settleReplies([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)); out != nil {
		t.Fatalf("the answer to a, which the proxy answered, was relayed as %s", out)
	}
	if out := p.settleReplies([]byte(`{"jsonrpc":"2.0","id":3,"result":{}}`)); string(out) != `{"jsonrpc":"2.0","id":"c","result":{}}` {
		t.Fatalf("c's answer was relayed as %s", out)
	}
}

// TestJudgeRefusesRequestsItCannotMap: with its own ids toward the
// server, the proxy refuses a request whose id it could not put back
// (not a string or a number, which MCP requires; over maxIDLen bytes),
// a message with a method and a result, which the server may read as a
// reply to a request of its own under the proxy's id, and a
// notifications/cancelled with an id, whose requestId (the client's id,
// not mapped) a server reading it as the notification would take for
// another request's proxy id. Without a
// call timeout it changes no id and refuses none of them.
func TestJudgeRefusesRequestsItCannotMap(t *testing.T) {
	long := `"` + strings.Repeat("x", maxIDLen) + `"`
	for _, c := range []struct {
		line string
		id   any
	}{
		{`{"jsonrpc":"2.0","id":null,"method":"tools/list"}`, nil},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, nil},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, nil},
		{`{"jsonrpc":"2.0","id":` + long + `,"method":"ping"}`, strings.Trim(long, `"`)},
		{`{"jsonrpc":"2.0","id":3,"method":"ping","result":{}}`, float64(3)},
		{`{"jsonrpc":"2.0","id":3,"method":"ping","Error":{}}`, float64(3)},
		{`{"jsonrpc":"2.0","id":3,"method":"notifications/cancelled","params":{"requestId":1}}`, float64(3)},
	} {
		var notices bytes.Buffer
		p := timedProxy(t, io.Discard, io.Discard, &notices)
		fwd, reply, _ := p.fromClient([]byte(c.line))
		if c.id == nil {
			// No id an error could go under: no error, a notice
			// (TestProxyAnswersNoClientLineUnderNull).
			if fwd || reply != nil || !strings.Contains(notices.String(), "its id is not a string or a number") {
				t.Errorf("%.80s: forwarded %v, answered %s, noticed %q; want refused with no answer, and a notice", c.line, fwd, reply, notices.String())
			}
			continue
		}
		var got map[string]any
		if fwd || json.Unmarshal(reply, &got) != nil || got["id"] != c.id || errorCode(got) != rpcInvalidRequest {
			t.Errorf("%.80s: forwarded %v, answered %s; want refused with -32600 under %v", c.line, fwd, reply, c.id)
		}
		untimed := &proxy{notices: io.Discard}
		if fwd, reply, _ := untimed.fromClient([]byte(c.line)); !fwd {
			t.Errorf("%.80s: refused (%s) by a proxy that does not time calls", c.line, reply)
		}
	}
}

// TestIDKeyNegativeZero: -0 is the id 0 to every reader that takes it:
// JavaScript (Claude Code, Gemini CLI; MCP TypeScript SDK servers), whose
// Map keys and Number() make -0 and 0 one and whose JSON.stringify
// writes -0 as 0; Python's int; Go's int64; and Codex 0.171, which
// answers an elicitation sent under -0 under 0
// (TestCodexMCPProxyMalformedElicitation). So a client's cancellation
// naming 0 cancels its request -0.
func TestIDKeyNegativeZero(t *testing.T) {
	zero, _ := idKey(json.RawMessage("0"))
	for _, id := range []string{"-0", "-0.0", "0.0", "-0e3", "0E-2", " -0 "} {
		if k, ok := idKey(json.RawMessage(id)); !ok || k != zero {
			t.Errorf("idKey(%s) = %q; want %q, 0's", id, k, zero)
		}
	}
	for _, id := range []string{`"0"`, `"-0"`, "1", "-1"} {
		if k, _ := idKey(json.RawMessage(id)); k == zero {
			t.Errorf("idKey(%s) = %q, 0's", id, k)
		}
	}
	p := timedProxy(t, io.Discard, io.Discard, io.Discard)
	p.track([]byte(`{"jsonrpc":"2.0","id":-0,"method":"tools/call","params":{"name":"a"}}`))
	if out := p.track([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":0}}`)); !bytes.Contains(out, []byte(`"requestId":1`)) {
		t.Fatalf("the cancellation of 0 was forwarded as %s; want it naming 1, the proxy's id of call -0", out)
	}
	if len(p.calls) != 0 {
		t.Fatalf("call -0 is still timed after the client cancelled it as 0")
	}
}

// FuzzMCPWalk: forMembers and forElements, which read the proxy's lines
// without decoding them, find exactly the members and elements
// encoding/json finds in every valid JSON value, with the same names and
// values; on any other input they stop without panicking.
func FuzzMCPWalk(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, ` { "a" : [1, {"b":"}"}], "\u0069d" : "x\"y" , "c":null} `,
		`[{"id":1},2,"3",[4],true]`, `{"a":1,"a":-2.5e3}`, `{"a"`, `{"a":}`, `[1,`, `"x"`, `{"a":"\\"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var got []string
		forMembers(b, func(name []byte, v span) bool {
			n, _ := jsonString(append(append([]byte{'"'}, name...), '"'))
			got = append(got, n+"="+string(b[v.start:v.end]))
			return true
		})
		forElements(b, func(v span) bool {
			got = append(got, string(b[v.start:v.end]))
			return true
		})
		if !json.Valid(b) {
			return // anything, but no panic
		}
		var want []string
		if ms, ok := jsonobj.Members(b); ok {
			for _, m := range ms {
				want = append(want, m.Key+"="+string(m.Val))
			}
		}
		if es, ok := arrayElements(b); ok {
			for _, e := range es {
				want = append(want, string(e))
			}
		}
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Fatalf("walk of %q found\n%q\nencoding/json\n%q", b, got, want)
		}
	})
}

// TestProxyTimesACallItsAnswerHidesFrom: a server reply the hosts do not
// read as the answer under one id — its only id member in another letter
// case (JSON.parse and serde read "id" alone), or "id" written twice
// (serde refuses the message) — does not end the call the proxy times:
// it is dropped, and the call still ends at its timeout. Settled, it
// stopped the call's timer while the host never saw an answer, so a
// server could make a call outlive its reviewed timeout (Claude Code's
// own wait is about 28 hours). A reply under id null whose other id
// members name a proxy id is dropped, as every reply under null is
// (TestProxyDropsNullIDReplies), and settles nothing.
func TestProxyTimesACallItsAnswerHidesFrom(t *testing.T) {
	var notices strings.Builder
	p := timedProxy(t, io.Discard, io.Discard, &notices)
	p.track([]byte(`{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"a"}}`))
	p.track([]byte(`{"jsonrpc":"2.0","id":"c2","method":"tools/call","params":{"name":"a"}}`))
	for _, reply := range []string{
		`{"jsonrpc":"2.0","ID":1,"result":{}}`,
		`{"jsonrpc":"2.0","Id":1,"error":{"code":1,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":1,"\u0069d":2,"result":{}}`,
		`{"jsonrpc":"2.0","iD":2,"result":{}}`,
	} {
		if out := p.settleReplies([]byte(reply)); out != nil {
			t.Errorf("the server's %s was relayed as %s; want it dropped", reply, out)
		}
	}
	if len(p.calls) != 2 || p.calls["1"] == nil || p.calls["2"] == nil || p.calls["1"].timer == nil {
		t.Fatalf("calls timed after replies no host reads as their answers: %v; want both, timers running", p.calls)
	}
	if !strings.Contains(notices.String(), "dropped the server's reply with no member named exactly id, or more than one") {
		t.Errorf("notices %q do not say why the replies were dropped", notices.String())
	}
	in := `{"jsonrpc":"2.0","id":null,"ID":1,"error":{"code":-32700,"message":"p"}}`
	if out := p.settleReplies([]byte(in)); out != nil || p.calls["1"] == nil {
		t.Errorf("the server's %s was relayed as %s; want it dropped, call 1 still timed", in, out)
	}
	if out := p.settleReplies([]byte(`{"jsonrpc":"2.0","id":1,"ID":2,"result":{}}`)); out != nil || p.calls["1"] == nil {
		t.Errorf("a reply with an ID member besides its id, no host's answer (TestProxySettlesOnlyAnswersHostsRead), was relayed as %s", out)
	}
	if out := string(p.settleReplies([]byte(`{"jsonrpc":"2.0","\u0069d":1,"result":{}}`))); out != `{"jsonrpc":"2.0","\u0069d":"c1","result":{}}` {
		t.Errorf("call c1's answer was relayed as %s", out)
	}
}
