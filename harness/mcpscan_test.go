package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bundlectl/bundlectl/internal/jsonobj"
)

// scanAll scans msg in pieces of n bytes (all at once when n <= 0).
func scanAll(msg []byte, n int) (json.RawMessage, msgKind, bool) {
	var s msgScanner
	s.reset()
	if n <= 0 {
		n = len(msg) + 1
	}
	for len(msg) > 0 {
		k := min(n, len(msg))
		s.write(msg[:k])
		msg = msg[k:]
	}
	return s.message()
}

func TestMsgScanner(t *testing.T) {
	long := strings.Repeat("a", 100<<10)
	for _, c := range []struct {
		msg  string
		id   string // "" for none
		kind msgKind
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{"x":"aaa"}}`, "7", msgReply},
		{`{"jsonrpc":"2.0","result":{"x":"` + long + `"},"id":7}`, "7", msgReply},
		{`{"jsonrpc":"2.0","error":{"code":1,"message":"` + long + `"},"id":"a b"}`, `"a b"`, msgReply},
		{`{"params":{"x":"` + long + `"},"method":"roots/list","id":-4.5e+3}`, "-4.5e+3", msgRequest},
		{` {"method":"m","id":0} ` + "\r\n", "0", msgRequest},
		{`{"id":3,"method":"tools/call","params":{"x":"aa"}}`, "3", msgRequest},
		{`{"id":3}`, "3", msgOther},
		{`{"id":3,"method":"m","result":1}`, "3", msgReply},
		// Decoys: an "id" nested, or in a string, is not the message's.
		{`{"result":{"id":1},"x":[{"id":2}],"id":3}`, "3", msgReply},
		{`{"result":{"id":1},"x":[{"id":2}]}`, "", msgReply},
		{`{"result":"\"id\":1","x":"{\"id\":2}"}`, "", msgReply},
		{`{"result":"a\\","id":4}`, "4", msgReply},
		{`{"result":"a\\\"id\":5\"","id":6}`, "6", msgReply},
		{`{"result":{"a":"\"},\"id\":9,\"b\":\""},"id":"x\"}"}`, `"x\"}"`, msgReply},
		// The last id is the one a reader keeps; a name is unescaped.
		{`{"id":1,"result":{},"id":2}`, "2", msgReply},
		{`{"id":1,"result":{},"id":null}`, "", msgReply},
		{`{"\u0069d":5,"m\u0065thod":"x"}`, "5", msgRequest},
		{`{"ID":5,"method":"x"}`, "", msgRequest},
		// Not a usable id, or not one whole object.
		{`{"id":{"n":1},"result":{}}`, "", msgReply},
		{`{"id":true,"result":{}}`, "", msgReply},
		// An id of any length a line within the limit holds is kept.
		{`{"id":"` + strings.Repeat("i", 4*maxIDLen) + `","result":{}}`, `"` + strings.Repeat("i", 4*maxIDLen) + `"`, msgReply},
		{`{"id":1,"result":{}`, "", msgReply},
		{`{"id":1,"result":{}}}`, "", msgReply},
		{`{"id":1,"result":{]}`, "", msgReply},
		{`{"id":01,"result":{}}`, "", msgReply},
		{`{"id":1,"result":"a` + "\x01" + `"}`, "", msgReply},
		{`{"id":1,"result":"\x"}`, "", msgReply},
		{`{"id":1,"result":tru}`, "", msgReply},
		{`[{"id":1,"result":{}}]`, "", msgReply},
		{`"id"`, "", msgOther},
		{``, "", msgOther},
		// Nested past encoding/json's 10000 levels: not JSON to the
		// proxy, but its id is read (tooDeep), so that whoever waits
		// for an answer to it gets an error; brackets that do not
		// match, however deep, are no JSON at all.
		{`{"id":1,"result":` + strings.Repeat("[", maxScanDepth) + strings.Repeat("]", maxScanDepth) + `}`, "1", msgReply},
		{`{"id":1,"result":` + strings.Repeat(`{"a":[`, maxScanDepth) + strings.Repeat("]}", maxScanDepth) + `}`, "1", msgReply},
		{`{"id":1,"result":` + strings.Repeat("[", maxScanDepth) + "}" + strings.Repeat("]", maxScanDepth-1) + `}`, "", msgReply},
		{`{"id":1,"result":` + strings.Repeat("[", maxScanDepth+70) + strings.Repeat("]", maxScanDepth+69) + `}`, "", msgReply},
		{`{"id":1,"result":` + strings.Repeat("[", maxScanDepth-1) + strings.Repeat("]", maxScanDepth-1) + `}`, "1", msgReply},
	} {
		for _, n := range []int{0, 1, 2, 3, 7, 64 << 10} {
			id, kind, ok := scanAll([]byte(c.msg), n)
			if string(id) != c.id || ok != (c.id != "") || ok && kind != c.kind {
				t.Errorf("scan of %.80q in pieces of %d = %s, %v, %v; want %s, %v", c.msg, n, id, kind, ok, c.id, c.kind)
			}
		}
	}
}

// TestMsgScannerIDBytes: the scan keeps the ids of a line up to
// maxScanIDBytes together, as much as a line within the limit holds: a
// longer id is not kept (its message has no usable id), and of a batch
// whose ids together pass it the messages before are read, those after
// counted unread (their requests get one answer under id null).
func TestMsgScannerIDBytes(t *testing.T) {
	quoted := func(n int) string { return `"` + strings.Repeat("i", n-2) + `"` } // an id of n bytes
	for _, c := range []struct {
		n    int
		kept bool
	}{{maxScanIDBytes, true}, {maxScanIDBytes + 1, false}} {
		id, _, ok := scanAll([]byte(`{"jsonrpc":"2.0","result":{},"id":`+quoted(c.n)+`}`), 64<<10)
		if ok != c.kept || ok && len(id) != c.n {
			t.Errorf("an id of %d bytes: scanned %d bytes, %v; want kept %v", c.n, len(id), ok, c.kept)
		}
	}
	half := maxScanIDBytes / 2
	batch := `[{"jsonrpc":"2.0","id":` + quoted(half) + `,"result":{}},{"jsonrpc":"2.0","id":` + quoted(half) + `,"method":"x"},` +
		`{"jsonrpc":"2.0","id":` + quoted(half+1) + `,"method":"x"},{"jsonrpc":"2.0","id":7,"result":{}}]`
	s := scanInPieces([]byte(batch), 0)
	if cmsgs, unread, partial, ok := s.clientBatch(); !ok || len(cmsgs) != 4 || unread != 1 || !partial || len(cmsgs[1].id) != half || !cmsgs[2].cut || !cmsgs[3].cut {
		t.Errorf("the client batch: %d messages, %d unread, partial %v, %v; want 4, the ids of the first two kept, the two after cut, one of them a request (the reply awaits no answer)", len(cmsgs), unread, partial, ok)
	}
	msgs, ok := s.serverBatch()
	if !ok || len(msgs) != 4 || len(msgs[0].id) != half || len(msgs[1].id) != half || msgs[2].id != nil || msgs[3].id != nil {
		t.Errorf("the server batch: %d messages, %v; want 4, the ids of the first two kept, not those after", len(msgs), ok)
	}
}

// FuzzMsgScanner: the scanner finds a line's id exactly when
// encoding/json, reading the whole line, finds a top-level "id" that is a
// string or a number, the same id, and the same request or reply; in
// whatever pieces the line comes.
func FuzzMsgScanner(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":7,"result":{"x":"aaa"}}`), uint8(3))
	f.Add([]byte(`{"id":"a","method":"m","params":[1,-0.5e-3,true,false,null]}`), uint8(1))
	f.Add([]byte(`{"a":{"b":[1,{"id":2}]},"id":1e3,"error":{}}`), uint8(5))
	f.Add([]byte(`{"result":"\"id\":1\\","\u0069d":"\ud83d\ude00"}`), uint8(2))
	f.Add([]byte(`{"id":1,"id":{}}`), uint8(0))
	f.Add([]byte(`{"id":1,"result":`+strings.Repeat("[", maxScanDepth)+strings.Repeat("]", maxScanDepth)+`}`), uint8(0))
	f.Fuzz(checkScan)
}

