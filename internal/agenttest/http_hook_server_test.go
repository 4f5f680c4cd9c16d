package agenttest

import (
	"bufio"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// hookRequest is what a hookServer read of one request: its request line
// as it came, the target in it, and its Host and Authorization headers
// ("" when it has none).
type hookRequest struct {
	Line, Target, Host, Authorization string
}

// hookServer is a raw HTTP listener an http hook posts to, no net/http: it
// reads each request's line and headers as they came, so a test sees the
// bytes the agent wrote, records them, and answers 200 with the JSON its
// answer gives (closing the connection after each).
type hookServer struct {
	ln     net.Listener
	answer func(hookRequest) string
	mu     sync.Mutex
	seen   []hookRequest
}

// newHookServer is a hookServer on a free port of 127.0.0.1 answering
// `{}` to every request, or answer's body when answer is not nil; it
// closes when t ends.
func newHookServer(t *testing.T, answer func(hookRequest) string) *hookServer {
	t.Helper()
	s, err := listenHookServer(t, "127.0.0.1:0", answer)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// listenHookServer is newHookServer on addr, or the error listening there
// (a test may skip on it: a fixed port may be taken).
func listenHookServer(t *testing.T, addr string, answer func(hookRequest) string) (*hookServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { ln.Close() })
	if answer == nil {
		answer = func(hookRequest) string { return `{}` }
	}
	s := &hookServer{ln: ln, answer: answer}
	go s.serve()
	return s, nil
}

// Addr is the server's host:port.
func (s *hookServer) Addr() string { return s.ln.Addr().String() }

// take returns the requests seen since the last take.
func (s *hookServer) take() []hookRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	got := s.seen
	s.seen = nil
	return got
}

func (s *hookServer) serve() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		go s.handle(c)
	}
}

// handle reads one request off c (its body by Content-Length), records
// it and answers it.
func (s *hookServer) handle(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	line, err := br.ReadString('\n')
	if err != nil {
		return
	}
	r := hookRequest{Line: strings.TrimRight(line, "\r\n")}
	if parts := strings.Split(r.Line, " "); len(parts) == 3 {
		r.Target = parts[1]
	}
	length := 0
	for {
		h, err := br.ReadString('\n')
		if err != nil {
			return
		}
		if h == "\r\n" {
			break
		}
		k, v, _ := strings.Cut(strings.TrimRight(h, "\r\n"), ":")
		switch strings.ToLower(k) {
		case "host":
			r.Host = strings.TrimSpace(v)
		case "authorization":
			r.Authorization = strings.TrimSpace(v)
		case "content-length":
			length, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	io.CopyN(io.Discard, br, int64(length))
	s.mu.Lock()
	s.seen = append(s.seen, r)
	s.mu.Unlock()
	body := s.answer(r)
	io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
}

// httpHooks is a Claude Code hooks file whose one matcher, on Bash under
// event, holds an http hook (timeout 10 s) for each url.
func httpHooks(event string, urls ...string) map[string]any {
	var hooks []any
	for _, u := range urls {
		hooks = append(hooks, map[string]any{"type": "http", "url": u, "timeout": 10})
	}
	return map[string]any{"hooks": map[string]any{event: []any{map[string]any{"matcher": "Bash", "hooks": hooks}}}}
}

// writeHTTPHookPlugin writes a Claude Code plugin named name in dir whose
// hooks are httpHooks(event, urls...).
func writeHTTPHookPlugin(t *testing.T, dir, name, event string, urls ...string) {
	t.Helper()
	writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": name, "version": "1.0.0"})
	writeJSONFile(t, dir, "hooks/hooks.json", httpHooks(event, urls...))
}

// launchThroughExec trusts and enables the bundle name of a's workspace
// (under .bundlectl/bundles) in a fresh bundlectl home, and makes a run
// Claude Code under bundlectl exec, whose hooks run posts its http hooks.
func launchThroughExec(t *testing.T, a *Agent, name string) {
	t.Helper()
	home := t.TempDir()
	t.Cleanup(func() { Writable(home) })
	BundlectlRun(t, home, "--workspace", a.Workdir, "trust", name, reviewToken(t, home, a.Workdir, name))
	BundlectlRun(t, home, "--workspace", a.Workdir, "enable", name)
	a.Launcher = []string{Bundlectl(t), "--home", home, "--workspace", a.Workdir, "exec", "--"}
}
