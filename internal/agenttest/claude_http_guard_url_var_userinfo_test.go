package agenttest

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeHTTPGuardURLVarUserinfo: real Claude Code 2.1.332 posts an
// http guard whose url is "http://${X}@127.0.0.1:PORT/g" to 127.0.0.1 (it
// expands no variable in a url: "${X}" is user information) and honours
// its deny. bundlectl's review read that "${" as a variable picking the
// host, kept the guard and warned that no server is asked and the guard
// never blocks, and hooks run, whose Go parser refuses such user
// information, failed the hook and let the call through. The review now
// reads the host as JavaScript's URL does and refuses the guard for its
// user information, as any guard's (bundle TestHookURLVarOutsideHost).
func TestClaudeHTTPGuardURLVarUserinfo(t *testing.T) {
	t.Parallel()
	srv, asked := newDenyingHTTPGuard(t)
	url := "http://${X}@" + strings.TrimPrefix(srv.URL, "http://") + "/g"
	rec := t.TempDir()
	a := New(t, Claude, ShellCall(Claude, "touch "+filepath.Join(rec, "tool-ran")), Say("done"))
	dir := filepath.Join(a.Workdir, ".bundlectl", "bundles", "uv")
	writeClaudeBashGuard(t, dir, "uv", map[string]any{"type": "http", "url": url, "timeout": 10})
	a.Args = []string{"--allowedTools", "Bash", "--plugin-dir", dir}
	a.Env = []string{"NO_PROXY=*", "no_proxy=*"}
	res := a.Run(t, "hello")
	if ran := exists(filepath.Join(rec, "tool-ran")); ran || asked.Load() == 0 {
		t.Fatalf("Claude Code: the tool ran = %v, the guard was asked %d times; want it asked and its deny honoured (found by trying Claude Code 2.1.332)\n%s", ran, asked.Load(), res)
	}

	home := t.TempDir()
	t.Cleanup(func() { Writable(home) })
	out, _, _ := BundlectlEnv(t, home, nil, "--workspace", a.Workdir, "review", "--json", "uv")
	if !strings.Contains(out, "must not contain user information") || !strings.Contains(out, "refuses the bundle") || strings.Contains(out, "no server is asked") {
		t.Errorf("the review does not refuse the guard for its user information\n%s", out)
	}
}
