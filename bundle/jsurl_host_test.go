package bundle

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// jsHostVectors are testdata/jsurl/hosts_node20.json: a url and the
// hostname node 20's new URL reads in it ("refused" when it refuses the
// url); hosts_node20.js there writes them again.
func jsHostVectors(t testing.TB) [][2]string { return jsURLVectors(t, "hosts_node20.json") }

// jsURLVectors are the pairs of testdata/jsurl/name, which a script
// beside it writes from node 20.
func jsURLVectors(t testing.TB, name string) [][2]string {
	data, err := os.ReadFile("testdata/jsurl/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var vs [][2]string
	if err := json.Unmarshal(data, &vs); err != nil {
		t.Fatal(err)
	}
	return vs
}

// nodeHostname is h, a host endpointHost names, as node writes a url's
// hostname: an IPv4 address in any form JavaScript's URL reads ("10.1")
// in dotted decimal.
func nodeHostname(h string) string {
	if strings.Contains(h, ":") {
		return "[" + h + "]"
	}
	if a, ok := JSURLIPHost(h); ok {
		return a.String()
	}
	return h
}

// TestEndpointHostIsNodes: the url rules judge the host node 20's URL
// connects to. A url they pass names node's hostname (percent escapes of
// ASCII decoded: "c%41.example.com" is ca.example.com, "169%2e254.169.254"
// the metadata address); a host holding another character once decoded,
// which IDNA would map (fullwidth forms, "。", soft hyphens, "münchen"), is
// refused with msgNonASCIIHost, never passed as written, so no host that
// maps to a private address ("１0.0.0.5", "%E2%80%8B10.0.0.5") passes as a
// name; and a url node refuses passes none of jsURLRefuses and the url
// rules, but for the "xn--" labels left out (jsurl.go).
func TestEndpointHostIsNodes(t *testing.T) {
	vs := jsHostVectors(t)
	if len(vs) < 60 {
		t.Fatalf("only %d vectors", len(vs))
	}
	for _, v := range vs {
		url, node := v[0], v[1]
		h, msg := endpointHost(url)
		decoded := percentDecode(url)
		switch {
		case node == "refused":
			if !jsURLRefuses(url) && msg == "" && !strings.Contains(strings.ToLower(decoded), "xn--") {
				t.Errorf("%q: node refuses it, endpointHost names %q", url, h)
			}
		case !isASCII(decoded): // only the hosts are not ASCII
			if msg != msgNonASCIIHost {
				t.Errorf("%q: node reads %q, endpointHost (%q, %q), want %q", url, node, h, msg, msgNonASCIIHost)
			}
		case msg == "" && nodeHostname(h) != node:
			t.Errorf("%q: endpointHost names %q, node reads %q", url, h, node)
		}
	}
}

// TestEndpointHostDecodesPercent: a host that percent-encodes an ASCII
// character is judged decoded, as node 20 and Claude Code 2.1.332 read it
// (internal/agenttest TestClaudeHTTPHookNonASCIIHost), where Go's
// url.Parse refused the url: the hook was skipped (or its bundle refused)
// though the agent posts to it, and the address checks never saw the
// address ("169%2e254.169.254").
func TestEndpointHostDecodesPercent(t *testing.T) {
	for url, want := range map[string]string{
		"https://c%41.example.com/":          "ca.example.com",
		"https://C%41.EXAMPLE.COM:8443/x%41": "ca.example.com",
		"wss://%63a.example.com/h":           "ca.example.com",
		"http://127.0.0%2E1:9/g":             "127.0.0.1",
		"http://l%6Fcalhost:9/g":             "localhost",
		"https://1%30.0.0.5/g":               "10.0.0.5",
		"https://%31%30.1/":                  "10.1",
	} {
		if h, msg := endpointHost(url); h != want || msg != "" {
			t.Errorf("endpointHost(%q) = %q, %q; want %q", url, h, msg, want)
		}
	}
	// The address checks see the decoded address.
	if a, why := ClaudeHTTPURLRefused("https://169%2e254.169.254/latest"); why == "" || a.String() != "169.254.169.254" {
		t.Errorf("ClaudeHTTPURLRefused of a percent-encoded metadata address = %v, %q; want 169.254.169.254 refused", a, why)
	}
	// A credential in the query is still seen.
	if !urlHasCredential("https://c%41.example.com/h?token=abc123") {
		t.Error("urlHasCredential missed the token of a url whose host is percent-encoded")
	}
	// What is not ASCII once decoded stays refused, with its message.
	if _, msg := endpointHost("https://c%41%E2%80%8B.example.com/"); msg != msgNonASCIIHost {
		t.Errorf("a host holding a zero width space: %q, want %q", msg, msgNonASCIIHost)
	}
}

// FuzzJSURLDecodedHost: no input panics; a host the url rules pass is
// ASCII with no escape left; a url it rewrites is one
// JavaScript's URL parses, rewritten once for all (a second pass keeps
// it), with no percent escape left in its host, and the url rules read
// both alike.
func FuzzJSURLDecodedHost(f *testing.F) {
	for _, v := range jsHostVectors(f) {
		f.Add(v[0])
	}
	f.Fuzz(func(t *testing.T, s string) {
		// A host the url rules pass in a url JavaScript's URL parses is
		// plain ASCII with nothing left to decode: no IDNA mapping can
		// make it another name or address.
		if h, msg := endpointHost(s); msg == "" && !jsURLRefuses(s) && (!isASCII(h) || strings.Contains(h, "%")) {
			t.Errorf("endpointHost(%q) = %q, which IDNA or percent-decoding would read as another host", s, h)
		}
		d := JSURLDecodedHost(s)
		if d == s {
			return
		}
		if jsURLRefuses(d) {
			t.Errorf("JSURLDecodedHost(%q) = %q, which JavaScript's URL refuses", s, d)
		}
		if again := JSURLDecodedHost(d); again != d {
			t.Errorf("JSURLDecodedHost(%q) = %q, then %q", s, d, again)
		}
		if in, start, end, ok := jsSpecialHostSpan(d); !ok || strings.Contains(in[start:end], "%") {
			t.Errorf("JSURLDecodedHost(%q) = %q, its host still escaped", s, d)
		}
		h1, m1 := endpointHost(s)
		h2, m2 := endpointHost(d)
		if h1 != h2 || m1 != m2 {
			t.Errorf("endpointHost(%q) = %q, %q but of %q %q, %q", s, h1, m1, d, h2, m2)
		}
	})
}

// TestEndpointHostEscapedVariable: a host whose escapes spell "${"
// ("%24%7BX%7D") names no variable, which would leave its host unknown
// and unchecked: node reads the name "${x}.example", which Go refuses.
func TestEndpointHostEscapedVariable(t *testing.T) {
	if h, msg := endpointHost("https://%24%7BX%7D.example/"); msg == "" {
		t.Errorf("endpointHost of an escaped \"${\" = %q, no finding", h)
	}
}