func checkScan(t *testing.T, msg []byte, piece uint8) {
	{
		var m map[string]json.RawMessage
		want, wantOK := json.RawMessage(nil), false
		var wantKind msgKind
		if json.Unmarshal(msg, &m) == nil && m != nil {
			if id, ok := m["id"]; ok && len(id) <= maxScanIDBytes {
				if c := id[0]; c == '"' || c == '-' || '0' <= c && c <= '9' {
					want, wantOK = id, true
				}
			}
			_, method := m["method"]
			_, result := m["result"]
			_, errm := m["error"]
			switch {
			case result || errm:
				wantKind = msgReply
			case method:
				wantKind = msgRequest
			}
		}
		var s msgScanner
		s.reset()
		s.write(msg)
		if s.tooDeep {
			// Nested past maxScanDepth: encoding/json reads nothing of
			// it, and TestMsgScanner checks the id the scan reads.
			if json.Valid(msg) {
				t.Fatalf("scan of %q nests too deep; encoding/json reads it", msg)
			}
			return
		}
		id, kind, ok := scanAll(msg, int(piece))
		if ok != wantOK || !bytes.Equal(id, want) || ok && kind != wantKind {
			t.Fatalf("scan of %q in pieces of %d = %s, %v, %v; encoding/json finds %s, %v, %v", msg, piece, id, kind, ok, want, wantKind, wantOK)
		}
	}
}

// overlongReplySeeds are server lines whose reading differs between
// readers: a key's letter case, a repeated or escaped "id", ids written
// as other numbers, an "id" nested or behind escaped quotes, a byte
// order mark, bytes that are not UTF-8.
var overlongReplySeeds = []string{
	`{"jsonrpc":"2.0","id":1,"result":{}}`,
	`{"jsonrpc":"2.0","ID":1,"result":{}}`,
	`{"jsonrpc":"2.0","Id":2,"error":{"code":1,"message":"m"}}`,
	`{"jsonrpc":"2.0","id":1,"result":{},"id":2}`,
	`{"jsonrpc":"2.0","id":1,"\u0069d":2,"result":{}}`,
	`{"jsonrpc":"2.0","\u0069d":2,"result":{}}`,
	`{"jsonrpc":"2.0","\u0049D":2,"result":{}}`,
	`{"jsonrpc":"2.0","id":1,"ID":2,"result":{}}`,
	`{"jsonrpc":"2.0","id":1,"Result":{}}`,
	`{"jsonrpc":"2.0","id":1,"re\u017fult":{}}`,
	`{"jsonrpc":"2.0","id":1,"ERROR":{}}`,
	`{"jsonrpc":"2.0","id":1}`,
	`{"jsonrpc":"2.0","id":1,"method":"x"}`,
	`{"jsonrpc":"2.0","id":1,"Method":"x"}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","Result":{}}`,
	`{"jsonrpc":"2.0","id":1.0,"result":{}}`,
	`{"jsonrpc":"2.0","id":-0,"result":{}}`,
	`{"jsonrpc":"2.0","id":1e0,"result":{}}`,
	`{"jsonrpc":"2.0","id":2E+0,"result":{}}`,
	`{"jsonrpc":"2.0","id":0.1e1,"result":{}}`,
	`{"jsonrpc":"2.0","id":1.` + strings.Repeat("0", maxIDLen) + `,"result":{}}`,
	`{"jsonrpc":"2.0","id":"1","result":{}}`,
	`{"jsonrpc":"2.0","id":null,"result":{}}`,
	`{"jsonrpc":"2.0","id":null,"ID":1,"result":{}}`,
	`{"jsonrpc":"2.0","result":{"id":1}}`,
	`{"jsonrpc":"2.0","result":{"id":1},"id":2}`,
	`{"jsonrpc":"2.0","result":"\"id\":1,\\","id":3}`,
	`{"jsonrpc":"2.0","result":"\",\"id\":1,\"x\":\"","id":3}`,
	"\ufeff" + `{"jsonrpc":"2.0","id":1,"result":{}}`,
	`{"jsonrpc":"2.0","id":1,"result":"` + "\xff\xfe" + `"}`,
	`{"jsonrpc":"2.0","i` + "\xff" + `d":1,"result":{}}`,
	`{"jsonrpc":"2.0","id":1,"result":{}}` + "\x00",
	` {"jsonrpc":"2.0","id" : 3 ,"result":{}} `,
}

