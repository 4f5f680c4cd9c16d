package harness

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestHookRequestSendsNodesBytes: the request line of an http hook's post
// carries the path and query node 20's URL writes, byte for byte (but
// '^' in a path, which Claude Code 2.1.332 escapes and node keeps), for
// every code point up to U+00FF written into a path and a query, and the
// other urls of bundle/testdata/jsurl/post_node20.json, sent to a real
// server on 127.0.0.1 (through a proxy a hook goes in a CONNECT tunnel,
// which carries the same line: hook_proxy.go). Go's
// url package sent '|' as %7C and a single quote as %27 in a path, and
// then decoded and escaped the whole path again ("%41" sent as "A"), and
// refused "%zz" in a path, failing a hook Claude Code posts.
func TestHookRequestSendsNodesBytes(t *testing.T) {
	data, err := os.ReadFile("../bundle/testdata/jsurl/post_node20.json")
	if err != nil {
		t.Fatal(err)
	}
	var vs [][2]string
	if err := json.Unmarshal(data, &vs); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	srvURL := requestLineServer(t, got)
	hostport := strings.TrimPrefix(srvURL, "http://")
	direct := &http.Client{Transport: &http.Transport{}}
	n := 0
	for _, v := range vs {
		rest, ok := strings.CutPrefix(v[0], "https://h")
		if !ok || rest != "" && !strings.ContainsRune("/?#", rune(rest[0])) || v[1] == "refused" {
			continue
		}
		n++
		want := strings.TrimPrefix(v[1], "https://h")
		if path, query, ok := strings.Cut(want, "?"); ok {
			// Claude Code 2.1.332 escapes '^' in a path, node 20 keeps
			// it (internal/agenttest TestClaudeHTTPHookURLBytes).
			want = strings.ReplaceAll(path, "^", "%5E") + "?" + query
		} else {
			want = strings.ReplaceAll(want, "^", "%5E")
		}
		req, err := newHookRequest(context.Background(), "http://"+hostport+rest, nil)
		if err != nil {
			t.Errorf("%q: %v", v[0], err)
			continue
		}
		resp, err := direct.Do(req)
		if err != nil {
			t.Errorf("%q: %v", v[0], err)
			continue
		}
		resp.Body.Close()
		asked := <-got
		if asked != want && !(strings.HasPrefix(want, "//") && asked == "http://"+hostport+want) {
			t.Errorf("%q: the server was asked at %q, node 20 writes %q", v[0], asked, want)
		}
	}
	if n < 280 {
		t.Fatalf("only %d vectors with host h", n)
	}
}

// requestLineServer serves HTTP on 127.0.0.1 until the test ends, sends
// the target of each request line it reads to got as it came, and answers
// 200 with no body. It is no net/http server, which refuses a target such
// as "/%zz" before a handler sees it (400), where Claude Code's server
// may not.
func requestLineServer(t *testing.T, got chan<- string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	serveRequestLines(ln, got)
	return "http://" + ln.Addr().String()
}

// serveRequestLines is requestLineServer's server on ln.
func serveRequestLines(ln net.Listener, got chan<- string) {
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				line, err := br.ReadString('\n')
				if err != nil {
					return
				}
				for {
					h, err := br.ReadString('\n')
					if err != nil || h == "\r\n" {
						break
					}
				}
				parts := strings.Split(strings.TrimSuffix(line, "\r\n"), " ")
				if len(parts) == 3 {
					got <- parts[1]
				} else {
					got <- "(bad request line " + strconv.Quote(line) + ")"
				}
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
			}()
		}
	}()
}

