package agenttest

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestClaudeHTTPHookProxyChoice: real Claude Code 2.1.332 posts every
// http hook, http:// and https:// alike, through the first of
// https_proxy, HTTPS_PROXY, http_proxy, HTTP_PROXY that is set (lower
// case before upper, the https names before the http ones), and goes
// through it by a CONNECT tunnel ("CONNECT 127.0.0.9:80": a loopback
// http url too, unless NO_PROXY names it), not by sending the url in
// absolute form; a host NO_PROXY names with a leading dot, or as
// host:port, is not sent there, while "*.example", a CIDR range and a
// bare IPv6 address name nothing. An IP:port or a name:port with no
// scheme, and a socks4://, socks5:// or socks5h:// url, are spoken to as
// an http proxy (a CONNECT in the clear). A --settings env
// https_proxy wins over the process's HTTPS_PROXY: Claude Code sets it
// in its environment, which hooks run inherits. Go's rule (HTTP_PROXY for http urls,
// HTTPS_PROXY for https, upper case first) sent bundlectl's hooks run
// elsewhere. bundlectl exec -- claude, whose hooks run posts them,
// sends the same as Claude Code.
func TestClaudeHTTPHookProxyChoice(t *testing.T) {
	t.Parallel()
	first, second := newConnectRecorder(t), newConnectRecorder(t)
	proxyOf := func(r *connectRecorder) string { return strings.TrimPrefix(r.Env[0], "HTTPS_PROXY=") }
	urls := []string{"http://127.0.0.9/a", "https://tls.example/b", "https://a.skip.example/c", "http://localhost:9/d"}
	want := []string{"CONNECT 127.0.0.9:80 HTTP/1.1", "CONNECT tls.example:443 HTTP/1.1"}
	cases := []struct {
		name string
		env  []string
		// settings is a --settings value; its env reaches hooks run
		// through Claude Code's environment.
		settings string
	}{
		{"lower https_proxy before HTTPS_PROXY and HTTP_PROXY, for http urls too", []string{
			"https_proxy=" + proxyOf(first), "HTTPS_PROXY=" + proxyOf(second), "http_proxy=", "HTTP_PROXY=" + proxyOf(second),
			"NO_PROXY=127.0.0.1,.skip.example localhost:9", "no_proxy=",
		}, ""},
		{"HTTP_PROXY alone, for https urls too", []string{
			"https_proxy=", "HTTPS_PROXY=", "http_proxy=", "HTTP_PROXY=" + proxyOf(first), "ALL_PROXY=" + proxyOf(second),
			"no_proxy=127.0.0.1,.skip.example,LOCALHOST:9", "NO_PROXY=",
		}, ""},
		{"IP:port with no scheme; no wildcard, CIDR or bare IPv6 in NO_PROXY", []string{
			"https_proxy=" + strings.TrimPrefix(proxyOf(first), "http://"), "HTTPS_PROXY=" + proxyOf(second), "http_proxy=", "HTTP_PROXY=",
			"NO_PROXY=127.0.0.1,*.example,127.0.0.0/8,.skip.example,localhost:9,::1", "no_proxy=",
		}, ""},
		{"socks5:// spoken to as an http proxy", []string{
			"https_proxy=", "HTTPS_PROXY=", "http_proxy=socks5://" + strings.TrimPrefix(proxyOf(first), "http://"), "HTTP_PROXY=" + proxyOf(second),
			"NO_PROXY=127.0.0.1,.skip.example,localhost:9", "no_proxy=",
		}, ""},
		{"name:port with no scheme", []string{
			"https_proxy=localhost:" + strings.TrimPrefix(proxyOf(first), "http://127.0.0.1:"), "HTTPS_PROXY=" + proxyOf(second), "http_proxy=", "HTTP_PROXY=",
			"NO_PROXY=127.0.0.1,.skip.example,localhost:9", "no_proxy=",
		}, ""},
		{"socks4:// spoken to as an http proxy", []string{
			"https_proxy=socks4://" + strings.TrimPrefix(proxyOf(first), "http://"), "HTTPS_PROXY=" + proxyOf(second), "http_proxy=", "HTTP_PROXY=",
			"NO_PROXY=127.0.0.1,.skip.example,localhost:9", "no_proxy=",
		}, ""},
		{"socks5h:// spoken to as an http proxy", []string{
			"https_proxy=", "HTTPS_PROXY=", "http_proxy=", "HTTP_PROXY=socks5h://" + strings.TrimPrefix(proxyOf(first), "http://"),
			"NO_PROXY=127.0.0.1,.skip.example,localhost:9", "no_proxy=",
		}, ""},
		{"settings env https_proxy before the process's HTTPS_PROXY", []string{
			"https_proxy=", "HTTPS_PROXY=" + proxyOf(second), "http_proxy=", "HTTP_PROXY=",
			"NO_PROXY=127.0.0.1,.skip.example,localhost:9", "no_proxy=",
		}, `{"env": {"https_proxy": "` + proxyOf(first) + `"}}`},
	}
	a := New(t, Claude, ShellCall(Claude, "true"), Say("done"))
	dir := filepath.Join(a.Workdir, ".bundlectl", "bundles", "px")
	writeHTTPHookPlugin(t, dir, "px", "PostToolUse", urls...)
	run := func(via string, args ...string) {
		for _, c := range cases {
			first.take()
			second.take()
			a.Env = c.env
			a.Args = append([]string{"--allowedTools", "Bash"}, args...)
			if c.settings != "" {
				a.Args = append(a.Args, "--settings", c.settings)
			}
			res := a.Run(t, "hello")
			got, other := first.take(), second.take()
			slices.Sort(got)
			if !slices.Equal(got, want) || len(other) != 0 {
				t.Errorf("%s, %s: the chosen proxy saw %q, the other %q; want %q and nothing\n%s", via, c.name, got, other, want, res)
			}
		}
	}
	run("claude --plugin-dir (2.1.332)", "--plugin-dir", dir)
	launchThroughExec(t, a, "px")
	run("bundlectl exec")
}

