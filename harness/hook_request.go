package harness

import (
	"bytes"
	"context"
	"fmt"
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
	// The host too: through a proxy in the clear it is written into
	// the request line as it is (proxyRequestTarget).
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
// escape after it) stays in absolute form, which names the same host
// (RFC 9112 3.2.2) and which a server must accept.
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

// proxyRequestTarget writes req's request target in absolute form
// ("http://host/path") when its path is held in Opaque (newHookRequest)
// and it goes through a proxy in the clear: Go writes an Opaque path as
// it is, where a proxy needs the whole url. Through a CONNECT tunnel
// (https) the path alone is right.
func proxyRequestTarget(req *http.Request) {
	if req.URL.Scheme == "http" && strings.HasPrefix(req.URL.Opaque, "/") && !strings.HasPrefix(req.URL.Opaque, "//") {
		req.URL.Opaque = "//" + req.URL.Host + req.URL.Opaque
	}
}
