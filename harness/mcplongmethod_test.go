package harness

import (
	"io"
	"runtime"
	"strings"
	"testing"
)

// TestLongLooseMethodCostsNoNormalisation: a method that is not plain
// ASCII is read as an exclude filter reads a name (isCallMethod), and
// normalising a long one cost up to 64 times its length: a 16 MiB method
// of U+FDFA (which NFKC writes as 18 letters and spaces, each round
// again) allocated 1 GB and took 48 s of CPU, and the proxy reads the
// method of every message, the server's too (settleMessage), a proxy
// that only times calls included. A method whose core (cut at a NUL,
// trimmed) is longer than maxLooseMethod is no spelling of tools/call a
// host writes: it is judged, and timed, as a call (fail closed) without
// being normalised. This measures the bytes allocated, not time.
func TestLongLooseMethodCostsNoNormalisation(t *testing.T) {
	method := strings.Repeat("\ufdfa", (1<<20)/3) // 1 MiB
	value := []byte(`"` + method + `"`)
	if !isCallMethod(method) || !callMethodValue(value) || !isCallMethod(" tools/call") || isCallMethod(" tools/list") {
		t.Error("a long method that is not plain must read as a call (fail closed), and a short one as before")
	}
	server := []byte(`{"jsonrpc":"2.0","method":` + string(value) + `,"params":{}}`)
	client := []byte(`{"jsonrpc":"2.0","id":1,"method":` + string(value) + `,"params":{"name":"delete_all"}}`)
	p := timedProxy(t, io.Discard, io.Discard, io.Discard)
	p.filter = excludeFilter
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p.settleMessage(server)
	v := p.judge(client)
	runtime.ReadMemStats(&after)
	if v.code != rpcInvalidParams {
		t.Errorf("a call for delete_all under a long loose method: verdict %+v; want it refused as a call", v)
	}
	if got, most := after.TotalAlloc-before.TotalAlloc, uint64(8*len(server)); got > most {
		t.Errorf("reading a server message and judging a client one, each with a method of %d bytes, allocated %d bytes; want at most %d", len(value), got, most)
	}
}

// TestServerMethodsCostNoNormalisation: the proxy reads a server
// message's method for no call (it times the client's calls only), so a
// server line of many messages, each with a short loose method (within
// maxLooseMethod: U+FDFA, which NFKC writes as 18 letters and spaces),
// costs no normalisation. It read each as isCallMethod does, for every
// message of a batch relayed (settleMessage), allocating some 64 times
// the line: a 16 MiB server line stalled the relay for as long as one
// method of that length (48 s of CPU). This measures bytes allocated.
func TestServerMethodsCostNoNormalisation(t *testing.T) {
	msg := `{"jsonrpc":"2.0","method":"` + strings.Repeat("\ufdfa", 80) + `"}`
	line := []byte("[" + strings.Repeat(msg+",", 4095) + msg + "]")
	p := timedProxy(t, io.Discard, io.Discard, io.Discard)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := p.serverLine(line); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got, most := after.TotalAlloc-before.TotalAlloc, uint64(8*len(line)); got > most {
		t.Errorf("relaying a server batch of %d bytes, 4096 messages each with a method of 80 U+FDFA, allocated %d bytes; want at most %d", len(line), got, most)
	}
}
