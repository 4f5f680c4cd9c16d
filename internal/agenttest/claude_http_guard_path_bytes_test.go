package agenttest

import (
	"bufio"
	"io"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestClaudeHTTPGuardPathBytes: real Claude Code 2.1.332 posts an http
// guard whose url is "http://127.0.0.1:PORT/x/./a^b|%41`{x}'/y/%2e%2E/c?q|^'`"
// with the request target "/x/a%5Eb|%41%60%7Bx%7D'/c?q|^%27`" ('|' and
// "%41" as written, '^', '`', '{', '}' escaped in the path, a single
// quote in the query, the dot segments resolved; node 20's URL keeps '^'
// in a path), read off the request line by a server that is no net/http,
// and the deny there blocks the tool. So does bundlectl exec -- claude,
// whose hooks run sent "/x/a%5Eb%7CA%60%7Bx%7D%27/c" and let the call
// through (harness TestHTTPHookPathBytes).
func TestClaudeHTTPGuardPathBytes(t *testing.T) {
	checkClaudeHTTPGuardAskedAt(t, "pb", "/x/./a^b|%41`{x}'/y/%2e%2E/c?q|^'`", "/x/a%5Eb|%41%60%7Bx%7D'/c?q|^%27`")
}

// checkClaudeHTTPGuardAskedAt puts an http guard on Bash, in a bundle
// named name, whose url is a raw listener's address followed by path; the
// listener reads the request target as it comes and denies only at want.
// A Claude Code session whose model runs Bash is run twice, with
// --plugin-dir and then under bundlectl exec with the bundle trusted:
// each time the guard must be asked exactly once, at want, and the tool
// blocked.
func checkClaudeHTTPGuardAskedAt(t *testing.T, name, path, want string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var mu sync.Mutex
	var got []string
	go serveRequestLines(ln, func(target string) string {
		mu.Lock()
		got = append(got, target)
		mu.Unlock()
		if target != want {
			return `{}`
		}
		return `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"denied at the path Claude Code writes"}}`
	})
	rec := t.TempDir()
	a := New(t, Claude, ShellCall(Claude, "touch "+filepath.Join(rec, "tool-ran")), Say("done"))
	dir := filepath.Join(a.Workdir, ".bundlectl", "bundles", name)
	writeClaudeBashGuard(t, dir, name, map[string]any{"type": "http", "url": "http://" + ln.Addr().String() + path, "timeout": 10})
	a.Env = []string{"NO_PROXY=*", "no_proxy=*"}
	run := func(via string, args ...string) {
		mu.Lock()
		got = nil
		mu.Unlock()
		removeIfExists(t, filepath.Join(rec, "tool-ran"))
		a.Args = append([]string{"--allowedTools", "Bash"}, args...)
		res := a.Run(t, "hello")
		mu.Lock()
		defer mu.Unlock()
		if ran := exists(filepath.Join(rec, "tool-ran")); ran || !slices.Equal(got, []string{want}) {
			t.Errorf("%s: the tool ran = %v, the guard was asked at %q; want it asked at %q and the tool blocked (found by trying Claude Code 2.1.332)\n%s", via, ran, got, want, res)
		}
	}
	run("claude --plugin-dir", "--plugin-dir", dir)
	home := t.TempDir()
	t.Cleanup(func() { Writable(home) })
	BundlectlRun(t, home, "--workspace", a.Workdir, "trust", name, reviewToken(t, home, a.Workdir, name))
	BundlectlRun(t, home, "--workspace", a.Workdir, "enable", name)
	a.Launcher = []string{Bundlectl(t), "--home", home, "--workspace", a.Workdir, "exec", "--"}
	run("bundlectl exec")
}

// serveRequestLines answers each HTTP request on ln with the JSON answer
// gives the target of its request line as it came, until ln is closed.
// It reads the request's headers and a Content-Length body, and closes
// the connection after each answer.
func serveRequestLines(ln net.Listener, answer func(target string) string) {
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
			length := 0
			for {
				h, err := br.ReadString('\n')
				if err != nil {
					return
				}
				if h == "\r\n" {
					break
				}
				if k, v, ok := strings.Cut(h, ":"); ok && strings.EqualFold(k, "content-length") {
					for _, d := range strings.TrimSpace(v) {
						length = length*10 + int(d-'0')
					}
				}
			}
			io.CopyN(io.Discard, br, int64(length))
			target := ""
			if parts := strings.Split(strings.TrimRight(line, "\r\n"), " "); len(parts) == 3 {
				target = parts[1]
			}
			body := answer(target)
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
		}()
	}
}
