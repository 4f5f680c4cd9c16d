package harness

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
)

// newHookRequest is the POST of body an http hook's url (raw) makes,
// whose request line carries the path and query JavaScript's URL writes
// (bundle.JSURLRequestTarget), byte for byte, as Claude Code sends them:
// Go's url package escapes '^' and '|' in a path, and decodes and
// escapes the whole path again when it does ("/%41|" sent as "/A%7C"),
// and refuses a path holding "%zz", which Claude Code posts as written.
// The path goes in the url's Opaque, which Go writes as it is (a path
// starting "//" as setDoubleSlashPath has it); a url
// JavaScript's URL refuses, or that is not special, is left to Go's
// parser, which fails the hook or posts to it as before.
func newHookRequest(ctx context.Context, raw string, body []byte) (*http.Request, error) {
	req, err := newHookRequestTarget(ctx, raw, body)
	if err != nil {
		return nil, err
	}
	// The host too: it is written as it is into the Host header and a
	// proxy tunnel's CONNECT line (tunnelTransportFor).
	if c, bad := requestTargetByte(req.URL.Host + req.URL.RequestURI()); bad {
		return nil, fmt.Errorf("url %s puts %q in the request line, which carries only visible ASCII and no '#', so nothing is posted; percent-escape it in the url", bundle.Quote(raw), c)
	}
	return req, nil
}

// newHookRequestTarget is newHookRequest before its request target is
// checked.
func newHookRequestTarget(ctx context.Context, raw string, body []byte) (*http.Request, error) {
	origin, path, query, ok := bundle.JSURLRequestTarget(raw)
	if !ok {
		return http.NewRequestWithContext(ctx, http.MethodPost, raw, bytes.NewReader(body))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, origin, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.URL.Opaque = path
	if strings.HasPrefix(path, "//") {
		setDoubleSlashPath(req, path)
	}
	req.URL.RawQuery = strings.TrimPrefix(query, "?")
	req.URL.ForceQuery = query == "?"
	return req, nil
}

// setDoubleSlashPath sets req's path to path, which starts "//", so Go
// writes it in origin form ("POST //evil.example/x" with the Host
// header) as Claude Code 2.1.332 does (internal/agenttest
// TestClaudeHTTPGuardDoubleSlashPath): Go reads an Opaque starting "//"
// as an authority and writes the target in absolute form
// ("http://h//evil.example/x"), whose path a server reading the target
// as it comes (Python's http.server, node's req.url) reads otherwise, and
// a guard's deny there was lost. Go writes a Path as its RawPath when it
// can check RawPath escapes it; a path it cannot ('|', a '%' with no
// escape after it) is held in Opaque in absolute form, the url's host
// before it, which directTransportFor, or tunnelTransportFor inside a
// proxy's tunnel, writes in origin form.
func setDoubleSlashPath(req *http.Request, path string) {
	if p, err := url.PathUnescape(path); err == nil {
		req.URL.Opaque, req.URL.Path, req.URL.RawPath = "", p, path
		if req.URL.EscapedPath() == path {
			return
		}
	}
	req.URL.Opaque, req.URL.Path, req.URL.RawPath = "//"+req.URL.Host+path, "", ""
}

// requestTargetByte is the first byte of target (a request target as Go
// writes it) that a request line may not carry — a space, a control,
// DEL, a byte past ASCII, or '#' — and whether there is one. Go's
// transport refuses only the controls: it writes an Opaque path as it
// is, and a query Go's parser took as written ("?a b", "?é", which a url
// JavaScript's URL refuses, and hooks run posts for Codex, keeps), where
// a space splits the request line.
func requestTargetByte(target string) (byte, bool) {
	for i := 0; i < len(target); i++ {
		if c := target[i]; c <= ' ' || c >= 0x7F || c == '#' {
			return c, true
		}
	}
	return 0, false
}

// directTransportFor is the transport that posts req when no proxy is in
// the way: directHookTransport, or, for a path starting "//" that Go
// writes only in absolute form (setDoubleSlashPath), one whose
// connection writes it in origin form ("POST //evil.example/a|b"), as
// Claude Code 2.1.332 does (internal/agenttest
// TestClaudeHTTPGuardDoubleSlashPathBytes): a server reading the target
// as it comes reads the absolute form as another path, and a guard's
// deny there was lost.
func directTransportFor(req *http.Request) http.RoundTripper {
	return originFormFor(directHookTransport(), req)
}

// originFormFor is base, or, when req's path starts "//" and is held in
// absolute form, base writing it in origin form (directTransportFor).
func originFormFor(base *http.Transport, req *http.Request) http.RoundTripper {
	origin, ok := doubleSlashOriginTarget(req)
	if !ok {
		return base
	}
	line := func(target string) string { return req.Method + " " + target + " HTTP/1.1\r\n" }
	return originFormTransport(base, line(req.URL.RequestURI()), line(origin))
}

// doubleSlashOriginTarget is req's request target in origin form when
// setDoubleSlashPath held its path in Opaque in absolute form
// ("//host//evil.example/a|b"), and false otherwise.
func doubleSlashOriginTarget(req *http.Request) (string, bool) {
	authority := "//" + req.URL.Host
	path, ok := strings.CutPrefix(req.URL.Opaque, authority)
	if !ok || !strings.HasPrefix(path, "//") {
		return "", false
	}
	if req.URL.ForceQuery || req.URL.RawQuery != "" {
		path += "?" + req.URL.RawQuery
	}
	return path, true
}

// originFormTransport is base for one request whose request line Go
// writes as from and that goes out as to: its connections, over TLS too
// (only HTTP/1.1 is offered, so the line is the one written), rewrite
// the first line written on them, and each carries one request. A
// connection whose first write is not from fails the request: nothing
// is sent that was not checked.
func originFormTransport(base *http.Transport, from, to string) *http.Transport {
	t := base.Clone()
	t.DisableKeepAlives = true
	t.ForceAttemptHTTP2 = false
	dial := base.DialContext
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &requestLineConn{Conn: c, from: from, to: to}, nil
	}
	t.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		host, _, _ := net.SplitHostPort(addr)
		cfg := &tls.Config{}
		if base.TLSClientConfig != nil {
			cfg = base.TLSClientConfig.Clone()
		}
		cfg.ServerName, cfg.NextProtos = host, []string{"http/1.1"}
		tc := tls.Client(c, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			c.Close()
			return nil, err
		}
		return &requestLineConn{Conn: tc, from: from, to: to}, nil
	}
	return t
}