// FuzzOverlongReplySettlesAsRelayed: a server line the proxy scans
// because it is over MaxMCPMessage ends the same call as the same line
// relayed within the limit ends (fromServer, then settleReplies), or
// none when that ends none; in whatever pieces the line comes. The one
// difference: a reply the relay drops for its shape alone (not the
// strict {"jsonrpc","id","result"}, which is all a host reads) ends its
// call over the limit, with the proxy's error, which the host reads. A
// batch is read message by message: it ends what its messages end,
// each scanned alone, in order, and at least what its relay ends; and
// relayed within the limit it ends what its messages relayed alone, in
// order, end, and reaches the client one message object a line (no host
// reads a batch: an answer in one relayed whole would stop its call's
// timer unseen).
func FuzzOverlongReplySettlesAsRelayed(f *testing.F) {
	for _, s := range overlongReplySeeds {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(3))
	}
	for _, s := range overlongServerBatchSeeds {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(2))
	}
	f.Fuzz(func(t *testing.T, msg []byte, piece uint8) {
		relayed := settledBy(t, func(p *proxy) { _ = p.serverLine(msg) })
		if firstByte(msg) == '[' {
			checkRelayedServerBatch(t, msg, relayed)
			checkScannedServerBatch(t, msg, piece, relayed)
			return
		}
		scanned := settledBy(t, func(p *proxy) {
			s := scanInPieces(msg, piece)
			if id, ok := s.reply(); ok {
				p.settle(id)
			}
		})
		// A reply relayed must also have the strict shape of an answer
		// (strictAnswer), as the host reads no other; over the limit the
		// host gets the proxy's error, which it reads whatever shape the
		// server's had: there the scan ends the call the reply names.
		if relayed != scanned && (relayed != "" || strictAnswer(bytes.ToValidUTF8(msg, []byte("\uFFFD")))) {
			t.Fatalf("server line %q: relayed it ends calls %q, scanned over the limit (pieces of %d) %q", msg, relayed, piece, scanned)
		}
	})
}

// overlongServerBatchSeeds are server batches: replies that settle and
// ones that do not (id twice, "Result", a method), requests, an element
// that is not an object, a nested batch, an id behind escaped quotes.
var overlongServerBatchSeeds = []string{
	`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"m"}}]`,
	`[{"jsonrpc":"2.0","id":1,"id":2,"result":{}},{"jsonrpc":"2.0","ID":2,"result":{}},{"jsonrpc":"2.0","id":3,"Result":{}}]`,
	`[{"jsonrpc":"2.0","id":1,"method":"x","result":{}},{"jsonrpc":"2.0","id":"s","method":"roots/list"},{"jsonrpc":"2.0","id":2.0,"result":{}}]`,
	`[1,{"jsonrpc":"2.0","id":1,"result":{}},"x",[{"jsonrpc":"2.0","id":2,"result":{}}]]`,
	`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":1,"result":{}}]`,
	`[{"jsonrpc":"2.0","result":{"id":2,"x":"\"id\":3"},"id":1}]`,
	`[{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"delete_all"}]}},2]`,
	`[{"jsonrpc":"2.0","method":"notifications/message","params":{}},{"jsonrpc":"2.0","id":1,"result":{"content":[]}},{"jsonrpc":"2.0","id":"e","method":"elicitation/create"}]`,
	`[]`,
}

// checkRelayedServerBatch fails t unless msg, a server line that starts
// as an array, relayed within the limit ends the calls relayed (what its
// relay ended) that its elements that are objects relayed alone, in
// order, end, and
// reaches the client as lines each one JSON object.
func checkRelayedServerBatch(t *testing.T, msg []byte, relayed string) {
	valid := json.Valid(bytes.ToValidUTF8(msg, []byte("\uFFFD")))
	alone := settledBy(t, func(p *proxy) {
		if !valid {
			return // the relay drops the line
		}
		forElements(msg, func(v span) bool {
			if e := msg[v.start:v.end]; firstByte(e) == '{' { // a message; no host reads anything else
				_ = p.serverLine(e)
			}
			return true
		})
	})
	if relayed != alone {
		t.Fatalf("server batch %q: relayed it ends calls %q, its messages relayed alone %q", msg, relayed, alone)
	}
	var toClient bytes.Buffer
	p := timedProxy(t, &toClient, io.Discard, io.Discard)
	p.track([]byte(`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"t"}}`))
	if err := p.serverLine(msg); err != nil {
		t.Fatal(err)
	}
	for line := range bytes.Lines(toClient.Bytes()) {
		if line = bytes.TrimSuffix(line, []byte("\n")); firstByte(line) != '{' || !json.Valid(line) {
			t.Fatalf("server batch %q reached the client as the line %q; want one message object a line", msg, line)
		}
	}
}

