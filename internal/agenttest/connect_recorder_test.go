package agenttest

import (
	"bufio"
	"net"
	"strings"
	"sync"
	"testing"
)

// connectRecorder is an HTTPS proxy on 127.0.0.1 that answers nothing
// and records the first line of each connection made to it ("CONNECT
// host:port HTTP/1.1"): which hosts an agent tried to reach, offline.
type connectRecorder struct {
	mu    sync.Mutex
	lines []string
	// Env points an agent's HTTPS requests at the recorder, loopback
	// (the model API stand-in) excepted.
	Env []string
}

func newConnectRecorder(t *testing.T) *connectRecorder {
	t.Helper()
	return newConnectRecorderAt(t, "127.0.0.1:0")
}

// newConnectRecorderAt is a connectRecorder listening on addr.
func newConnectRecorderAt(t *testing.T, addr string) *connectRecorder {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	url := "http://" + l.Addr().String()
	r := &connectRecorder{Env: []string{"HTTPS_PROXY=" + url, "https_proxy=" + url, "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost"}}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go r.record(c)
		}
	}()
	return r
}

func (r *connectRecorder) record(c net.Conn) {
	defer c.Close()
	if line, err := bufio.NewReader(c).ReadString('\n'); err == nil {
		r.mu.Lock()
		r.lines = append(r.lines, strings.TrimSpace(line))
		r.mu.Unlock()
	}
}

// take returns the lines recorded since the last take.
func (r *connectRecorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	got := r.lines
	r.lines = nil
	return got
}
