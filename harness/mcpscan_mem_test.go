package harness

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
)

// allocated is the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestProxyOverlongBatchHeldOnce: the proxy's work for a client batch
// over MaxMCPMessage of 4096 requests whose ids are 4 KiB each — the
// most the scan keeps — allocates each id once in the scan and each
// answer once: at most 1.25 times the ids and 1.25 times the answer
// line. Before, the scan copied each id twice and the answers were made
// by json.Marshal, then joined, then copied into the array: 34 MB for
// the 17 MB of ids, 55 MB for the 17 MB answer; a real `bundlectl mcp`
// answering 15 such batches peaked at 378 MB of RSS.
func TestProxyOverlongBatchHeldOnce(t *testing.T) {
	var batch bytes.Buffer
	batch.WriteByte('[')
	for i := range maxTrackedIDs {
		if i > 0 {
			batch.WriteByte(',')
		}
		id := fmt.Sprintf("%d-", i) + strings.Repeat("x", maxIDLen-2-len(fmt.Sprint(i))-1)
		fmt.Fprintf(&batch, `{"jsonrpc":"2.0","id":"%s","method":"tools/list"}`, id)
	}
	batch.WriteByte(']')
	idBytes := uint64(maxTrackedIDs * maxIDLen)

	var s msgScanner
	s.reset()
	scanned := allocated(func() { s.write(batch.Bytes()) })
	if msgs, _, _, ok := s.clientBatch(); !ok || len(msgs) != maxTrackedIDs || len(msgs[0].id) != maxIDLen {
		t.Fatalf("the scan read %d messages, %v; want %d with ids of %d bytes", len(msgs), ok, maxTrackedIDs, maxIDLen)
	}
	if scanned > idBytes*5/4 {
		t.Errorf("scanning the batch allocated %d bytes; want at most 1.25 times its %d bytes of ids", scanned, idBytes)
	}

	p := &proxy{filter: excludeFilter, notices: io.Discard, toClient: io.Discard, toServer: io.Discard}
	var parts [][]byte
	answered := allocated(func() { parts = p.unreadClientLine(&s, lineTooLong) })
	answer := bytes.Join(parts, nil)
	if answered > uint64(len(answer))/8 {
		t.Errorf("answering the batch allocated %d bytes; want at most an eighth of its %d-byte answer, which is written from the scan's ids", answered, len(answer))
	}
	if bytes.Count(answer, []byte(`"code":-32700`)) != maxTrackedIDs {
		t.Fatalf("the answer has %d parse errors; want %d", bytes.Count(answer, []byte(`"code":-32700`)), maxTrackedIDs)
	}
	s.release()
	if cap(s.batch) != 0 {
		t.Errorf("the released scan still holds room for %d messages", cap(s.batch))
	}
}

// TestProxyOverlongLongIDHeldOnce: a client request over MaxMCPMessage
// whose id is nearly 16 MiB (the most the scan keeps of a line) costs
// the scan at most 2.5 times the id (its buffer grows by doubling and
// the id keeps it, uncopied), and its answer at most 1.25 times the
// answer; the scan holds none of it once released.
func TestProxyOverlongLongIDHeldOnce(t *testing.T) {
	id := `"` + strings.Repeat("k", maxScanIDBytes-2) + `"`
	line := []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list","params":{"x":"` + strings.Repeat("a", 1<<20) + `"}}`)
	var s msgScanner
	s.reset()
	scanned := allocated(func() {
		for rest := line; len(rest) > 0; rest = rest[min(64<<10, len(rest)):] {
			s.write(rest[:min(64<<10, len(rest))])
		}
	})
	if got, _, ok := s.clientMessage(); !ok || len(got) != len(id) {
		t.Fatalf("the scan read an id of %d bytes, %v; want %d", len(got), ok, len(id))
	}
	if scanned > uint64(len(id))*5/2 {
		t.Errorf("scanning the request allocated %d bytes; want at most 2.5 times its %d-byte id", scanned, len(id))
	}
	p := &proxy{filter: excludeFilter, notices: io.Discard, toClient: io.Discard, toServer: io.Discard}
	var parts [][]byte
	answered := allocated(func() { parts = p.unreadClientLine(&s, lineTooLong) })
	if answer := bytes.Join(parts, nil); answered > uint64(len(answer))/8 {
		t.Errorf("answering the request allocated %d bytes; want at most an eighth of its %d-byte answer, which is written from the scan's id", answered, len(answer))
	}
	s.release()
	if s.id != nil || s.val != nil {
		t.Errorf("the released scan still holds %d bytes of id, %d of buffer", cap(s.id), cap(s.val))
	}
}

