package harness

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

// TestProxySettlesOnlyAnswersHostsRead: a server reply under a call's id
// not of the strict shape {"jsonrpc":"2.0","id":…,"result":{…}} (or
// "error" with a code and a message), nothing else, is no answer to at
// least one of Claude Code 2.1.332, Codex 0.171.0 and Gemini CLI 0.61.0
// (agenttest TestHostsMCPProxyReplyShapes: no host reads "Result", a
// reply with a method or one without "jsonrpc", Claude Code and Gemini
// CLI none with another member, Codex and Gemini CLI none with both a
// result and an error, nor {"id":1}): it is dropped and the call stays
// timed, so the host gets the proxy's error at the reviewed timeout, not
// its own much later. A reply whose result and version are written
// with escapes, which every JSON reader unescapes, settles.
func TestProxySettlesOnlyAnswersHostsRead(t *testing.T) {
	var notices strings.Builder
	p := timedProxy(t, io.Discard, io.Discard, &notices)
	p.track([]byte(`{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"a"}}`))
	for _, reply := range []string{
		`{"jsonrpc":"2.0","id":1}`,
		`{"jsonrpc":"2.0","id":1,"Result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":1,"ERROR":{"code":1,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"x/y","result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":1,"Method":"x/y","error":{"code":1,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":1,"x":{}}`,
		`{"jsonrpc":"2.0","id":1,"x":1,"result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":1,"ID":1,"result":{"content":[]}}`,
		`{"id":1,"result":{"content":[]}}`,
		`{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
		`{"jsonrpc":"1.0","id":1,"result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"},"result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":1,"result":"done"}`,
		`{"jsonrpc":"2.0","id":1,"error":{"message":"m"}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":2}}`,
		// Codex reads the code into an i32, the TypeScript SDK's hosts
		// only a safe integer; Codex takes no error object repeating a
		// member; the TypeScript SDK's hosts no result whose _meta is
		// not an object.
		`{"jsonrpc":"2.0","id":1,"error":{"code":2147483648,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-2147483649,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":9007199254740993,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"first","message":"m"}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"code":2,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","data":1,"d\u0061ta":2}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"_meta":1,"content":[]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"_meta":null,"content":[]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"_meta":{},"\u005fmeta":[],"content":[]}}`,
		// Codex reads no code written with a fraction or an exponent,
		// Gemini CLI no result that is not an object (Claude Code and
		// the other answered each at once).
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32000.0,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-3.2e4,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":1,"result":[]}`,
		`{"jsonrpc":"2.0","id":1,"result":null}`,
		// Codex's serde_json reads nothing nested 128 deep.
		`{"jsonrpc":"2.0","id":1,"result":{"x":` + strings.Repeat("[", 126) + strings.Repeat("]", 126) + `}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","data":` + strings.Repeat(`{"a":`, 126) + `1` + strings.Repeat("}", 126) + `}}`,
	} {
		if out := p.settleReplies([]byte(reply)); out != nil {
			t.Errorf("the server's %s was relayed as %s; want it dropped", reply, out)
		}
		if c := p.calls["1"]; c == nil || c.timer == nil {
			t.Fatalf("after the server's %s call c1 is no longer timed", reply)
		}
	}
	if !strings.Contains(notices.String(), `dropped the server's reply under id 1: not {"jsonrpc":"2.0","id":…,"result":{…}} or {"jsonrpc":"2.0","id":…,"error":{"code":…,"message":…}}, with no other member, which is all every host reads as an answer`) {
		t.Errorf("notices %q do not say why the replies were dropped", notices.String())
	}
	in := `{"id":1,"\u0072esult":{"content":[]},"jsonrpc":"2\u002e0"}`
	if out := string(p.settleReplies([]byte(in))); out != `{"id":"c1","\u0072esult":{"content":[]},"jsonrpc":"2\u002e0"}` || p.calls["1"] != nil {
		t.Errorf("the server's %s was relayed as %s, calls %v; want call c1's answer", in, out, p.calls)
	}
	for i, in := range []string{
		`{"jsonrpc":"2.0","id":2,"result":{"_meta":{"k":1},"content":[],"Meta":1}}`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":-2147483648,"message":"m","data":{"x":1},"Code":"x"}}`,
		`{"jsonrpc":"2.0","id":4,"error":{"code":2147483647,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":5,"result":{}}`,
		`{"jsonrpc":"2.0","id":6,"result":{"x":` + strings.Repeat("[", 125) + `"[[[{{{"` + strings.Repeat("]", 125) + `}}`,
	} {
		id := fmt.Sprintf("c%d", i+2)
		p.track([]byte(`{"jsonrpc":"2.0","id":"` + id + `","method":"tools/call","params":{"name":"a"}}`))
		if out := p.settleReplies([]byte(in)); !bytes.Contains(out, []byte(`"id":"`+id+`"`)) {
			t.Errorf("the server's %s was relayed as %s; want call %s's answer", in, out, id)
		}
	}
}

