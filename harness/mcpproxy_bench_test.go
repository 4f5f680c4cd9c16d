package harness

import (
	"bytes"
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

// Server lines of a timed session with Codex (whose elicitations pause
// calls): answers to calls, with and without escapes in their text, and
// the same stream with an elicitation/create and the server's
// cancellation of it among them, which the proxy must read.
var (
	benchTimedPlain = bytes.Repeat([]byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":12,"progress":1}}`+"\n"+
		`{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"hello, world"}]}}`+"\n"), 500)
	benchTimedEscaped = bytes.Repeat([]byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":12,"progress":1}}`+"\n"+
		`{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"line one\nline \"two\"\n"}]}}`+"\n"), 500)
	benchTimedElicit = bytes.Repeat([]byte(`{"jsonrpc":"2.0","id":"el-1","method":"elicitation/create","params":{"message":"which?","requestedSchema":{"type":"object","properties":{}}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"el-1","reason":"no longer needed"}}`+"\n"), 500)
)

// BenchmarkMCPProxyTimedServerLines is 1000 server lines through a proxy
// timing calls for Codex, with one call outstanding, by kind of line.
func BenchmarkMCPProxyTimedServerLines(b *testing.B) {
	for _, bc := range []struct {
		name  string
		lines []byte
	}{{"plain", benchTimedPlain}, {"escaped", benchTimedEscaped}, {"elicitation", benchTimedElicit}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.lines)))
			for b.Loop() {
				p := &proxy{callTimeout: time.Hour, notices: io.Discard, toClient: io.Discard, toServer: io.Discard}
				p.noteClientInit([]byte(codexInitialize))
				p.track([]byte(`{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"a"}}`))
				if err := p.pumpServer(bytes.NewReader(bc.lines)); err != nil {
					b.Fatal(err)
				}
				p.close()
			}
		})
	}
}
