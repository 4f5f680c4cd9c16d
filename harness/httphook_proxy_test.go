package harness_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
)

// denyAnswer is an http hook's answer that denies the call, saying who
// gave it.
func denyAnswer(who string) string {
	body := fmt.Sprintf(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":%q}}`, who)
	return fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
}

// tunnelProxy is an http proxy on 127.0.0.1 that opens every CONNECT
// tunnel to itself: it records the CONNECT line and the request line
// sent inside the tunnel, and answers the request with a deny naming
// the proxy. A request in absolute form (no CONNECT) is recorded and
// answered alike.
type tunnelProxy struct {
	name string
	url  string
	mu   sync.Mutex
	seen []string
}

func newTunnelProxy(t *testing.T, name string) *tunnelProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	return serveTunnelProxy(t, name, ln)
}

// serveTunnelProxy is a tunnelProxy answering on ln.
func serveTunnelProxy(t *testing.T, name string, ln net.Listener) *tunnelProxy {
	t.Cleanup(func() { ln.Close() })
	p := &tunnelProxy{name: name, url: "http://" + ln.Addr().String()}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	return p
}

func (p *tunnelProxy) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	line, ok := readHead(br)
	if !ok {
		return
	}
	p.record(line)
	if strings.HasPrefix(line, "CONNECT ") {
		io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
		if b, err := br.Peek(1); err != nil || b[0] == 0x16 {
			return // a TLS handshake: the tunnel is closed, the hook fails
		}
		if line, ok = readHead(br); !ok {
			return
		}
		p.record("in tunnel: " + line)
	}
	io.WriteString(c, denyAnswer(p.name))
}

// readHead reads a request's line and headers, and its body when it
// has a Content-Length, returning the line.
func readHead(br *bufio.Reader) (string, bool) {
	line, err := br.ReadString('\n')
	if err != nil {
		return "", false
	}
	length := 0
	for {
		h, err := br.ReadString('\n')
		if err != nil {
			return "", false
		}
		if h == "\r\n" {
			break
		}
		if k, v, _ := strings.Cut(h, ":"); strings.EqualFold(k, "content-length") {
			fmt.Sscan(strings.TrimSpace(v), &length)
		}
	}
	io.CopyN(io.Discard, br, int64(length))
	return strings.TrimRight(line, "\r\n"), true
}

func (p *tunnelProxy) record(line string) {
	p.mu.Lock()
	p.seen = append(p.seen, line)
	p.mu.Unlock()
}

func (p *tunnelProxy) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	got := p.seen
	p.seen = nil
	return got
}