// TestProxyRelaysServerBatchOneLineEach: a server batch within the limit
// reaches the client one message a line, each reply in it settled as
// one alone: none of Claude Code 2.1.332, Codex 0.171.0 and Gemini CLI
// 0.61.0 reads a batch (agenttest TestHostsMCPProxyReplyShapes, modes
// batch and batch-with-notice). Relayed whole, as before, the answer to
// call c1 in it stopped the call's timer while no host saw the answer,
// and each host ran to its own 30 s, not the reviewed 2 s. An element
// that is not an object is dropped, with a notice; an empty batch
// relays nothing.
func TestProxyRelaysServerBatchOneLineEach(t *testing.T) {
	var toClient, notices lockedBuffer
	p := timedProxy(t, &toClient, io.Discard, &notices)
	p.track([]byte(`{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"a"}}`))
	p.track([]byte(`{"jsonrpc":"2.0","id":"l1","method":"tools/list"}`))
	batch := `[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}},` +
		`{"jsonrpc":"2.0","id":1,"result":{"content":[]}},2,` +
		`{"jsonrpc":"2.0","id":2,"result":{"tools":[]}},{"jsonrpc":"2.0","id":1,"result":{"content":["late"]}},` +
		`{"jsonrpc":"2.0","id":"s1","method":"roots/list"}]` + "\n[]\n"
	if err := p.pumpServer(strings.NewReader(batch)); err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}` + "\n" +
		`{"jsonrpc":"2.0","id":"c1","result":{"content":[]}}` + "\n" +
		`{"jsonrpc":"2.0","id":"l1","result":{"tools":[]}}` + "\n" +
		`{"jsonrpc":"2.0","id":"s1","method":"roots/list"}` + "\n"
	if got := toClient.String(); got != want {
		t.Errorf("the server's batch reached the client as\n%s\nwant one message a line, the second answer to c1 dropped:\n%s", got, want)
	}
	if len(p.calls) != 0 || p.others.len() != 0 {
		t.Errorf("requests still awaited: calls %v, others %v", p.calls, p.others.m)
	}
	for _, n := range []string{"dropped from a server batch 1 of its elements, which are not message objects", "dropped an empty server batch", "dropped the server's answer under id 1"} {
		if !strings.Contains(notices.String(), n) {
			t.Errorf("notices %q do not say %q", notices.String(), n)
		}
	}
}

// TestProxyRelaysBatchedElicitationToCodex: an elicitation/create in a
// server batch pauses a Codex client's calls, as Codex pauses its own
// while it shows one; it reaches Codex as a line of its own, which Codex
// reads and answers (agenttest TestCodexMCPProxyMalformedElicitation,
// mode batched: it declines it headless). Relayed whole, as before, the
// proxy paused for an elicitation Codex never saw: Codex 0.171.0
// answered the batch with -32600 and no id, which ends every pause, so
// the calls were timed again; a client that says nothing to a line it
// cannot read would have left them paused.
func TestProxyRelaysBatchedElicitationToCodex(t *testing.T) {
	var toClient lockedBuffer
	p := timedProxy(t, &toClient, io.Discard, io.Discard)
	p.noteClientInit([]byte(codexInitialize))
	p.track([]byte(`{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"a"}}`))
	elicit := `{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"ok?","requestedSchema":{"type":"object","properties":{}}}}`
	if err := p.pumpServer(strings.NewReader("[" + elicit + "]\n")); err != nil {
		t.Fatal(err)
	}
	if got := toClient.String(); got != elicit+"\n" {
		t.Errorf("Codex got %q; want the elicitation as a line of its own", got)
	}
}