// checkScannedServerBatch fails t unless the scan of msg, a server line
// that starts as an array, ends the calls that its messages (its
// elements that are objects) each scanned alone end, in order, and at
// least the calls relayed (of its relay within the limit) ends.
func checkScannedServerBatch(t *testing.T, msg []byte, piece uint8, relayed string) {
	scanned := settledBy(t, func(p *proxy) {
		msgs, _ := scanInPieces(msg, piece).serverBatch()
		for _, m := range msgs {
			if m.settles {
				p.settle(m.id)
			}
		}
	})
	alone := settledBy(t, func(p *proxy) {
		if !json.Valid(msg) {
			return // the scan reads no batch
		}
		elems, _ := arrayElements(msg)
		for _, e := range elems {
			if id, ok := scanInPieces(e, piece).reply(); ok {
				p.settle(id)
			}
		}
	})
	if scanned != alone || !containsAll(scanned, relayed) {
		t.Fatalf("server batch %q: scanned over the limit (pieces of %d) it ends calls %q; its messages scanned alone %q, relayed within the limit %q", msg, piece, scanned, alone, relayed)
	}
}

// containsAll reports whether every call in want (a settledBy string)
// is in got.
func containsAll(got, want string) bool {
	for _, c := range want {
		if !strings.ContainsRune(got, c) {
			return false
		}
	}
	return true
}

// settledBy is the calls, of three outstanding (the proxy's ids 1, 2
// and 3), that f ends.
func settledBy(t *testing.T, f func(p *proxy)) string {
	p := timedProxy(t, io.Discard, io.Discard, io.Discard)
	for _, id := range []string{`"a"`, `"b"`, `"c"`} {
		p.track([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"t"}}`))
	}
	f(p)
	ended := ""
	for _, k := range []string{"1", "2", "3"} {
		if p.calls[k] == nil {
			ended += k
		}
	}
	return ended
}

// TestProxyOverlongReplyEndsWhatItsRelayEnds: through pumpServer, a
// reply over MaxMCPMessage that repeats "id", or names its result
// "Result", ends no call (relayed, it would be dropped: no host reads it
// as an answer), while a well-formed one ends its call with the proxy's
// error under the client's id.
func TestProxyOverlongReplyEndsWhatItsRelayEnds(t *testing.T) {
	big := strings.Repeat("a", MaxMCPMessage)
	var toClient bytes.Buffer
	p := timedProxy(t, &toClient, io.Discard, io.Discard)
	p.track([]byte(`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"t"}}`))
	p.track([]byte(`{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"t"}}`))
	server := `{"jsonrpc":"2.0","id":1,"result":{"x":"` + big + `"},"id":2}` + "\n" +
		`{"jsonrpc":"2.0","id":1,"Result":{"x":"` + big + `"}}` + "\n" +
		`{"jsonrpc":"2.0","id":1,"result":{"x":"` + big + `"}}` + "\n"
	if err := p.pumpServer(strings.NewReader(server)); err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":"a","error":{"code":-32603,"message":"the reply of this server exceeds 16777216 bytes, the most bundlectl's MCP proxy passes on; it was dropped\nbundlectl: hint: bundlectl mcp --help"}}` + "\n"
	if toClient.String() != want {
		t.Errorf("the client got %q; want only call a's error", toClient.String())
	}
	if len(p.calls) != 1 || p.calls["2"] == nil {
		t.Errorf("calls still timed: %v; want call b's (the proxy's 2)", p.calls)
	}
}

// TestProxyOverlongServerBatch: a server batch over MaxMCPMessage is
// read message by message as a reply or request alone over the limit is:
// each reply that would settle a call ends it with the proxy's error
// under the client's id, one line each; one the relay would not settle
// ("id" twice) ends none; each request of the server's is answered to
// the server. Before, the batch was not read and its calls ran to their
// reviewed timeout.
func TestProxyOverlongServerBatch(t *testing.T) {
	big := strings.Repeat("a", MaxMCPMessage)
	var toClient, toServer lockedBuffer
	p := timedProxy(t, &toClient, &toServer, io.Discard)
	for _, id := range []string{`"a"`, `"b"`, `"c"`} {
		p.track([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"t"}}`))
	}
	batch := `[{"jsonrpc":"2.0","id":1,"result":{"x":"` + big + `"}},` +
		`{"jsonrpc":"2.0","id":2,"id":2,"result":{}},` +
		`{"jsonrpc":"2.0","method":"roots/list","id":"s1"},` +
		`{"jsonrpc":"2.0","error":{"code":1,"message":"m"},"id":3.0}]` + "\n" +
		`{"jsonrpc":"2.0","id":2,"result":{}}` + "\n"
	if err := p.pumpServer(strings.NewReader(batch)); err != nil {
		t.Fatal(err)
	}
	errorFor := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32603,"message":"the reply of this server exceeds 16777216 bytes, the most bundlectl's MCP proxy passes on; it was dropped\nbundlectl: hint: bundlectl mcp --help"}}` + "\n"
	}
	if want := errorFor(`"a"`) + errorFor(`"c"`) + `{"jsonrpc":"2.0","id":"b","result":{}}` + "\n"; toClient.String() != want {
		t.Errorf("the client got %q; want %q", toClient.String(), want)
	}
	if want := `{"jsonrpc":"2.0","id":"s1","error":{"code":-32600,"message":"request exceeds 16777216 bytes, the most bundlectl's MCP proxy passes on; it was dropped\nbundlectl: hint: bundlectl mcp --help"}}` + "\n"; toServer.String() != want {
		t.Errorf("the server got %q; want %q", toServer.String(), want)
	}
	if len(p.calls) != 0 {
		t.Errorf("calls still timed: %v; want none", p.calls)
	}
}

