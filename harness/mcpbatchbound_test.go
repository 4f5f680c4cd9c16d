package harness

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// TestProxyOverlongServerBatchCutIDsSaySo: a server batch over
// MaxMCPMessage whose reply comes after maxScanIDBytes of ids kept
// before it (its own id is cut) ends no call, and the proxy says so on
// stderr, naming how many messages it skipped, the limit and the help
// that names it; before, such a message was skipped without a word.
func TestProxyOverlongServerBatchCutIDsSaySo(t *testing.T) {
	longID := `"` + strings.Repeat("i", maxScanIDBytes-2) + `"` // the whole of what the scan keeps
	batch := `[{"jsonrpc":"2.0","method":"ping","id":` + longID + `},` +
		`{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"m"}}]` + "\n"
	var toServer countingWriter
	var notices lockedBuffer
	p := timedProxy(t, io.Discard, &toServer, &notices)
	p.track([]byte(`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"t"}}`))
	if err := p.pumpServer(strings.NewReader(batch)); err != nil {
		t.Fatal(err)
	}
	if toServer.lines != 1 {
		t.Errorf("the server got %d answers; want 1, to its ping", toServer.lines)
	}
	want := fmt.Sprintf("skipped 2 messages of a server batch over %d bytes: their ids come after the %d bytes of ids the proxy reads of a batch, so a reply there ends no call (the call runs to its timeout) and a request there gets no error\nbundlectl: hint: bundlectl mcp --help", MaxMCPMessage, maxScanIDBytes)
	if !strings.Contains(notices.String(), want) {
		t.Errorf("the notices are %.600q; want one saying %q", notices.String(), want)
	}
	if p.calls["1"] == nil {
		t.Errorf("call a (the proxy's 1) is no longer timed; want it timed, no reply having ended it")
	}
}

// TestProxyBatchPastTheBoundHoldsNoCall: a hostile server cannot hold a
// call open past its reviewed timeout by answering it in a batch over
// MaxMCPMessage past the first maxTrackedIDs messages, which the proxy
// does not read: the reply there ends no call, and the call's timer,
// which nothing there stops, still ends it with the proxy's -32001
// error, the server cancelled. Nor can the server, sending the same
// batch again and again: the call ends as one alone. The test waits
// for the timer with no deadline but hangGuard's, minutes past the
// 50 ms timeout, so a slow machine only makes it slower.
func TestProxyBatchPastTheBoundHoldsNoCall(t *testing.T) {
	var batch strings.Builder
	batch.WriteString(`[{"jsonrpc":"2.0","method":"notifications/message","params":{"x":"` + strings.Repeat("a", MaxMCPMessage) + `"}}`)
	for i := 1; i < maxTrackedIDs; i++ {
		batch.WriteString(`,{"jsonrpc":"2.0","method":"notifications/progress"}`)
	}
	batch.WriteString(`,{"jsonrpc":"2.0","id":1,"result":{"content":[]}}]` + "\n") // message 4097: call a's answer
	var toClient, toServer, notices lockedBuffer
	p := &proxy{callTimeout: 50 * time.Millisecond, toClient: &toClient, toServer: &toServer, notices: &notices}
	t.Cleanup(p.close)
	p.track([]byte(`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"t"}}`))
	for range 2 {
		if err := p.pumpServer(strings.NewReader(batch.String())); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the call's timeout", func() bool { return strings.Contains(toServer.String(), `"notifications/cancelled"`) })
	want := `{"jsonrpc":"2.0","id":"a","error":{"code":-32001,"message":"the tool call passed its reviewed timeout of 0.05 s: this server did not answer it in time; bundlectl's MCP proxy cancelled it"}}` + "\n"
	if toClient.String() != want {
		t.Errorf("the client got %.600q; want only the proxy's timeout error for call a, %q", toClient.String(), want)
	}
	if !strings.Contains(notices.String(), fmt.Sprintf("of more than %d messages", maxTrackedIDs)) {
		t.Errorf("the notices are %.600q; want one saying the batch's messages past %d are not read", notices.String(), maxTrackedIDs)
	}
	p.callsMu.Lock()
	defer p.callsMu.Unlock()
	if len(p.calls) != 0 {
		t.Errorf("calls still timed: %v; want none", p.calls)
	}
}
