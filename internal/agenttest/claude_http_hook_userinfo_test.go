package agenttest

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeHTTPHookUserinfo: real Claude Code 2.1.332 (axios) posts an
// http hook whose url has user information ("http://us%65r:p%40ss@host/")
// with "Authorization: Basic" of the user information as written, its
// escapes not decoded ("us%65r:p%40ss"), where Go's client decodes them
// ("user:p@ss"). bundlectl never posts such a url: the url rules refuse
// the bundle ("must not contain user information"; PostToolUse is an
// event a hook can block) or, on another event, skip the hook, so the
// two never differ on the wire.
func TestClaudeHTTPHookUserinfo(t *testing.T) {
	t.Parallel()
	srv := newHookServer(t, nil)
	a := New(t, Claude, ShellCall(Claude, "true"), Say("done"))
	dir := filepath.Join(a.Workdir, "ui")
	writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": "ui", "version": "1.0.0"})
	writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"PostToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{
		map[string]any{"type": "http", "url": "http://us%65r:p%40ss@" + srv.Addr() + "/ui", "timeout": 10},
	}}}}})
	a.Env = []string{"NO_PROXY=*", "no_proxy=*"}
	a.Args = []string{"--allowedTools", "Bash", "--plugin-dir", dir}
	res := a.Run(t, "hello")
	var auth []string
	for _, r := range srv.take() {
		auth = append(auth, r.Authorization)
	}
	got := strings.Join(auth, ",")
	if want := "Basic dXMlNjVyOnAlNDBzcw=="; got != want { // "us%65r:p%40ss"
		t.Fatalf("Claude Code 2.1.332 sent Authorization %q, want %q: this test's premise no longer holds\n%s", got, want, res)
	}

	out, errOut, _ := bundlectlRun(t, t.TempDir(), "review", "--json", dir)
	var rv struct {
		Errors []struct{ Rule, Message string } `json:"errors"`
	}
	if err := json.Unmarshal([]byte(out), &rv); err != nil {
		t.Fatalf("review --json: %v\n%s%s", err, out, errOut)
	}
	refused := false
	for _, e := range rv.Errors {
		refused = refused || e.Rule == "hook.url" && strings.Contains(e.Message, "must not contain user information")
	}
	if !refused {
		t.Errorf("bundlectl review does not refuse the bundle for the url's user information\n%s%s", out, errOut)
	}
}
