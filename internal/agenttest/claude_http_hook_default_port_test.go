package agenttest

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
)

// TestClaudeHTTPHookDefaultPortAndSchemeCase: real Claude Code 2.1.332
// reads an http hook's url with an upper-case scheme ("HTTPS://",
// "HTTP://") or the scheme's default port written out (":443" on https,
// ":80" on http) as bundle.JSURLRequestTarget does, whose origin hooks
// run posts to. Through a proxy that records the first line of each
// connection, an https hook's CONNECT names host:443 whether or not the
// url writes ":443", the host lowercased; posted directly to a raw
// listener on port 80, an http hook's request has the Host header
// "127.0.0.77", no ":80", whether the url writes ":80" or "HTTP://".
// Until now only node 20's URL (testdata/jsurl vectors) pinned these
// forms. bundlectl exec -- claude, whose hooks run posts them, sends
// the same. (Through a proxy Claude Code tunnels an http hook too,
// "CONNECT host:80", and so does hooks run: TestClaudeHTTPHookProxyChoice.)
func TestClaudeHTTPHookDefaultPortAndSchemeCase(t *testing.T) {
	t.Parallel()
	srv, err := listenHookServer(t, "127.0.0.77:80", nil)
	if err != nil {
		t.Skipf("no listener on 127.0.0.77:80 for the default http port: %v", err)
	}
	rec := newConnectRecorder(t)
	urls := []string{
		"https://dp443.example:443/a",
		"HTTPS://UP.example/b",
		"http://127.0.0.77:80/c",
		"HTTP://127.0.0.77/d",
	}
	want := map[string]bool{}
	for _, u := range urls {
		origin, path, query, ok := bundle.JSURLRequestTarget(u)
		if !ok {
			t.Fatalf("JSURLRequestTarget(%q) reads no url", u)
		}
		if host, ok := strings.CutPrefix(origin, "https://"); ok {
			want["CONNECT "+host+":443 HTTP/1.1"] = true
			continue
		}
		want["POST "+path+query+" HTTP/1.1 Host: "+strings.TrimPrefix(origin, "http://")] = true
	}
	a := New(t, Claude, ShellCall(Claude, "true"), Say("done"))
	dir := filepath.Join(a.Workdir, ".bundlectl", "bundles", "dp")
	writeHTTPHookPlugin(t, dir, "dp", "PostToolUse", urls...)
	// 127.0.0.77 is reached directly, the rest through the recorder.
	a.Env = append(slices.Clone(rec.Env[:2]), "NO_PROXY=127.0.0.1,127.0.0.77,localhost", "no_proxy=127.0.0.1,127.0.0.77,localhost")
	run := func(via string, args ...string) {
		srv.take()
		a.Args = append([]string{"--allowedTools", "Bash"}, args...)
		res := a.Run(t, "hello")
		got := map[string]bool{}
		for _, l := range rec.take() {
			got[l] = true
		}
		for _, r := range srv.take() {
			got[r.Line+" Host: "+r.Host] = true
		}
		for l := range want {
			if !got[l] {
				t.Errorf("%s sent no %q, which bundle.JSURLRequestTarget reads; it sent %q\n%s", via, l, slices.Sorted(maps.Keys(got)), res)
			}
		}
	}
	run("claude --plugin-dir (2.1.332)", "--plugin-dir", dir)
	launchThroughExec(t, a, "dp")
	run("bundlectl exec")
}
