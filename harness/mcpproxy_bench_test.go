package harness

import (
	"bytes"
	"fmt"
	"io"
	"testing"
	"time"
)

// The proxy's normal path: short lines, read, judged and relayed whole.
// The scan for the id of an overlong line must cost them nothing.

var benchClientLines = bytes.Repeat([]byte(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, world"}}}`+"\n"), 1000)

var benchServerLines = bytes.Repeat([]byte(`{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"hello, world"}]}}`+"\n"+
	`{"jsonrpc":"2.0","id":13,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}},{"name":"delete_all","inputSchema":{"type":"object"}}]}}`+"\n"), 500)

// BenchmarkMCPProxyClientLines is 1000 tools/call requests from the client.
func BenchmarkMCPProxyClientLines(b *testing.B) {
	b.SetBytes(int64(len(benchClientLines)))
	for b.Loop() {
		p := &proxy{filter: excludeFilter, notices: io.Discard, toClient: io.Discard, toServer: io.Discard}
		if err := p.pumpClient(bytes.NewReader(benchClientLines)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMCPProxyServerLines is 1000 replies from the server, half of
// them tool lists to filter.
func BenchmarkMCPProxyServerLines(b *testing.B) {
	b.SetBytes(int64(len(benchServerLines)))
	for b.Loop() {
		p := &proxy{filter: excludeFilter, notices: io.Discard, toClient: io.Discard}
		if err := p.pumpServer(bytes.NewReader(benchServerLines)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMCPProxyOverlongLine is one server reply over MaxMCPMessage,
// its id after its long result: scanned for the id as it passes.
func BenchmarkMCPProxyOverlongLine(b *testing.B) {
	line := append(append([]byte(`{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"`), bytes.Repeat([]byte("a"), MaxMCPMessage)...), `"}]},"id":7}`+"\n"...)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		p := &proxy{filter: excludeFilter, notices: io.Discard, toClient: io.Discard}
		if err := p.pumpServer(bytes.NewReader(line)); err != nil {
			b.Fatal(err)
		}
	}
}

// timedCallLines is n tools/call requests of the client under ids 1..n
// (a host numbers its requests upward), as a timed proxy forwards them.
func timedCallLines(n int) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, world"}}}`+"\n", i)
	}
	return b.Bytes()
}

// BenchmarkMCPProxyTimedClientLines is 1000 tools/call requests from the
// client through a proxy timing calls: each is judged, timed and
// forwarded.
func BenchmarkMCPProxyTimedClientLines(b *testing.B) {
	lines := timedCallLines(1000)
	b.SetBytes(int64(len(lines)))
	for b.Loop() {
		p := &proxy{callTimeout: time.Hour, notices: io.Discard, toClient: io.Discard, toServer: io.Discard}
		if err := p.pumpClient(bytes.NewReader(lines)); err != nil {
			b.Fatal(err)
		}
		p.close()
	}
}

// Server lines of a timed session with Codex (whose elicitations pause
// calls): progress and the answers to 500 outstanding calls, with and
// without escapes in their text, and a stream of elicitation/create
// requests and the server's cancellations of them, which the proxy must
// read. The answers go under the ids the calls reached the server with.
var (
	benchTimedPlain   = timedAnswerLines(`hello, world`)
	benchTimedEscaped = timedAnswerLines(`line one\nline \"two\"\n`)
	benchTimedElicit  = bytes.Repeat([]byte(`{"jsonrpc":"2.0","id":"el-1","method":"elicitation/create","params":{"message":"which?","requestedSchema":{"type":"object","properties":{}}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"el-1","reason":"no longer needed"}}`+"\n"), 500)
)

// timedAnswerLines is a progress notification and an answer with text for
// each of the calls 1..500.
func timedAnswerLines(text string) []byte {
	var b bytes.Buffer
	for i := 1; i <= 500; i++ {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%d,"progress":1}}`+"\n", i)
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"%s"}]}}`+"\n", i, text)
	}
	return b.Bytes()
}

// BenchmarkMCPProxyTimedServerLines is 1000 server lines through a proxy
// timing calls for Codex, by kind of line: the answers with 500 calls
// outstanding, the elicitations with one (each pauses and resumes every
// call). The calls are made outside the timed part.
func BenchmarkMCPProxyTimedServerLines(b *testing.B) {
	for _, bc := range []struct {
		name  string
		lines []byte
		calls int
	}{{"plain", benchTimedPlain, 500}, {"escaped", benchTimedEscaped, 500}, {"elicitation", benchTimedElicit, 1}} {
		calls := timedCallLines(bc.calls)
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.lines)))
			for b.Loop() {
				b.StopTimer()
				p := &proxy{callTimeout: time.Hour, notices: io.Discard, toClient: io.Discard, toServer: io.Discard}
				if err := p.pumpClient(bytes.NewReader(append([]byte(codexInitialize+"\n"), calls...))); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if err := p.pumpServer(bytes.NewReader(bc.lines)); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				p.close()
				b.StartTimer()
			}
		})
	}
}

// BenchmarkMCPProxyOverlongLongID is one server request over
// MaxMCPMessage whose id is nearly 16 MiB, answered to the server under
// that id: the answer is written from the scan's id, not built, and the
// line not copied to be written.
func BenchmarkMCPProxyOverlongLongID(b *testing.B) {
	id := append(append([]byte(`"`), bytes.Repeat([]byte("<"), maxScanIDBytes-2)...), '"')
	line := append(append([]byte(`{"jsonrpc":"2.0","id":`), id...), `,"method":"tools/list","params":{}}`+"\n"...)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		p := &proxy{filter: excludeFilter, notices: io.Discard, toClient: io.Discard, toServer: io.Discard}
		if err := p.pumpServer(bytes.NewReader(line)); err != nil {
			b.Fatal(err)
		}
	}
}
