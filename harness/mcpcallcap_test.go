package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// TestProxyCallsBoundedWhileElicitationOpen: while a server keeps an
// elicitation open no call's timer runs, so the host's calls would pile
// up in the proxy without end (about 210 bytes each, measured: 42 MiB
// for 200,000). Past maxTrackedIDs calls awaited at once a new call is
// not forwarded; the client gets an error for it at once that says
// why and what to do, and the calls already awaited keep theirs.
func TestProxyCallsBoundedWhileElicitationOpen(t *testing.T) {
	var toClient, notices bytes.Buffer
	p := &proxy{callTimeout: time.Hour, toClient: &toClient, toServer: io.Discard, notices: &notices, who: `bundle "kit" MCP server "fs"`}
	t.Cleanup(p.close)
	p.noteClientInit([]byte(codexInitialize))
	p.noteServerRequests([]byte(`{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{}}`))
	if p.openElicitations() != 1 {
		t.Fatal("the elicitation did not open")
	}
	forwarded := 0
	for i := range maxTrackedIDs + 100 {
		if p.track([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"a"}}`, i))) != nil {
			forwarded++
		}
	}
	// A batch past the bound: its call is cut out, the rest forwarded.
	out := p.track([]byte(`[{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"a"}},{"jsonrpc":"2.0","id":"y","method":"tools/list"}]`))
	if forwarded != maxTrackedIDs || len(p.calls) != maxTrackedIDs {
		t.Fatalf("%d calls forwarded, %d awaited; want %d each", forwarded, len(p.calls), maxTrackedIDs)
	}
	if string(out) != fmt.Sprintf(`[{"jsonrpc":"2.0","id":%d,"method":"tools/list"}]`, maxTrackedIDs+1) {
		t.Errorf("the batch was forwarded as %s; want its tools/list alone", out)
	}
	lines := strings.Split(strings.TrimSuffix(toClient.String(), "\n"), "\n")
	if len(lines) != 101 {
		t.Fatalf("the client got %d lines, want an error for each of the 101 calls not sent", len(lines))
	}
	var resp struct {
		ID    json.RawMessage
		Error struct {
			Code    int
			Message string
		}
	}
	if err := json.Unmarshal([]byte(lines[0]), &resp); err != nil {
		t.Fatal(err)
	}
	want := `bundlectl's MCP proxy did not send this tool call: 4096 tool calls of bundle "kit" MCP server "fs" already await its answer while it has an elicitation open, which pauses their timeouts; answer or cancel the elicitation`
	if string(resp.ID) != fmt.Sprint(maxTrackedIDs) || resp.Error.Code != rpcInternalError || resp.Error.Message != want {
		t.Errorf("the first call past the bound got %s", lines[0])
	}
	if !strings.Contains(lines[100], `"id":"x"`) {
		t.Errorf("the batch's call got %s", lines[100])
	}
	if !strings.Contains(notices.String(), "refused tool call 4096: 4096 tool calls") {
		t.Errorf("notices %q do not report the refusal", notices.String())
	}
	// Answered calls make room again.
	p.settleReplies([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	if p.track([]byte(`{"jsonrpc":"2.0","id":"z","method":"tools/call","params":{"name":"a"}}`)) == nil {
		t.Error("a call after one was answered was not forwarded")
	}
}
