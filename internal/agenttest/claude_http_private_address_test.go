package agenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeHTTPHookPrivateAddress: which addresses Claude Code 2.1.332
// refuses to post an http hook's event to, found by trying it (its debug
// log), and that bundlectl exec -- claude does the same with the trusted
// bundle.
//
//   - A link-local or cloud metadata literal (169.254.169.254, the same
//     written 0xa9fea9fe or 169%2e254.169.254, fe80::1): "HTTP hook
//     blocked: … is a link-local, cloud metadata or reserved address",
//     before connecting, with or
//     without a proxy. The hook fails: the tool runs, unless onFailure is
//     "block", when every call is blocked. bundlectl posted such a url
//     (and refused a plain-http guard to one as unguarded); its review now
//     warns (hook.url) and hooks exec fails the hook the same way.
//   - A private literal is posted to: http://0.0.0.0:PORT reaches a
//     server on 127.0.0.1 and its deny blocks (so do 10.0.0.5 and
//     [fd00::1]: the debug log shows a connection attempt, not a refusal).
//     Its resolver check refuses only a host name resolving to a private
//     address, which cannot be tried offline (read in its code; bundlectl
//     checks the addresses it resolves too, harness
//     TestHTTPHookRefusedAddresses). bundlectl refuses a plain-http guard
//     to a host that is not loopback, so that case runs in place only.
func TestClaudeHTTPHookPrivateAddress(t *testing.T) {
	t.Parallel()
	srv, asked := newDenyingHTTPGuard(t)
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	for _, c := range []struct {
		name, url, onFailure string
		blocked, asked       bool
		debug                string // in Claude Code's debug log
		says                 string // in the review ("": not reviewed through exec)
	}{
		{"metadata", "https://169.254.169.254/latest/meta-data", "", false, false, "HTTP hook blocked: 169.254.169.254 is a link-local, cloud metadata or reserved address", "never blocks PreToolUse"},
		{"metadata-block", "https://169.254.169.254/latest/meta-data", "block", true, false, "HTTP hook blocked: 169.254.169.254", "blocks every PreToolUse it matches"},
		{"metadata-hex-block", "https://0xa9fea9fe/g", "block", true, false, "HTTP hook blocked: 169.254.169.254", "blocks every PreToolUse it matches"},
		{"metadata-escaped-block", "https://169%2e254.169.254/g", "block", true, false, "HTTP hook blocked: 169.254.169.254", "blocks every PreToolUse it matches"},
		{"link-local-plain", "http://[fe80::1]/g", "", false, false, "HTTP hook blocked: fe80::1", "never blocks PreToolUse"},
		{"this-network", "http://0.0.0.0:" + port + "/g", "", true, true, "HTTP hook POST to http://0.0.0.0", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			hook := map[string]any{"type": "http", "url": c.url, "timeout": 10}
			if c.onFailure != "" {
				hook["onFailure"] = c.onFailure
			}
			asked.Store(0)
			rec := t.TempDir()
			a := New(t, Claude, ShellCall(Claude, "touch "+filepath.Join(rec, "tool-ran")), Say("done"))
			dir := filepath.Join(a.Workdir, ".bundlectl", "bundles", "pa")
			writeClaudeBashGuard(t, dir, "pa", hook)
			a.Args = []string{"--allowedTools", "Bash", "--plugin-dir", dir, "--debug"}
			// Direct, not through the test's closed proxy: the private
			// literal must be able to reach the server.
			a.Env = []string{"NO_PROXY=*", "no_proxy=*"}
			res := a.Run(t, "hello")
			debug := debugLines(a, "HTTP hook")
			if ran := exists(filepath.Join(rec, "tool-ran")); ran == c.blocked || (asked.Load() > 0) != c.asked || !strings.Contains(debug, c.debug) {
				t.Fatalf("Claude Code: the tool ran = %v, the server was asked = %v; want %v and %v, and a debug line with %q (found by trying Claude Code 2.1.332)\n%s\n%s", ran, asked.Load() > 0, !c.blocked, c.asked, c.debug, debug, res)
			}
			if c.says == "" {
				return
			}

			home := t.TempDir()
			t.Cleanup(func() { Writable(home) })
			out, _, err := BundlectlEnv(t, home, nil, "--workspace", a.Workdir, "review", "--json", "pa")
			var rv struct{ Token string }
			json.Unmarshal([]byte(out), &rv)
			if err != nil || rv.Token == "" {
				t.Fatalf("bundlectl review refused the bundle: %v\n%s", err, out)
			}
			if !strings.Contains(out, c.says) || !strings.Contains(out, "Claude Code refuses to post") {
				t.Errorf("the review does not say %q\n%s", c.says, out)
			}
			BundlectlRun(t, home, "--workspace", a.Workdir, "trust", "pa", rv.Token)
			BundlectlRun(t, home, "--workspace", a.Workdir, "enable", "pa")
			os.Remove(filepath.Join(rec, "tool-ran"))
			b := New(t, Claude, ShellCall(Claude, "touch "+filepath.Join(rec, "tool-ran")), Say("done"))
			b.Workdir = a.Workdir
			b.Env = a.Env
			b.Launcher = execLauncher(t, home, b.Workdir)
			b.Args = []string{"--allowedTools", "Bash"}
			res = b.Run(t, "hello")
			if ran := exists(filepath.Join(rec, "tool-ran")); ran == c.blocked {
				t.Errorf("bundlectl exec -- claude: the tool ran = %v, want %v as in place\n%s", ran, !c.blocked, res)
			}
		})
	}
}
