package agenttest

import (
	"encoding/json"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// TestClaudeHTTPHookRefusedLiteralNeverContacted: the review marks a
// network host that only https hooks to a link-local, cloud metadata or
// reserved IP literal name as "never contacted" (bundle
// NeverContactedWhy). That holds only if Claude Code 2.1.332 — the one
// host that posts an http hook's event itself — sends such a hook
// nothing, through a proxy or not. Tried here for forms
// TestClaudeHTTPHookPrivateAddress does not pin (another metadata
// address, IPv4-mapped and NAT64 local-use forms, an AWS IPv6
// metadata address): through a proxy that counts its connections, the
// proxy is never reached and the debug log says "HTTP hook blocked";
// directly (NO_PROXY=*), the log says the same and shows no POST. The
// review of the same plugin lists the host and marks it never contacted.
// The control, a private literal, reaches the proxy and is not marked.
func TestClaudeHTTPHookRefusedLiteralNeverContacted(t *testing.T) {
	t.Parallel()
	proxy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proxy.Close() })
	var reached atomic.Int32
	go func() {
		for {
			c, err := proxy.Accept()
			if err != nil {
				return
			}
			reached.Add(1)
			c.Close()
		}
	}()
	proxyURL := "http://" + proxy.Addr().String()
	for _, c := range []struct {
		name, url, host string
		direct          bool
		contacted       bool // the control: a private literal is posted to
	}{
		{"azure-proxied", "https://168.63.129.16/g", "168.63.129.16", false, false},
		{"mapped-proxied", "https://[::ffff:169.254.169.254]/g", "::ffff:169.254.169.254", false, false},
		{"6to4-proxied", "https://[2002:a9fe:a9fe::1]/g", "2002:a9fe:a9fe::1", false, false},
		{"nat64-local-proxied", "https://[64:ff9b:1::a]/g", "64:ff9b:1::a", false, false},
		{"aws-v6-direct", "https://[fd00:ec2::254]/g", "fd00:ec2::254", true, false},
		{"metadata-direct", "https://169.254.169.254/latest/meta-data", "169.254.169.254", true, false},
		{"private-proxied", "https://10.0.0.5/g", "10.0.0.5", false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			reached.Store(0)
			rec := t.TempDir()
			a := New(t, Claude, ShellCall(Claude, "touch "+filepath.Join(rec, "tool-ran")), Say("done"))
			dir := filepath.Join(a.Workdir, ".bundlectl", "bundles", "nc")
			writeClaudeBashGuard(t, dir, "nc", map[string]any{"type": "http", "url": c.url, "timeout": 10})
			a.Args = []string{"--allowedTools", "Bash", "--plugin-dir", dir, "--debug"}
			if c.direct {
				a.Env = []string{"NO_PROXY=*", "no_proxy=*"}
			} else {
				a.Env = []string{"HTTPS_PROXY=" + proxyURL, "https_proxy=" + proxyURL, "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost"}
			}
			res := a.Run(t, "hello")
			debug := debugLines(a, "HTTP hook")
			ran := exists(filepath.Join(rec, "tool-ran"))
			if c.contacted {
				if reached.Load() == 0 || strings.Contains(debug, "HTTP hook blocked") {
					t.Fatalf("Claude Code: the proxy was reached %d times; want the private literal posted to through it, not blocked\n%s\n%s", reached.Load(), debug, res)
				}
			} else if !ran || reached.Load() > 0 || !strings.Contains(debug, "HTTP hook blocked") || strings.Contains(debug, "HTTP hook POST") {
				t.Fatalf("Claude Code: the tool ran = %v, the proxy was reached %d times; want the tool to run (the hook fails) and no connection, with a debug line saying \"HTTP hook blocked\" and none a POST\n%s\n%s", ran, reached.Load(), debug, res)
			}
			t.Logf("Claude Code 2.1.332: %s", strings.TrimSpace(debug))

			home := t.TempDir()
			t.Cleanup(func() { Writable(home) })
			out, _, err := BundlectlEnv(t, home, nil, "--workspace", a.Workdir, "review", "--json", "nc")
			var rv struct {
				Token                 string
				NetworkNeverContacted []string `json:"network_never_contacted"`
			}
			json.Unmarshal([]byte(out), &rv)
			if err != nil || rv.Token == "" || slices.Contains(rv.NetworkNeverContacted, c.host) == c.contacted {
				t.Errorf("bundlectl review: want a token and %s never contacted = %v, got %v\n%s", c.host, !c.contacted, err, out)
			}
		})
	}
}