// TestClaudeHTTPHookProxyRefusedForms: real Claude Code 2.1.332 refuses a
// proxy setting with no scheme whose host JavaScript's URL reads as an
// IPv4 address in another form ("127.1", "0x7f000001", "0177.0.0.1") or
// that ends in a dot, and one with user information and no scheme: it
// says "Invalid proxy URL", exits and posts nothing, where hooks run
// took the host for a name Go's resolver looks up and posted through it
// (harness TestHTTPHookProxyAsClaudeCode: it now fails the hook naming
// the variable).
func TestClaudeHTTPHookProxyRefusedForms(t *testing.T) {
	t.Parallel()
	rec := newConnectRecorder(t)
	port := strings.TrimPrefix(strings.TrimPrefix(rec.Env[0], "HTTPS_PROXY="), "http://127.0.0.1:")
	for _, v := range []string{"127.1:" + port, "0x7f000001:" + port, "0177.0.0.1:" + port, "localhost.:" + port, "u:pw@127.0.0.1:" + port} {
		a := New(t, Claude, ShellCall(Claude, "true"), Say("done"))
		dir := filepath.Join(a.Workdir, "pr")
		writeHTTPHookPlugin(t, dir, "pr", "PostToolUse", "https://tls.example/b")
		a.Env = []string{"https_proxy=" + v, "HTTPS_PROXY=", "http_proxy=", "HTTP_PROXY=", "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost"}
		a.Args = []string{"--allowedTools", "Bash", "--plugin-dir", dir}
		res := a.Run(t, "hello")
		if got := rec.take(); len(got) > 0 || !strings.Contains(res.String(), "Invalid proxy URL") {
			t.Errorf("https_proxy=%s: the proxy saw %q; want nothing and Claude Code 2.1.332 saying \"Invalid proxy URL\"\n%s", v, got, res)
		}
	}
}