// TestHookRequestDoubleSlashOriginForm: a path starting "//" is sent in
// origin form, as Claude Code 2.1.332 sends it ("POST //evil.example/x",
// internal/agenttest TestClaudeHTTPGuardDoubleSlashPath); hooks run sent "POST http://h//evil.example/x" directly, whose path a server
// reading the target as it comes reads otherwise. So is a path Go cannot
// write from its Path ('|', "%zz", a lone '%'), which Go writes only in
// absolute form ("POST http://h//evil.example/a|b"): its connection
// rewrites the request line (directTransportFor), as Claude Code 2.1.332
// sends it in origin form (internal/agenttest
// TestClaudeHTTPGuardDoubleSlashPathBytes). Through a proxy a hook goes
// in a CONNECT tunnel, as Claude Code's does, with the same line
// (TestHookRequestDoubleSlashOriginFormTunnel).
func TestHookRequestDoubleSlashOriginForm(t *testing.T) {
	got := make(chan string, 1)
	srvURL := requestLineServer(t, got)
	hostport := strings.TrimPrefix(srvURL, "http://")
	for rest, want := range map[string]string{
		"//evil.example/x?1":         "//evil.example/x?1",
		"/a/..//evil.example:81/x?4": "//evil.example:81/x?4",
		`\\evil.example/x?5`:         "//evil.example/x?5",
		"//evil.example/%41%2F'[]":   "//evil.example/%41%2F'[]",
		"//evil.example/a|b":         "//evil.example/a|b",
		"//evil.example/%zz":         "//evil.example/%zz",
		"//evil.example/a|b%?q|%":    "//evil.example/a|b%?q|%",
		"//evil.example/a%?":         "//evil.example/a%?",
	} {
		req, err := newHookRequest(context.Background(), "http://"+hostport+rest, nil)
		if err != nil {
			t.Fatalf("%q: %v", rest, err)
		}
		client := &http.Client{Transport: directTransportFor(req)}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%q: %v", rest, err)
		}
		resp.Body.Close()
		if asked := <-got; asked != want {
			t.Errorf("%q: asked at %q, want %q", rest, asked, want)
		}
	}
}

// TestHookRequestDoubleSlashOriginFormTLS: over https too, a path starting
// "//" that Go writes only in absolute form reaches the server in origin
// form, as the server's own reading of the request target shows; the
// rewrite sits above TLS, on the connection directTransportFor dials.
func TestHookRequestDoubleSlashOriginFormTLS(t *testing.T) {
	addr, got, clientTLS := tlsRequestLineServer(t)
	base := directHookTransport().Clone()
	base.TLSClientConfig = clientTLS
	for _, rest := range []string{"//evil.example/a|b%", "//evil.example/%zz?q|%", "//evil.example/x"} {
		req, err := newHookRequest(context.Background(), "https://"+addr+rest, []byte("{}"))
		if err != nil {
			t.Fatalf("%q: %v", rest, err)
		}
		resp, err := (&http.Client{Transport: originFormFor(base, req)}).Do(req)
		if err != nil {
			t.Fatalf("%q: %v", rest, err)
		}
		resp.Body.Close()
		if asked := <-got; asked != rest {
			t.Errorf("%q: asked at %q, want it in origin form", rest, asked)
		}
	}
}

// TestRequestLineConnSendsNothingUnchecked: the connection that rewrites
// a "//" path's request line into origin form writes nothing when the
// first line Go writes is not the one checked, and writes the rest after
// the rewritten line as it comes.
func TestRequestLineConnSendsNothingUnchecked(t *testing.T) {
	for _, c := range []struct{ first, want string }{
		{"POST http://h//a|b HTTP/1.1\r\nHost: h\r\n", "POST //a|b HTTP/1.1\r\nHost: h\r\n"},
		{"POST http://h//other HTTP/1.1\r\nHost: h\r\n", ""},
	} {
		client, server := net.Pipe()
		got := make(chan string, 1)
		go func() {
			b, _ := io.ReadAll(server)
			got <- string(b)
		}()
		conn := &requestLineConn{Conn: client, from: "POST http://h//a|b HTTP/1.1\r\n", to: "POST //a|b HTTP/1.1\r\n"}
		_, err := conn.Write([]byte(c.first))
		client.Close()
		if s := <-got; s != c.want || (err == nil) != (c.want != "") {
			t.Errorf("%q: wrote %q (%v), want %q", c.first, s, err, c.want)
		}
	}
}

// tlsRequestLineServer serves https on 127.0.0.1 with httptest's
// certificate, on a listener that reads each request line as it comes
// (Go's server refuses "%zz" in a target) and sends its target on got;
// it returns its address, got and a client TLS configuration that
// trusts the certificate.
func tlsRequestLineServer(t *testing.T) (addr string, got chan string, clientTLS *tls.Config) {
	t.Helper()
	cert := httptest.NewUnstartedServer(nil)
	cert.StartTLS()
	cert.Close()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cert.TLS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got = make(chan string, 1)
	serveRequestLines(ln, got)
	return ln.Addr().String(), got, cert.Client().Transport.(*http.Transport).TLSClientConfig
}