// TestProxyOverlongLineLongID: a line over MaxMCPMessage whose id is
// over 4 KiB is answered under that id, as the same line within the
// limit is (a timing proxy refuses such a request under its id, one
// that does not time calls forwards it): a client request, alone or in
// a batch, gets its parse error under its id, and a server reply ends
// the client's call under its id. Before, the scan kept no id over
// 4 KiB: the error went under null, and the call waited for its own
// timeout.
func TestProxyOverlongLineLongID(t *testing.T) {
	big := strings.Repeat("a", MaxMCPMessage)
	id := `"` + strings.Repeat("k", 2*maxIDLen) + `"`
	var toClient, notices lockedBuffer
	p := &proxy{filter: excludeFilter, notices: &notices, toClient: &toClient, toServer: io.Discard}
	client := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"t","x":"` + big + `"}}` + "\n" +
		`[{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"` + big + `"}},{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}]` + "\n"
	if err := p.pumpClient(strings.NewReader(client)); err != nil {
		t.Fatal(err)
	}
	if err := p.pumpServer(strings.NewReader(`{"jsonrpc":"2.0","result":{"x":"` + big + `"},"id":` + id + `}` + "\n")); err != nil {
		t.Fatal(err)
	}
	parseError := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32700,"message":"message exceeds 16777216 bytes\nbundlectl: hint: bundlectl mcp --help"}}`
	}
	want := parseError(id) + "\n" + "[" + parseError("1") + "," + parseError(id) + "]\n" +
		`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32603,"message":"the reply of this server exceeds 16777216 bytes, the most bundlectl's MCP proxy passes on; it was dropped\nbundlectl: hint: bundlectl mcp --help"}}` + "\n"
	if toClient.String() != want {
		t.Errorf("the client got %.300q…; want %.300q…", toClient.String(), want)
	}
	if n := len(notices.String()); n > 4*maxShownID {
		t.Errorf("the notices take %d bytes, the ids whole: %.300q…", n, notices.String())
	}
}

// overlongClientSeeds are client lines whose reading differs between
// readers: "id" and "method" in another letter case or escaped, "id"
// repeated or null after a usable one, a method beside a result, no
// method and no result, ids of other types.
var overlongClientSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"},"id":2}`,
	`{"jsonrpc":"2.0","ID":1,"method":"tools/call","params":{"name":"t"}}`,
	`{"jsonrpc":"2.0","\u0049d":1,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":1,"ID":2,"method":"tools/call","params":{"name":"t"}}`,
	`{"jsonrpc":"2.0","ID":2,"id":1,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":1,"Method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":1,"METHOD":7}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/list","id":null}`,
	`{"jsonrpc":"2.0","id":null,"method":"tools/list","ID":3}`,
	`{"jsonrpc":"2.0","id":{},"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","result":{}}`,
	`{"jsonrpc":"2.0","id":1,"method":"notifications/cancelled","params":{"requestId":1}}`,
	`{"jsonrpc":"2.0","id":"el-1","result":{"action":"decline"}}`,
	`{"jsonrpc":"2.0","ID":"el-1","result":{"action":"decline"}}`,
	`{"jsonrpc":"2.0","id":"el-1","Result":{}}`,
	`{"jsonrpc":"2.0","id":3}`,
	`{"jsonrpc":"2.0","id":1.0,"error":{"code":1,"message":"m"}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","params":{"id":1},"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":"` + strings.Repeat("k", maxIDLen) + `","method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":"` + strings.Repeat("k", maxIDLen) + `","result":{}}`,
}

// FuzzOverlongClientLineAnsweredAsRelayed: a client line the proxy
// scans because it is over MaxMCPMessage is read as the same line
// within the limit is read (fromClient, then track, then
// noteClientReplies' messageID): a request answered under the id its
// relay's answer would go under, a reply to the server's request under
// the id the relay reads, none when the relay reads none; in whatever
// pieces the line comes, and whatever the id's length (up to
// maxScanIDBytes, more than a fuzzed line holds).
func FuzzOverlongClientLineAnsweredAsRelayed(f *testing.F) {
	for _, s := range overlongClientSeeds {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(3))
	}
	for _, s := range overlongClientBatchSeeds {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(2))
	}
	for _, s := range overlongClientUnreadSeeds {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(1))
	}
	for _, s := range overlongClientDeepSeeds {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(5))
	}
	f.Fuzz(func(t *testing.T, msg []byte, piece uint8) {
		checkOverlongClientLine(t, msg, piece)
		// The same line with its first [] nested past maxScanDepth:
		// no JSON to encoding/json, so the relay reads it by the scan
		// (scanTooDeep), which must read it as the relay reads the
		// line not so deep. A line nests so deep only with 20 KB of
		// brackets, which mutation hardly reaches: this makes one of
		// every input that holds [], at a cost of 20 KB an input.
		if i := bytes.Index(msg, []byte("[]")); i >= 0 {
			deep := make([]byte, 0, len(msg)+2*maxScanDepth)
			deep = append(deep, msg[:i]...)
			deep = append(deep, bytes.Repeat([]byte("["), maxScanDepth+1)...)
			deep = append(deep, bytes.Repeat([]byte("]"), maxScanDepth+1)...)
			deep = append(deep, msg[i+2:]...)
			checkOverlongClientLine(t, deep, piece)
			if s := scanInPieces(deep, piece); s.tooDeep && utf8.Valid(deep) {
				checkDeepClientLine(t, deep, msg, piece)
			}
		}
	})
}

