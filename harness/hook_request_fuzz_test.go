package harness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
)

// FuzzHookRequestLine: whatever url an http hook holds, the request Go
// writes for hooks run's post (built as postHook builds it; through a
// proxy it goes in a CONNECT tunnel, the same line) is one request whose request
// line is three fields and whose target holds only visible ASCII and no
// '#': no space, CR, LF, NUL, DEL or byte past ASCII reaches it, so no
// url can split the line or smuggle a second request behind it. A target
// in absolute form names the host the request connects to, and that host
// is the one the address checks read (bundle.JSURLRequestTarget's
// origin). Seeds: every vector of post_node20.json and urls built to
// break the line.
func FuzzHookRequestLine(f *testing.F) {
	data, err := os.ReadFile("../bundle/testdata/jsurl/post_node20.json")
	if err != nil {
		f.Fatal(err)
	}
	var vs [][2]string
	if err := json.Unmarshal(data, &vs); err != nil {
		f.Fatal(err)
	}
	for _, v := range vs {
		f.Add(v[0])
	}
	for _, s := range []string{
		"http://h/a b HTTP/1.1\r\nHost: evil\r\n\r\nPOST /x",
		"http://h/a%0d%0aX-Y: z",
		"http://h/?a\r\nX: y",
		"http://h/\x00\x7f\u00e9\u2028",
		"http://h//evil.example/x",
		`http://h\\evil.example/x`,
		"http://h/..//evil.example/x",
		"http://h/x/..//evil.example:81/x?y#z",
		"http://u:p@h//evil.example/x",
		"http://h:80//evil.example/x",
		"https://[::ffff:127.0.0.1]//x",
		"http://0x7f.1//x",
		"http://c%41.example//x",
		"http://h/a#b c\r\n",
		"\thttp://h/\tx\n",
		"http://h/${HOME} x",
		"http://${X}/",
		"http://h/%zz|'[]^`{}\\",
		"http:\"",
		"http://bc3e.9/?a b",
		"http://[fe80::1%25eth0]/?a b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if _, why := bundle.ClaudeHTTPURLRefused(raw); why != "" {
			return // postHook posts nothing
		}
		// As postHook builds it. Through a proxy it goes in a CONNECT
		// tunnel with the same line (hook_proxy.go).
		req, err := newHookRequest(context.Background(), raw, nil)
		if err != nil || refuseHookAddress(req) != nil {
			return
		}
		checkHookRequestLine(t, raw, req)
	})
}

// checkHookRequestLine fails t when req, the post of raw, is not written
// as exactly one request whose target is visible ASCII without '#', or
// whose absolute-form target names a host other than the one it
// connects to.
func checkHookRequestLine(t *testing.T, raw string, req *http.Request) {
	t.Helper()
	var buf bytes.Buffer
	err := req.Write(&buf)
	if err != nil || req.URL.Host == "" || req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		// Go refuses to write it, or its client to send it (no host,
		// a scheme it does not post): the hook fails, nothing is sent.
		return
	}
	line, _, _ := strings.Cut(buf.String(), "\r\n")
	fields := strings.Split(line, " ")
	if len(fields) != 3 || fields[0] != http.MethodPost || fields[2] != "HTTP/1.1" {
		t.Fatalf("%q: request line %q is not three fields", raw, line)
	}
	target := fields[1]
	for i := 0; i < len(target); i++ {
		if c := target[i]; c <= ' ' || c >= 0x7F || c == '#' {
			t.Fatalf("%q: request target %q holds %q", raw, target, c)
		}
	}
	br := bufio.NewReader(&buf)
	got, err := http.ReadRequest(br)
	if err != nil {
		// Go's own server refuses some targets Claude Code sends
		// ("/%zz"); the line was checked above.
		return
	}
	if got.Body != nil {
		got.Body.Close()
	}
	if n := br.Buffered(); n > 0 {
		t.Fatalf("%q: %d bytes follow the request (a second request?)", raw, n)
	}
	if !strings.HasPrefix(target, "/") && isASCIIText(req.URL.Host) {
		// Absolute form: its host must be the one Go connects to. (Go
		// writes and connects to a host past ASCII in its IDNA form,
		// which the url rules refuse anyway: msgNonASCIIHost.)
		if got.URL.Host != req.URL.Host {
			t.Fatalf("%q: target %q names host %q, the post connects to %q", raw, target, got.URL.Host, req.URL.Host)
		}
	}
	if origin, _, _, ok := bundle.JSURLRequestTarget(raw); ok && !strings.Contains(origin, "@") {
		// The review's "posted at" row (JSURLPostURL, its fragment
		// left out) is the url this request asks at.
		asked := target
		if strings.HasPrefix(target, "/") && got.Host == "" {
			// A host Go cannot write in a Host header ('"', which
			// JavaScript's URL takes): Go sends none, and connects
			// to a name no resolver answers.
			return
		}
		if strings.HasPrefix(target, "/") {
			asked = req.URL.Scheme + "://" + got.Host + target
		}
		posted, _, _ := strings.Cut(bundle.JSURLPostURL(raw), "#")
		if asked != posted {
			t.Fatalf("%q: the review shows it posted at %q, the request asks at %q", raw, posted, asked)
		}
		if want := strings.TrimPrefix(strings.TrimPrefix(origin, "http://"), "https://"); req.URL.Host != want && !strings.HasPrefix(origin, "ws") && !strings.HasPrefix(origin, "ftp") {
			t.Fatalf("%q: the post connects to %q, JavaScript's URL reads %q", raw, req.URL.Host, want)
		}
	}
}

func isASCIIText(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// TestHookRequestRefusesLineBreakingURL: a url JavaScript's URL refuses
// ("bc3e.9" ends in a number but is no IPv4 address), which the url
// rules keep for Codex, is read by Go's parser, which keeps a space or a
// byte past ASCII in a query as written, and Go's transport wrote it into
// the request line ("POST /?a b HTTP/1.1"). hooks run now posts nothing
// and says which byte.
func TestHookRequestRefusesLineBreakingURL(t *testing.T) {
	for _, raw := range []string{"https://bc3e.9/?a b", "https://bc3e.9/?\u00e9"} {
		_, err := newHookRequest(context.Background(), raw, nil)
		if err == nil || !strings.Contains(err.Error(), "request line") {
			t.Errorf("newHookRequest(%q) = %v, want it refused for its request line", raw, err)
		}
	}
}
