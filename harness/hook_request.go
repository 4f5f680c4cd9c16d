package harness

import (
	"bytes"
	"context"
	"net/http"
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
// starting "//" with its origin, in absolute form); a url
// JavaScript's URL refuses, or that is not special, is left to Go's
// parser, which fails the hook or posts to it as before.
func newHookRequest(ctx context.Context, raw string, body []byte) (*http.Request, error) {
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
		// Go reads an Opaque starting "//" as an authority: the
		// request target is written whole ("http://h//x"), which a
		// server reads as the same path.
		req.URL.Opaque = "//" + req.URL.Host + path
	}
	req.URL.RawQuery = strings.TrimPrefix(query, "?")
	req.URL.ForceQuery = query == "?"
	return req, nil
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