// TestLineReaderGrowsByDoubling: reading a line of 16 MiB within the
// limit allocates at most 2.5 times the line (the buffer doubles); append
// alone grows a large slice by a quarter, and its copies came to 100 MB.
func TestLineReaderGrowsByDoubling(t *testing.T) {
	line := append(bytes.Repeat([]byte("a"), MaxMCPMessage), '\n')
	lr := newLineReader(bytes.NewReader(line))
	var got []byte
	n := allocated(func() { got, _, _ = lr.next() })
	if len(got) != MaxMCPMessage {
		t.Fatalf("read %d bytes; want %d", len(got), MaxMCPMessage)
	}
	if n > uint64(MaxMCPMessage)*5/2 {
		t.Errorf("reading a line of %d bytes allocated %d; want at most 2.5 times it", MaxMCPMessage, n)
	}
}

// TestLineReaderShrinksAfterALongLine: once a line of 16 MiB, within
// the limit or over it, is done, the reader holds no more than
// keptLineBuffer of it: before, a long-lived session kept the 16 MiB
// buffer of its longest line for good (the heap in use stayed 16 MiB
// higher after the next short line; now it falls by that).
func TestLineReaderShrinksAfterALongLine(t *testing.T) {
	for _, n := range []int{MaxMCPMessage, MaxMCPMessage + 3} {
		in := &spentChunks{[][]byte{append(bytes.Repeat([]byte("a"), n), '\n'), []byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n")}}
		lr := newLineReader(in)
		if _, _, err := lr.next(); err != nil {
			t.Fatal(err)
		}
		held := heapHeld(func() {
			if line, _, err := lr.next(); err != nil || len(line) == 0 {
				t.Fatalf("the short line after the long one: %q, %v", line, err)
			}
		})
		if cap(lr.buf) > keptLineBuffer || held > -int64(MaxMCPMessage)*3/4 {
			t.Errorf("after a line of %d bytes and a short one the reader's buffer holds %d bytes, the heap in use changed by %+d bytes; want at most %d held and the long line's buffer let go", n, cap(lr.buf), held, keptLineBuffer)
		}
		runtime.KeepAlive(lr)
	}
}

// spentChunks reads its chunks in order and lets go of each once read,
// so the heap holds only what its reader keeps.
type spentChunks struct{ chunks [][]byte }

func (c *spentChunks) Read(p []byte) (int, error) {
	for len(c.chunks) > 0 && len(c.chunks[0]) == 0 {
		c.chunks = c.chunks[1:]
	}
	if len(c.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.chunks[0])
	if c.chunks[0] = c.chunks[0][n:]; len(c.chunks[0]) == 0 {
		c.chunks[0] = nil
	}
	return n, nil
}

// heapHeld is how much the heap in use grows (negative: shrinks) across
// f, each side measured after a collection.
func heapHeld(f func()) int64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.GC()
	runtime.ReadMemStats(&after)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc)
}

