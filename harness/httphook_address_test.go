package harness_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
)

// TestHTTPHookRefusedAddresses: an http guard whose url is a link-local or
// cloud metadata literal, or a name that resolves to a private address
// among others, fails before any request, as Claude Code 2.1.332 fails it
// ("HTTP hook blocked"; internal/agenttest
// TestClaudeHTTPHookPrivateAddress): the call goes ahead, or, under
// onFailure "block", is blocked. A name that resolves only to loopback is
// connected to.
func TestHTTPHookRefusedAddresses(t *testing.T) {
	// Connections are counted, not requests: an https url to a name
	// cannot pass a test server's certificate, and what matters is
	// whether anything was connected to.
	var asked atomic.Int32
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			asked.Add(1)
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	harness.SetHookHostLookup(func(ctx context.Context, host string) ([]netip.Addr, error) {
		switch host {
		case "mixed.test":
			return []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("10.0.0.5")}, nil
		case "loop.test":
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		return nil, fmt.Errorf("lookup %s: no such host", host)
	})
	defer harness.SetHookHostLookup(nil)
	t.Setenv("NO_PROXY", "*") // direct, as Claude Code posts without a proxy
	// net/http reads the proxy settings once per process.
	if req, _ := http.NewRequest(http.MethodPost, "https://mixed.test/", nil); req != nil {
		if p, _ := http.ProxyFromEnvironment(req); p != nil {
			t.Skip("a proxy from this process's environment is in the way; the name cases need a direct connection")
		}
	}
	for _, c := range []struct {
		name, url, onFailure string
		blocked, asked       bool
		says                 string
	}{
		{"metadata", "https://169.254.169.254/g", "", false, false, "http hook blocked: 169.254.169.254 is a link-local"},
		{"metadata-block", "https://169.254.169.254/g", "block", true, false, ""},
		{"metadata-hex", "https://0xa9fea9fe/g", "", false, false, "http hook blocked: 169.254.169.254"},
		{"fe80", "https://[fe80::1]/g", "", false, false, "http hook blocked: fe80::1"},
		// The host JavaScript's URL reads, where Go's parser refuses the
		// user information or reads no host: blocked as the metadata
		// address, as Claude Code blocks it, not failed as a url Go
		// cannot parse.
		{"metadata-userinfo-var", "https://${X}@169.254.169.254/g", "", false, false, "http hook blocked: 169.254.169.254"},
		{"metadata-backslashes", `https:\\169.254.169.254\g`, "", false, false, "http hook blocked: 169.254.169.254"},
		// JavaScript's URL refuses a zone, where Go connected to the
		// link-local address: the url fails Claude Code's hooks schema,
		// so Claude Code loads nothing of the plugin and the review
		// keeps none of it for Claude Code (bundle
		// TestClaudeHTTPHookURLSchema): nothing runs, nothing is asked,
		// even under onFailure "block", as in Claude Code (internal/agenttest
		// TestClaudeHTTPURLSchema). refuseHookAddress still refuses a zone.
		{"fe80-zone", "https://[fe80::1%25lo]/g", "", false, false, ""},
		{"fe80-zone-block", "https://[fe80::1%25lo]/g", "block", false, false, ""},
		{"azure", "https://168.63.129.16/g", "", false, false, "http hook blocked: 168.63.129.16"},
		{"name-private", fmt.Sprintf("https://mixed.test:%d/g", port), "", false, false, "mixed.test resolves to 10.0.0.5, a private address"},
		{"name-private-block", fmt.Sprintf("https://mixed.test:%d/g", port), "block", true, false, ""},
		{"name-loopback", fmt.Sprintf("https://loop.test:%d/g", port), "", false, true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			asked.Store(0)
			hook := fmt.Sprintf(`{"type": "http", "url": %q, "timeout": 5`, c.url)
			if c.onFailure != "" {
				hook += `, "onFailure": "block"`
			}
			home, ws := httpGuard(t, []byte(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [`+hook+`}]}]}}`))
			r, err := harness.Load(harness.Options{Home: home, Workspace: ws, Host: bundle.HostClaude})
			must(t, err)
			defer r.Close()
			out, err := r.FireHooks(context.Background(), "PreToolUse", []byte(`{"tool_name":"Bash","tool_input":{"command":"ls"}}`))
			must(t, err)
			all := fmt.Sprintf("%s %+v", out.Reason, out.Errors)
			if out.Blocked != c.blocked || (asked.Load() > 0) != c.asked || !strings.Contains(all, c.says) {
				t.Fatalf("blocked %v, asked %v, said %q; want blocked %v, asked %v, saying %q, as Claude Code", out.Blocked, asked.Load() > 0, all, c.blocked, c.asked, c.says)
			}
		})
	}
}