// requestLineConn writes to in place of from, the request line its first
// write starts with. Go's transport writes a request line in one write
// to its buffered writer, which reaches the connection first and whole.
type requestLineConn struct {
	net.Conn
	from, to string
	written  bool
}

func (c *requestLineConn) Write(p []byte) (int, error) {
	if c.written {
		return c.Conn.Write(p)
	}
	c.written = true
	if !bytes.HasPrefix(p, []byte(c.from)) {
		return 0, errors.New("the request line Go wrote is not the one checked, so nothing is posted")
	}
	if _, err := c.Conn.Write(append([]byte(c.to), p[len(c.from):]...)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// connectDialer dials addr through a CONNECT tunnel of the http or https
// proxy at proxy, with its user information as Proxy-Authorization, as
// Go's transport does; an answer other than 200, or bytes after it, fail
// the dial. The dial and the CONNECT exchange end with ctx.
func connectDialer(base *http.Transport, proxy *url.URL) func(context.Context, string, string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		port := proxy.Port()
		if port == "" {
			port = map[string]string{"http": "80", "https": "443"}[proxy.Scheme]
		}
		c, err := (&net.Dialer{}).DialContext(ctx, network, net.JoinHostPort(proxy.Hostname(), port))
		if err != nil {
			return nil, err
		}
		stop := context.AfterFunc(ctx, func() { c.Close() })
		defer stop()
		if proxy.Scheme == "https" {
			cfg := &tls.Config{}
			if base.TLSClientConfig != nil {
				cfg = base.TLSClientConfig.Clone()
			}
			cfg.ServerName, cfg.NextProtos = proxy.Hostname(), nil
			tc := tls.Client(c, cfg)
			if err := tc.HandshakeContext(ctx); err != nil {
				c.Close()
				return nil, err
			}
			c = tc
		}
		if err := openTunnel(c, proxy, addr); err != nil {
			c.Close()
			return nil, err
		}
		if !stop() {
			return nil, ctx.Err()
		}
		return c, nil
	}
}

// openTunnel asks the proxy on c for a tunnel to addr and reads its
// answer.
func openTunnel(c net.Conn, proxy *url.URL, addr string) error {
	connect := &http.Request{Method: http.MethodConnect, URL: &url.URL{Opaque: addr}, Host: addr, Header: http.Header{}}
	if u := proxy.User; u != nil {
		pw, _ := u.Password()
		connect.Header.Set("Proxy-Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(u.Username()+":"+pw)))
	}
	if err := connect.Write(c); err != nil {
		return err
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, connect)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("proxy %s answered CONNECT %s with %s", proxy.Redacted(), addr, resp.Status)
	}
	if br.Buffered() > 0 {
		return fmt.Errorf("proxy %s sent bytes after its answer to CONNECT %s", proxy.Redacted(), addr)
	}
	return nil
}