// TestProxyOverlongBatchLeavesOpenCallsAwaited: a client batch over
// MaxMCPMessage whose ids are those of calls still open (a reuse MCP
// forbids) is answered under those ids and changes nothing the proxy
// awaits: each open call still gets the server's answer under its id, as
// a reused id within the limit gets its own answer and the old call's.
func TestProxyOverlongBatchLeavesOpenCallsAwaited(t *testing.T) {
	var toClient lockedBuffer
	p := timedProxy(t, &toClient, io.Discard, io.Discard)
	p.track([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}`))
	p.track([]byte(`{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"a"}}`))
	big := strings.Repeat("a", MaxMCPMessage)
	in := `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","x":"` + big + `"}},{"jsonrpc":"2.0","id":"b","method":"tools/list"}]` + "\n"
	if err := p.pumpClient(strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	if len(p.calls) != 2 || p.byClient["n1"] != "1" || p.byClient[`sb`] != "2" {
		t.Fatalf("after the batch: calls %v, by the client's ids %v; want calls 1 and 2 awaited under 1 and \"b\"", p.calls, p.byClient)
	}
	if err := p.pumpServer(strings.NewReader(`{"jsonrpc":"2.0","id":2,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	want := `[{"jsonrpc":"2.0","id":1,"error":{"code":-32700,"message":"message exceeds 16777216 bytes\nbundlectl: hint: bundlectl mcp --help"}},{"jsonrpc":"2.0","id":"b","error":{"code":-32700,"message":"message exceeds 16777216 bytes\nbundlectl: hint: bundlectl mcp --help"}}]` + "\n" +
		`{"jsonrpc":"2.0","id":"b","result":{}}` + "\n" + `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"
	if toClient.String() != want {
		t.Fatalf("the client got %q; want %q", toClient.String(), want)
	}
}

// countingWriter counts the lines and bytes written to it and keeps
// none of them.
type countingWriter struct{ lines, bytes int }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.lines += bytes.Count(p, []byte{'\n'})
	w.bytes += len(p)
	return len(p), nil
}

// TestProxyLongIDAnsweredAtItsLength: the proxy's error under an id of
// nearly 16 MiB (a line over MaxMCPMessage: the server's request, the
// server's reply to an untimed call, the client's request) is written
// with the id as the line had it, from the scan's id: it costs a
// fraction of the id (the writer's buffer). Before this it cost about
// the id twice (the answer, and the line writeLine made of it in a copy
// of its own); and before that json.Marshal
// wrote each of <, > and & as a 6-byte escape, in a buffer it grew by
// copies: an id of 16 MiB of "<" became a 96 MiB line, and a real
// `bundlectl mcp` answering one server request so peaked at 808 MB of
// RSS (79 MB before ids over 4 KiB were kept).
func TestProxyLongIDAnsweredAtItsLength(t *testing.T) {
	id := `"` + strings.Repeat("<", maxScanIDBytes-2) + `"`
	pad := `"pad":"` + strings.Repeat("a", 1<<20) + `"`
	for _, c := range []struct {
		name, line string
		server     bool // the line is the server's
	}{
		{"the server's request", `{"jsonrpc":"2.0","id":` + id + `,"method":"sampling/createMessage","params":{` + pad + `}}`, true},
		{"the server's reply", `{"jsonrpc":"2.0","id":` + id + `,"result":{` + pad + `}}`, true},
		{"the client's request", `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list","params":{` + pad + `}}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := scanInPieces([]byte(c.line), 0)
			var to countingWriter
			p := &proxy{filter: excludeFilter, notices: io.Discard, toClient: &to, toServer: &to}
			answered := allocated(func() {
				if c.server {
					if err := p.unreadServerLine(s, lineTooLong); err != nil {
						t.Fatal(err)
					}
					return
				}
				if err := p.sendClient(p.unreadClientLine(s, lineTooLong)...); err != nil {
					t.Fatal(err)
				}
			})
			if to.lines != 1 || to.bytes > len(id)+256 {
				t.Fatalf("the proxy wrote %d lines of %d bytes; want one of at most %d, the id's %d and the error's", to.lines, to.bytes, len(id)+256, len(id))
			}
			if answered > uint64(len(id))/8 {
				t.Errorf("answering allocated %d bytes; want at most an eighth of the %d-byte id, which is written from where the scan keeps it", answered, len(id))
			}
		})
	}
}