// overlongClientDeepSeeds are client lines whose [] the fuzz nests past
// maxScanDepth: in a call's params, arguments and name, in the id, the
// method, a reply's result, a batch's element and a message of one, in
// a string (which nests nothing), and the whole line.
var overlongClientDeepSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":[]}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":[]}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}`,
	`{"jsonrpc":"2.0","id":[],"method":"tools/list","ID":2}`,
	`{"jsonrpc":"2.0","ID":[],"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":"x","Method":[]}`,
	`{"jsonrpc":"2.0","id":"el-1","result":{"content":[]}}`,
	`{"jsonrpc":"2.0","method":"notifications/progress","params":{"x":[]},"id":null}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"s":"[]"}}`,
	`[{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[]},{"jsonrpc":"2.0","ID":"b","result":{}}]`,
	`[{"jsonrpc":"2.0","id":1,"method":"tools/list"},[]]`,
	`[]`,
}

// checkDeepClientLine fails t unless the scans of deep, a UTF-8 client
// line nested past maxScanDepth — in pieces, as over MaxMCPMessage, and
// whole, as scanTooDeep reads one within it — read it as the relay
// reads shallow, the same line but for a value not so deep (or that is
// not JSON, which the relay answers under id null, reading no id).
func checkDeepClientLine(t *testing.T, deep, shallow []byte, piece uint8) {
	whole := scanTooDeep(deep)
	if !json.Valid(shallow) {
		if whole != nil {
			t.Fatalf("client line %.200q… is no JSON when not so deep, but scanTooDeep reads it", deep)
		}
		return
	}
	if whole == nil {
		t.Fatalf("client line %.200q… nests past %d levels, but scanTooDeep does not read it", deep, maxScanDepth)
	}
	for _, s := range []*msgScanner{whole, scanInPieces(deep, piece)} {
		switch firstByte(shallow) {
		case '{':
			checkScannedClientMessage(t, shallow, s.clientMessage, piece)
		case '[':
			checkScannedClientBatch(t, shallow, s, piece)
		}
	}
	if firstByte(shallow) != '{' {
		return
	}
	// The proxy itself: a request gets its error under its id, a reply
	// ends the server's request under its id, and a line with neither
	// gets no answer under any id.
	wantID, kind, ok := relayedClientReading(t, shallow)
	var toClient, toServer lockedBuffer
	p := timedProxy(t, &toClient, &toServer, io.Discard)
	if err := p.pumpClient(bytes.NewReader(append(deep, '\n'))); err != nil {
		t.Fatal(err)
	}
	var wantClient, wantServer string
	if ok && kind == msgRequest {
		wantClient = string(wantID)
	} else if ok {
		wantServer = string(wantID)
	}
	if got, gotServer := answeredID(t, toClient.String()), answeredID(t, toServer.String()); got != wantClient || gotServer != wantServer {
		t.Fatalf("client line %.200q… nested past %d levels: the proxy answered the client under %s and the server under %s; want %s and %s, as the relay answers %q", deep, maxScanDepth, got, gotServer, wantClient, wantServer, shallow)
	}
}

// answeredID is the id of the one answer in out, a peer's output; ""
// when there is none, or it is under null.
func answeredID(t *testing.T, out string) string {
	t.Helper()
	if out == "" {
		return ""
	}
	var m map[string]json.RawMessage
	if strings.Count(out, "\n") != 1 || json.Unmarshal([]byte(out), &m) != nil {
		t.Fatalf("want one answer; got %.300q", out)
	}
	if id := m["id"]; string(id) != "null" {
		return string(id)
	}
	return ""
}

// checkOverlongClientLine fails t unless the scan of msg, a client line
// over MaxMCPMessage (in pieces of piece bytes), reads it as the relay
// within the limit reads it; a line nested past maxScanDepth, which
// the relay reads by the same scan, as the relay reads it with every
// value nested in a message's member replaced by true (flatNested).
func checkOverlongClientLine(t *testing.T, msg []byte, piece uint8) {
	{
		s := scanInPieces(msg, piece)
		if s.tooDeep && utf8.Valid(msg) {
			if s.state == stEnd {
				checkDeepClientLine(t, msg, flatNested(msg), piece)
			} else if id, _, ok := s.clientMessage(); ok {
				t.Fatalf("client line %.200q… is no JSON, which the relay answers under id null; scanned it is read as %s", msg, id)
			}
			return
		}
		if !utf8.Valid(msg) || !json.Valid(msg) {
			// fromClient answers the line under id null, reading none.
			id, _, ok := s.clientMessage()
			if _, _, _, batch := s.clientBatch(); ok || batch {
				t.Fatalf("client line %q is not UTF-8 JSON, which the relay answers under id null; scanned over the limit (pieces of %d) it is read as %s (batch %v)", msg, piece, id, batch)
			}
			return
		}
		switch firstByte(msg) {
		case '{':
			checkScannedClientMessage(t, msg, s.clientMessage, piece)
		case '[':
			checkScannedClientBatch(t, msg, s, piece)
		}
	}
}

// flatNested is line, one JSON value that the scan reads (nested as
// deep as it may be), with every object or array that opens inside a
// message's member — inside a member of the top-level object, or of an
// object in a top-level array — replaced by true. What the proxy reads
// of a client message (its id, a method in any letter case, a reply's
// result or error) stays as it was: an id or a method that was such a
// value is still no string or number, a tools/call's params no object,
// and a request is answered under its id whatever its params hold.
func flatNested(line []byte) []byte {
	keep := 1 // the containers kept: the message's own
	if firstByte(line) == '[' {
		keep = 2 // and a batch's
	}
	out := make([]byte, 0, len(line))
	depth, skipTo := 0, -1 // skipping while depth > skipTo
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '"':
			j := stringEnd(line, i)
			if skipTo < 0 {
				out = append(out, line[i:j]...)
			}
			i = j - 1
			continue
		case c == '{' || c == '[':
			if skipTo < 0 && depth >= keep {
				skipTo = depth
				out = append(out, "true"...)
			}
			depth++
		case c == '}' || c == ']':
			depth--
			if skipTo >= 0 {
				if depth == skipTo {
					skipTo = -1
				}
				continue
			}
		}
		if skipTo < 0 {
			out = append(out, c)
		}
	}
	return out
}

// overlongClientUnreadSeeds are client lines fromClient answers under
// id null: not UTF-8 (in the id, elsewhere, a sequence cut short by a
// quote or a piece's end, a surrogate, an overlong form), or not JSON
// (a byte order mark).
var overlongClientUnreadSeeds = []string{
	`{"jsonrpc":"2.0","id":"` + "\xff" + `","method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"` + "\xe2\x82" + `"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"` + "\xed\xa0\x80" + `"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"` + "\xc0\xaf" + `":1}}`,
	`[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":"` + "\xf4\x90\x80\x80" + `","result":{}}]`,
	"\ufeff" + `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
}

// overlongClientBatchSeeds are client batches: requests, replies and
// notifications mixed, ids in another letter case, an element that is
// not an object, an empty batch.
var overlongClientBatchSeeds = []string{
	`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}},{"jsonrpc":"2.0","ID":"b","Method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":"s1","result":{}}]`,
	`[{"jsonrpc":"2.0","id":1,"method":"tools/call","id":null},{"id":2,"method":"x","result":{}}]`,
	`[{"jsonrpc":"2.0","id":1,"method":"tools/list"},1]`,
	`[[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]]`,
	`[]`,
	`[{"params":{"id":3},"method":"x"}]`,
}

// checkScannedClientMessage fails t unless clientMessage, of the scan
// of msg (one object), reads it as relayedClientReading does.
func checkScannedClientMessage(t *testing.T, msg []byte, clientMessage func() (json.RawMessage, msgKind, bool), piece uint8) {
	wantID, wantKind, wantOK := relayedClientReading(t, msg)
	id, kind, ok := clientMessage()
	if ok != wantOK || ok && (!bytes.Equal(id, wantID) || kind != wantKind) {
		t.Fatalf("client line %q: relayed it is read as %s, %v, %v; scanned over the limit (pieces of %d) %s, %v, %v", msg, wantID, wantKind, wantOK, piece, id, kind, ok)
	}
}

// checkScannedClientBatch fails t unless the scan of msg, an array,
// reads each of its messages as relayedClientReading reads it alone (as
// fromClient judges, and track relays, each message of a batch), and
// reads none when fromClient refuses the batch whole: empty, or with an
// element that is not an object.
func checkScannedClientBatch(t *testing.T, msg []byte, s *msgScanner, piece uint8) {
	elems, _ := arrayElements(msg)
	whole := len(elems) > 0
	for _, e := range elems {
		whole = whole && firstByte(e) == '{'
	}
	got, unread, partial, ok := s.clientBatch()
	if ok != whole || ok && (len(got) != min(len(elems), maxTrackedIDs) || unread != requestsWithIDs(t, elems[len(got):]) || partial != (len(got) < len(elems))) {
		t.Fatalf("client batch %q: scanned over the limit (pieces of %d) it reads %d messages (%d requests unread, partial %v), %v; want %d of %d, %v, the requests with an id past them unread", msg, piece, len(got), unread, partial, ok, min(len(elems), maxTrackedIDs), len(elems), whole)
	}
	for i, e := range elems[:len(got)] {
		wantID, wantKind, wantOK := relayedClientReading(t, e)
		if (got[i].id != nil) != wantOK || wantOK && (!bytes.Equal(got[i].id, wantID) || got[i].request != (wantKind == msgRequest)) {
			t.Fatalf("client batch %q, message %d: relayed it is read as %s, %v, %v; scanned over the limit (pieces of %d) %s, request %v", msg, i, wantID, wantKind, wantOK, piece, got[i].id, got[i].request)
		}
	}
}

// requestsWithIDs is how many of elems the relay within the limit reads
// as requests with an id it answers under (relayedClientReading).
func requestsWithIDs(t *testing.T, elems []json.RawMessage) int {
	n := 0
	for _, e := range elems {
		if _, kind, ok := relayedClientReading(t, e); ok && kind == msgRequest {
			n++
		}
	}
	return n
}

// relayedClientReading is how a timing proxy reads the client line msg
// (one valid JSON object) within the limit: the id of the request it
// answers or forwards and awaits (msgRequest), or of the server's
// request it takes the line to answer (msgReply); ok is false when it
// reads no id a peer waits on (none, null, or another type).
func relayedClientReading(t *testing.T, msg []byte) (id json.RawMessage, kind msgKind, ok bool) {
	var toClient bytes.Buffer
	p := timedProxy(t, &toClient, io.Discard, io.Discard)
	fwd, reply, _ := p.fromClient(msg)
	if reply != nil {
		ms, _ := jsonobj.Members(reply)
		id = lastMember(ms, "id")
		return id, msgRequest, firstByte(id) != 'n'
	}
	if !fwd {
		return nil, msgOther, false // a notification refused
	}
	if p.track(msg); len(p.calls)+p.others.len() > 0 {
		for _, c := range p.calls {
			id = c.id
		}
		for _, o := range p.others.m {
			id = o.val.id
		}
		return id, msgRequest, true
	}
	ms, ok := jsonobj.Members(msg)
	if !ok {
		return nil, msgOther, false
	}
	if _, isMsg := hostMethod(ms); isMsg {
		return nil, msgOther, false // a notification
	}
	id = messageID(ms)
	if _, ok := idKey(id); !ok {
		return nil, msgOther, false
	}
	return id, msgReply, true
}

// FuzzRPCErrorMarshalsIDAsWritten: the proxy's errors, made in place
// (rpcError, and rpcErrorParts as writeLine writes them), are byte for
// byte what json.Marshal makes but for the id, written as it is rather
// than with <, > and & (and U+2028, U+2029) escaped: the same id to any
// JSON reader, for every id token the scan keeps (a JSON string or
// number as written: escapes, HTML characters, U+2028). The message is
// one the proxy sends, its hint line's "\n" included. (It was named
// FuzzAppendRPCErrorAsMarshalled, for a function appendRPCError that
// made the errors before rpcErrorParts; it has no seed corpus directory.)
func FuzzRPCErrorMarshalsIDAsWritten(f *testing.F) {
	for _, id := range []string{`1`, `-0`, `1.5e+3`, `"a"`, `"<&>"`, "\"\u2028\u2029\"", `"\u0041\"\\"`, `"ü"`} {
		f.Add([]byte(id))
	}
	f.Fuzz(func(t *testing.T, id []byte) {
		if c := firstByte(id); len(id) == 0 || id[0] != c || !(c == '"' || c == '-' || '0' <= c && c <= '9') || !json.Valid(id) || !utf8.Valid(id) {
			return // not a token as the scan keeps one
		}
		if c := id[len(id)-1]; c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			return
		}
		msg := limitError("message " + lineTooLong.exceeds)
		want, err := json.Marshal(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}{"2.0", id, struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}{rpcParseError, msg}})
		if err != nil {
			t.Fatal(err)
		}
		got := rpcError(id, rpcParseError, msg)
		var escaped bytes.Buffer
		json.HTMLEscape(&escaped, got)
		if escaped.String() != string(want) {
			t.Fatalf("rpcError for id %q = %q; json.Marshal %q", id, got, want)
		}
		var written bytes.Buffer
		if err := writeLine(&written, rpcErrorParts(id, rpcParseError, msg)...); err != nil || !bytes.Equal(bytes.TrimSuffix(written.Bytes(), []byte("\n")), writtenLine(t, got)) {
			t.Fatalf("rpcErrorParts for id %q written as %q; rpcError written as %q", id, written.Bytes(), writtenLine(t, got))
		}
		if !bytes.Contains(got, append(append([]byte(`"id":`), id...), ',')) {
			t.Fatalf("rpcError for id %q = %q; want the id as written", id, got)
		}
	})
}

// scanInPieces is a scanner that has read msg in writes of piece bytes
// each (the whole line at once for 0), as a line arrives from a pipe.
func scanInPieces(msg []byte, piece uint8) *msgScanner {
	var s msgScanner
	s.reset()
	n := int(piece)
	if n == 0 {
		n = len(msg) + 1
	}
	for rest := msg; len(rest) > 0; rest = rest[min(n, len(rest)):] {
		s.write(rest[:min(n, len(rest))])
	}
	return &s
}

// TestProxyOverlongServerBatchPastTheBoundSaysSo: the notice for a
// server batch over MaxMCPMessage of more than maxTrackedIDs messages
// says that only the first maxTrackedIDs are answered: it said the
// batch was of 4096 messages, each answered, while the request past
// them got no answer.
func TestProxyOverlongServerBatchPastTheBoundSaysSo(t *testing.T) {
	var batch strings.Builder
	batch.WriteString(`[{"jsonrpc":"2.0","method":"ping","id":0,"params":{"x":"` + strings.Repeat("a", MaxMCPMessage) + `"}}`)
	for i := 1; i <= maxTrackedIDs; i++ {
		fmt.Fprintf(&batch, `,{"jsonrpc":"2.0","method":"ping","id":%d}`, i)
	}
	batch.WriteString("]\n")
	var toServer countingWriter
	var notices lockedBuffer
	p := &proxy{filter: excludeFilter, notices: &notices, toClient: io.Discard, toServer: &toServer}
	if err := p.pumpServer(strings.NewReader(batch.String())); err != nil {
		t.Fatal(err)
	}
	if toServer.lines != maxTrackedIDs {
		t.Fatalf("the server got %d answers; want %d", toServer.lines, maxTrackedIDs)
	}
	first, _, _ := strings.Cut(notices.String(), "\n")
	if want := fmt.Sprintf("of more than %d messages; the first %d are each answered as one alone, any later in it is not", maxTrackedIDs, maxTrackedIDs); !strings.Contains(first, want) {
		t.Errorf("the notice is %q; want it to say %q", first, want)
	}
}

// TestProxyNoticesShowIDsCut: a notice shows at most maxShownID bytes of
// an id, within the limit too, as the docs say: the notice for a server
// reply of the wrong shape under an id of 1 MiB, and the one for a
// client's answer to an elicitation that was not passed on, printed the
// whole id.
func TestProxyNoticesShowIDsCut(t *testing.T) {
	long := `"` + strings.Repeat("k", 1<<20) + `"`
	var notices lockedBuffer
	p := timedProxy(t, io.Discard, io.Discard, &notices)
	if err := p.pumpServer(strings.NewReader(`{"jsonrpc":"2.0","id":` + long + `,"result":{},"x":1}` + "\n")); err != nil {
		t.Fatal(err)
	}
	p.pauseOK.Store(true)
	p.elicitationOpened(json.RawMessage(long))
	p.noteClientDrop([]byte(`{"jsonrpc":"2.0","id":` + long + `,"result":{}}`))
	lines := strings.Split(strings.TrimSuffix(notices.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("the notices are %d lines; want 2: %.300q", len(lines), notices.String())
	}
	for _, l := range lines {
		if len(l) > 4*maxShownID || !strings.Contains(l, "bytes)") {
			t.Errorf("a notice of %d bytes shows more than %d bytes of the id: %.300q…", len(l), maxShownID, l)
		}
	}
}

// TestMsgScannerNestingBound: the scan follows a line nested past
// maxScanDepth as deep as a line within MaxMCPMessage can nest, a bit a
// level, and no deeper: a line of more open brackets is no message it
// reads, and the scan holds at most 1 MiB for them.
func TestMsgScannerNestingBound(t *testing.T) {
	var s msgScanner
	s.reset()
	s.write([]byte(strings.Repeat("[", maxScanNesting)))
	if s.state == stError || !s.tooDeep || s.depth != maxScanNesting {
		t.Fatalf("after %d open brackets the scan is at depth %d, state %d; want it still reading", maxScanNesting, s.depth, s.state)
	}
	s.write([]byte("["))
	if s.state != stError {
		t.Errorf("the scan reads a line nested %d deep; want it refused", maxScanNesting+1)
	}
	if held := 8 * cap(s.deep); held > 1<<20 {
		t.Errorf("the scan holds %d bytes for its nesting; want at most 1 MiB", held)
	}
}
