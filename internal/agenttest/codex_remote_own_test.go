package agenttest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestExecCodexRemoteOwnPlugins: `codex exec --remote ADDR` runs the
// session in the app server at ADDR under that server's configuration,
// not under the CODEX_HOME it is itself given: with Codex 0.171 the MCP
// server of the app server's config.toml started, that of the client's
// did not, and neither did the plugin the client's config.toml enables
// load. bundlectl exec, given no bundle to load, once named that plugin
// as loading beside the views; it now says the session runs under the
// server's configuration, which it does not read, and names the plugin
// with that condition (hosts/codex remoteNote).
func TestExecCodexRemoteOwnPlugins(t *testing.T) {
	t.Parallel()
	a := New(t, Codex, Say("done"))
	rec := t.TempDir()
	serverHome := filepath.Join(t.TempDir(), "server-codex")
	writeFile(t, serverHome, "config.toml", fmt.Sprintf(`model_provider = "agenttest"
model = "gpt-5.5"
approval_policy = "never"
check_for_update_on_startup = false

[analytics]
enabled = false

[features]
plugins = false

[model_providers.agenttest]
name = "agenttest"
base_url = %q
wire_api = "responses"
env_key = "AGENTTEST_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[mcp_servers.server-srv]
command = %q
args = ["-record", %q]
`, a.Model.URL+"/v1", FakeMCPServer(t), filepath.Join(rec, "server.jsonl")), 0o644)
	installOwnPlugin(t, a, ownMarketplace, ownPlugin, "")
	a.CodexConfig = fmt.Sprintf("[plugins.%q]\nenabled = true\n\n[mcp_servers.client-srv]\ncommand = %q\nargs = [\"-record\", %q]\n",
		ownPluginID, FakeMCPServer(t), filepath.Join(rec, "client.jsonl"))
	_, env := a.Command(t, "hi") // writes the client's config.toml

	server := exec.Command(a.Bin, "app-server", "--listen", "ws://127.0.0.1:0")
	server.Env = append(append([]string(nil), env...), "CODEX_HOME="+serverHome)
	server.Dir = a.Workdir
	server.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := server.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-server.Process.Pid, syscall.SIGKILL)
		server.Wait()
	})
	addr := ""
	listening := regexp.MustCompile(`listening on: (ws://127\.0\.0\.1:[0-9]+)`)
	lines := bufio.NewScanner(stderr)
	var seen []string
	for addr == "" && lines.Scan() {
		seen = append(seen, lines.Text())
		if m := listening.FindStringSubmatch(lines.Text()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		t.Fatalf("codex app-server said no address: this test's premise (Codex 0.171) no longer holds\n%s", strings.Join(seen, "\n"))
	}
	go func() {
		for lines.Scan() {
		}
	}()

	// bundlectl exec with no bundle to load; codex exec refuses -c flags
	// beside --remote, so the client is given none.
	home := filepath.Join(t.TempDir(), "bundlectl-home")
	ctx, cancel := context.WithTimeout(context.Background(), HangGuard)
	defer cancel()
	client := exec.CommandContext(ctx, Bundlectl(t), "--home", home, "--workspace", a.Workdir, "exec", "--", a.Bin, "exec", "--skip-git-repo-check", "--remote", addr, "hi")
	client.Env = append(append([]string(nil), env...), "BUNDLECTL_HOME="+home)
	client.Dir = a.Workdir
	client.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	client.Cancel = func() error { return syscall.Kill(-client.Process.Pid, syscall.SIGKILL) }
	client.WaitDelay = 30 * time.Second
	out, err := client.CombinedOutput()
	syscall.Kill(-client.Process.Pid, syscall.SIGKILL)
	if err != nil || len(a.Model.Requests()) == 0 {
		t.Fatalf("bundlectl exec -- codex exec --remote: %v, %d model requests\n%s", err, len(a.Model.Requests()), out)
	}
	if _, err := os.Stat(filepath.Join(rec, "server.jsonl")); err != nil {
		t.Fatalf("the app server's MCP server did not start: this test's premise (Codex 0.171 runs the session under the server's configuration) no longer holds\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(rec, "client.jsonl")); err == nil {
		t.Fatalf("the client's MCP server started: this test's premise (Codex 0.171 runs the session under the server's configuration) no longer holds\n%s", out)
	}
	if ownLoaded(a, ownPlugin) {
		t.Fatalf("the client's plugin %s loaded: this test's premise no longer holds\n%s", ownPluginID, out)
	}
	if bad := fmt.Sprintf("your own plugin %q loads beside the views", ownPluginID); strings.Contains(string(out), bad) {
		t.Errorf("bundlectl exec says %q, which did not load\n%s", bad, out)
	}
	if want := fmt.Sprintf("bundlectl: codex: the argument \"--remote %s\" runs the session in that app server, under the server's own configuration, which bundlectl does not read", addr); !strings.Contains(squash(string(out)), squash(want)) {
		t.Errorf("bundlectl exec does not say %q\n%s", want, out)
	}
}