// TestHTTPHookProxyAsClaudeCode: hooks run posts an http hook through
// the proxy Claude Code 2.1.332 posts it through, and the same way: the
// first of https_proxy, HTTPS_PROXY, http_proxy, HTTP_PROXY set, for
// http and https urls alike, by a CONNECT tunnel (an http url's request
// in origin form inside it), past it for a host NO_PROXY / no_proxy
// names as Claude Code reads them (internal/agenttest
// TestClaudeHTTPHookProxyChoice). Go's rule (HTTP_PROXY for http urls,
// HTTPS_PROXY for https, upper case first, ALL_PROXY unread) posted
// elsewhere or directly. A proxy setting Claude Code would ignore or
// that bundlectl cannot tunnel through fails the hook, nothing posted.
func TestHTTPHookProxyAsClaudeCode(t *testing.T) {
	first, second := newTunnelProxy(t, "first"), newTunnelProxy(t, "second")
	direct, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer direct.Close()
	go func() {
		for {
			c, err := direct.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if _, ok := readHead(bufio.NewReader(c)); ok {
					io.WriteString(c, denyAnswer("direct"))
				}
			}()
		}
	}()
	port := direct.Addr().(*net.TCPAddr).Port
	local := fmt.Sprintf("http://127.0.0.1:%d/d", port)
	vars := []string{"https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy"}
	for _, c := range []struct {
		name, url string
		env       map[string]string
		// by names who denied ("first", "second", "direct"), or "" when
		// the hook failed; seen is what the first proxy saw.
		by   string
		seen []string
		says string
	}{
		{"lower https_proxy alone, http url", "http://127.0.0.9/a", map[string]string{"https_proxy": first.url},
			"first", []string{"CONNECT 127.0.0.9:80 HTTP/1.1", "in tunnel: POST /a HTTP/1.1"}, ""},
		{"https_proxy before HTTPS_PROXY and HTTP_PROXY", "http://127.0.0.9/a?q", map[string]string{"https_proxy": first.url, "HTTPS_PROXY": second.url, "HTTP_PROXY": second.url},
			"first", []string{"CONNECT 127.0.0.9:80 HTTP/1.1", "in tunnel: POST /a?q HTTP/1.1"}, ""},
		{"HTTPS_PROXY before http_proxy", "http://localhost/b", map[string]string{"HTTPS_PROXY": first.url, "http_proxy": second.url},
			"first", []string{"CONNECT localhost:80 HTTP/1.1", "in tunnel: POST /b HTTP/1.1"}, ""},
		{"http_proxy before HTTP_PROXY", "http://127.0.0.9/c", map[string]string{"http_proxy": first.url, "HTTP_PROXY": second.url},
			"first", []string{"CONNECT 127.0.0.9:80 HTTP/1.1", "in tunnel: POST /c HTTP/1.1"}, ""},
		{"HTTP_PROXY alone, https url", "https://tls.example/e", map[string]string{"HTTP_PROXY": first.url},
			"", []string{"CONNECT tls.example:443 HTTP/1.1"}, "http hook"},
		{"ALL_PROXY unread", local, map[string]string{"ALL_PROXY": first.url, "all_proxy": first.url}, "direct", nil, ""},
		{"NO_PROXY *", local, map[string]string{"https_proxy": first.url, "NO_PROXY": "*"}, "direct", nil, ""},
		{"no_proxy * beside NO_PROXY", local, map[string]string{"https_proxy": first.url, "no_proxy": "*", "NO_PROXY": "other.example"}, "direct", nil, ""},
		{"no_proxy host:port", local, map[string]string{"https_proxy": first.url, "no_proxy": fmt.Sprintf("127.0.0.1:%d", port)}, "direct", nil, ""},
		{"NO_PROXY bare host beside no_proxy, space-separated", local, map[string]string{"https_proxy": first.url, "no_proxy": "a.example", "NO_PROXY": "b.example 127.0.0.1"}, "direct", nil, ""},
		{"NO_PROXY dot names the host itself", "http://localhost/f", map[string]string{"https_proxy": first.url, "NO_PROXY": ".localhost"}, "", nil, "http hook"},
		{"NO_PROXY other port", local, map[string]string{"https_proxy": first.url, "NO_PROXY": "127.0.0.1:1"},
			"first", []string{fmt.Sprintf("CONNECT 127.0.0.1:%d HTTP/1.1", port), "in tunnel: POST /d HTTP/1.1"}, ""},
		{"NO_PROXY CIDR is not read", local, map[string]string{"https_proxy": first.url, "NO_PROXY": "127.0.0.0/8"},
			"first", []string{fmt.Sprintf("CONNECT 127.0.0.1:%d HTTP/1.1", port), "in tunnel: POST /d HTTP/1.1"}, ""},
		{"NO_PROXY *.suffix is not a wildcard", "http://localhost/g", map[string]string{"https_proxy": first.url, "NO_PROXY": "*host"},
			"first", []string{"CONNECT localhost:80 HTTP/1.1", "in tunnel: POST /g HTTP/1.1"}, ""},
		{"IP:port without a scheme", "http://127.0.0.9/a", map[string]string{"https_proxy": strings.TrimPrefix(first.url, "http://"), "HTTPS_PROXY": second.url},
			"first", []string{"CONNECT 127.0.0.9:80 HTTP/1.1", "in tunnel: POST /a HTTP/1.1"}, ""},
		{"socks5 proxy spoken to as http", "http://127.0.0.9/a", map[string]string{"HTTPS_PROXY": "socks5://" + strings.TrimPrefix(first.url, "http://")},
			"first", []string{"CONNECT 127.0.0.9:80 HTTP/1.1", "in tunnel: POST /a HTTP/1.1"}, ""},
		{"name:port without a scheme", "http://127.0.0.9/a", map[string]string{"https_proxy": "localhost:" + strings.TrimPrefix(first.url, "http://127.0.0.1:")},
			"first", []string{"CONNECT 127.0.0.9:80 HTTP/1.1", "in tunnel: POST /a HTTP/1.1"}, ""},
		{"socks4 proxy spoken to as http", "http://127.0.0.9/a", map[string]string{"HTTPS_PROXY": "socks4://" + strings.TrimPrefix(first.url, "http://")},
			"first", []string{"CONNECT 127.0.0.9:80 HTTP/1.1", "in tunnel: POST /a HTTP/1.1"}, ""},
		{"socks5h proxy spoken to as http", "http://127.0.0.9/a", map[string]string{"HTTPS_PROXY": "socks5h://" + strings.TrimPrefix(first.url, "http://")},
			"first", []string{"CONNECT 127.0.0.9:80 HTTP/1.1", "in tunnel: POST /a HTTP/1.1"}, ""},
		{"an IPv4 form JavaScript reads otherwise, no scheme", local, map[string]string{"https_proxy": "127.1:" + strings.TrimPrefix(first.url, "http://127.0.0.1:")}, "", nil, "reads as another name or address"},
		{"a hex IPv4 with no scheme", local, map[string]string{"https_proxy": "0x7f000001:" + strings.TrimPrefix(first.url, "http://127.0.0.1:")}, "", nil, "reads as another name or address"},
		{"an octal IPv4 with no scheme", local, map[string]string{"https_proxy": "0177.0.0.1:" + strings.TrimPrefix(first.url, "http://127.0.0.1:")}, "", nil, "reads as another name or address"},
		{"a name with a trailing dot and no scheme", local, map[string]string{"https_proxy": "localhost.:" + strings.TrimPrefix(first.url, "http://127.0.0.1:")}, "", nil, "reads as another name or address"},
		{"a name with no port and no scheme", local, map[string]string{"https_proxy": "proxy.example"}, "", nil, "https_proxy=\"proxy.example\" is not an http:// or https:// url"},
		{"a scheme-relative url", local, map[string]string{"https_proxy": "//127.0.0.1:3128"}, "", nil, "https_proxy=\"//127.0.0.1:3128\" is not an http:// or https:// url"},
		{"credential kept out of the message", local, map[string]string{"https_proxy": "u:secret@proxy.example:3128"}, "", nil, `https_proxy="***@proxy.example:3128" is not`},
		{"another scheme", local, map[string]string{"HTTPS_PROXY": "socks4a://" + strings.TrimPrefix(first.url, "http://")}, "", nil, `names a "socks4a" proxy`},
		{"proxy at the metadata address", local, map[string]string{"HTTP_PROXY": "http://169.254.169.254:3128"}, "", nil, "cloud metadata"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, v := range vars {
				t.Setenv(v, c.env[v])
			}
			first.take()
			second.take()
			home, ws := httpGuard(t, []byte(fmt.Sprintf(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": %q, "timeout": 5}]}]}}`, c.url)))
			r, err := harness.Load(harness.Options{Home: home, Workspace: ws, Host: bundle.HostClaude})
			must(t, err)
			defer r.Close()
			out, err := r.FireHooks(context.Background(), "PreToolUse", []byte(`{"tool_name":"Bash","tool_input":{"command":"ls"}}`))
			must(t, err)
			by := ""
			if out.Blocked {
				by = out.Reason
			}
			all := fmt.Sprintf("%s %+v", out.Reason, out.Errors)
			seen, other := first.take(), second.take()
			if !strings.Contains(by, c.by) || (c.by == "") != !out.Blocked || fmt.Sprint(seen) != fmt.Sprint(c.seen) || len(other) != 0 || !strings.Contains(all, c.says) {
				t.Fatalf("denied by %q, the first proxy saw %q, the second %q, said %q; want denied by %q, the first proxy seeing %q, the second nothing, saying %q, as Claude Code 2.1.332", by, seen, other, all, c.by, c.seen, c.says)
			}
		})
	}
}

// TestHTTPHookProxyDefaultPort: a proxy url with no port
// ("http://proxyhost") is asked at its scheme's port, 80, as Claude Code
// 2.1.332 asks it (docs/hooks.md's proxy table), not refused and not
// asked at another port. The proxy listens on 127.77.0.1:80, an unusual
// loopback address, so that no other test's listener is in the way;
// tests run as root, who may listen below 1024.
func TestHTTPHookProxyDefaultPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.77.0.1:80")
	if err != nil {
		t.Skipf("cannot listen on 127.77.0.1:80 (needs root): %v", err)
	}
	p := serveTunnelProxy(t, "port80", ln)
	for _, v := range []string{"https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY", "NO_PROXY", "no_proxy"} {
		t.Setenv(v, "")
	}
	t.Setenv("https_proxy", "http://127.77.0.1")
	home, ws := httpGuard(t, []byte(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": "http://127.0.0.9/a", "timeout": 5}]}]}}`))
	r, err := harness.Load(harness.Options{Home: home, Workspace: ws, Host: bundle.HostClaude})
	must(t, err)
	defer r.Close()
	out, err := r.FireHooks(context.Background(), "PreToolUse", []byte(`{"tool_name":"Bash","tool_input":{"command":"ls"}}`))
	must(t, err)
	want := []string{"CONNECT 127.0.0.9:80 HTTP/1.1", "in tunnel: POST /a HTTP/1.1"}
	if seen := p.take(); !out.Blocked || !strings.Contains(out.Reason, "port80") || fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Fatalf("blocked %v by %q, errors %+v; the proxy at 127.77.0.1:80 saw %q, want a deny from it after %q", out.Blocked, out.Reason, out.Errors, seen, want)
	}
}

// TestHTTPHookProxyFixRuns: a proxy setting real Claude Code 2.1.332
// posts through but bundlectl does not read — spaces around it, a
// host:port with a path and no scheme (internal/agenttest
// TestClaudeHTTPHookProxyOtherForms) — fails the hook with nothing
// posted, saying which; the setting the hint exports (TestProxyFixHint
// runs it as printed) is read, and the hook goes through that proxy.
func TestHTTPHookProxyFixRuns(t *testing.T) {
	p := newTunnelProxy(t, "first")
	hostPort := strings.TrimPrefix(p.url, "http://")
	port := strings.TrimPrefix(hostPort, "127.0.0.1:")
	home, ws := httpGuard(t, []byte(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": "http://127.0.0.9/a", "timeout": 5}]}]}}`))
	fire := func() harness.Outcome {
		r, err := harness.Load(harness.Options{Home: home, Workspace: ws, Host: bundle.HostClaude})
		must(t, err)
		defer r.Close()
		out, err := r.FireHooks(context.Background(), "PreToolUse", []byte(`{"tool_name":"Bash","tool_input":{"command":"ls"}}`))
		must(t, err)
		return out
	}
	for _, c := range []struct{ value, says, fix string }{
		{" " + p.url, "has spaces around it", p.url},
		{p.url + " ", "has spaces around it", p.url},
		{"localhost:" + port + "/", "has a path after host:port", "http://localhost:" + port},
		{hostPort + "/x", "has a path after host:port", p.url},
	} {
		for _, n := range []string{"https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY", "NO_PROXY", "no_proxy"} {
			t.Setenv(n, "")
		}
		t.Setenv("https_proxy", c.value)
		out := fire()
		if msg := fmt.Sprint(out.Errors); out.Blocked || len(p.take()) != 0 || !strings.Contains(msg, c.says) {
			t.Fatalf("https_proxy=%q: blocked %v, errors %s; want the hook failed, nothing posted, saying %q", c.value, out.Blocked, msg, c.says)
		}
		t.Setenv("https_proxy", c.fix)
		if out := fire(); !out.Blocked || !strings.Contains(out.Reason, "first") {
			t.Errorf("https_proxy=%q, then %q: blocked %v by %q, errors %+v; want a deny from the proxy", c.value, c.fix, out.Blocked, out.Reason, out.Errors)
		}
		p.take()
	}
}

// TestHTTPHookProxyHintWhole: a proxy refusal reaches hooks run's
// errors whole, its hint an export that works as printed. The failure
// was cut to 160 characters as if it were a hook's stderr, so the hint
// arrived cut mid-command ("…export https_proxy=http://lo…").
func TestHTTPHookProxyHintWhole(t *testing.T) {
	p := newTunnelProxy(t, "first")
	home, ws := httpGuard(t, []byte(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": "http://127.0.0.9/a", "timeout": 5}]}]}}`))
	for _, n := range []string{"https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY", "NO_PROXY", "no_proxy"} {
		t.Setenv(n, "")
	}
	t.Setenv("https_proxy", " "+p.url)
	r, err := harness.Load(harness.Options{Home: home, Workspace: ws, Host: bundle.HostClaude})
	must(t, err)
	defer r.Close()
	out, err := r.FireHooks(context.Background(), "PreToolUse", []byte(`{"tool_name":"Bash","tool_input":{"command":"ls"}}`))
	must(t, err)
	if len(out.Errors) != 1 {
		t.Fatalf("errors %+v; want one", out.Errors)
	}
	msg := out.Errors[0].Message
	_, hint, ok := strings.Cut(msg, "to use the proxy Claude Code uses: ")
	if !ok || strings.Contains(msg, "…") {
		t.Fatalf("no whole hint: %s", msg)
	}
	got, err := exec.Command("sh", "-c", hint+`; printf %s "$https_proxy"`).Output()
	if err != nil || string(got) != p.url {
		t.Errorf("%s set https_proxy=%q (%v), want %q", hint, got, err, p.url)
	}
}
