package agenttest

import (
	"bufio"
	"io"
	"maps"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
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
	ln, err := net.Listen("tcp", "127.0.0.77:80")
	if err != nil {
		t.Skipf("no listener on 127.0.0.77:80 for the default http port: %v", err)
	}
	defer ln.Close()
	var mu sync.Mutex
	got := map[string]bool{}
	go serveHostHeaders(ln, func(line string) {
		mu.Lock()
		got[line] = true
		mu.Unlock()
	})
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
	var hooks []any
	for _, u := range urls {
		hooks = append(hooks, map[string]any{"type": "http", "url": u, "timeout": 10})
	}
	a := New(t, Claude, ShellCall(Claude, "true"), Say("done"))
	dir := filepath.Join(a.Workdir, ".bundlectl", "bundles", "dp")
	writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": "dp", "version": "1.0.0"})
	writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"PostToolUse": []any{map[string]any{"matcher": "Bash", "hooks": hooks}}}})
	// 127.0.0.77 is reached directly, the rest through the recorder.
	a.Env = append(slices.Clone(rec.Env[:2]), "NO_PROXY=127.0.0.1,127.0.0.77,localhost", "no_proxy=127.0.0.1,127.0.0.77,localhost")
	run := func(via string, args ...string) {
		mu.Lock()
		clear(got)
		mu.Unlock()
		a.Args = append([]string{"--allowedTools", "Bash"}, args...)
		res := a.Run(t, "hello")
		lines := rec.take()
		mu.Lock()
		defer mu.Unlock()
		for _, l := range lines {
			got[l] = true
		}
		for l := range want {
			if !got[l] {
				t.Errorf("%s sent no %q, which bundle.JSURLRequestTarget reads; it sent %q\n%s", via, l, slices.Sorted(maps.Keys(got)), res)
			}
		}
	}
	run("claude --plugin-dir (2.1.332)", "--plugin-dir", dir)
	home := t.TempDir()
	t.Cleanup(func() { Writable(home) })
	BundlectlRun(t, home, "--workspace", a.Workdir, "trust", "dp", reviewToken(t, home, a.Workdir, "dp"))
	BundlectlRun(t, home, "--workspace", a.Workdir, "enable", "dp")
	a.Launcher = []string{Bundlectl(t), "--home", home, "--workspace", a.Workdir, "exec", "--"}
	run("bundlectl exec")
}

// serveHostHeaders answers each HTTP request on ln with an empty JSON
// object, handing record its request line as it came and its Host
// header ("POST /c HTTP/1.1 Host: h"), until ln is closed.
func serveHostHeaders(ln net.Listener, record func(string)) {
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
			host, length := "", 0
			for {
				h, err := br.ReadString('\n')
				if err != nil {
					return
				}
				if h == "\r\n" {
					break
				}
				k, v, _ := strings.Cut(h, ":")
				switch strings.ToLower(k) {
				case "host":
					host = strings.TrimSpace(v)
				case "content-length":
					for _, d := range strings.TrimSpace(v) {
						length = length*10 + int(d-'0')
					}
				}
			}
			io.CopyN(io.Discard, br, int64(length))
			record(strings.TrimRight(line, "\r\n") + " Host: " + host)
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}")
		}()
	}
}
