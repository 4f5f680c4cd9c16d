package agenttest

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestClaudeHTTPGuardURLForms: Claude Code 2.1.332 reads an http hook's url
// as JavaScript's URL does, so a guard whose url has a fragment or no "//"
// after the scheme still gets the PreToolUse event, and its deny blocks
// the tool. bundlectl cannot vet such a url and used to skip the hook,
// letting the tool through unguarded; it now refuses the bundle (script
// review_hook_http_guard_url_forms). (A leading space is no longer among
// them: bundlectl trims the url as Claude Code does and posts to the same
// host, TestClaudeHTTPHookURLTrim.)
func TestClaudeHTTPGuardURLForms(t *testing.T) {
	t.Parallel()
	srv, calls := newDenyingHTTPGuard(t)
	forms := map[string]string{
		"fragment": srv.URL + "/guard#v1",
		"noslash":  strings.Replace(srv.URL, "http://", "http:", 1) + "/guard",
	}
	for _, name := range []string{"fragment", "noslash"} {
		t.Run(name, func(t *testing.T) {
			calls.Store(0)
			rec := t.TempDir()
			a := New(t, Claude, ShellCall(Claude, "touch "+filepath.Join(rec, "tool-ran")), Say("done"))
			dir := filepath.Join(a.Workdir, ".bundlectl", "bundles", "hh")
			writeClaudeBashGuard(t, dir, "hh", map[string]any{"type": "http", "url": forms[name]})
			a.Args = []string{"--allowedTools", "Bash", "--plugin-dir", dir}
			res := a.Run(t, "hello")
			if got := recorded(t, rec); calls.Load() < 1 || slices.Contains(got, "tool-ran") {
				t.Errorf("Claude Code: the http guard (url %q) was asked %d times and %q ran, want it asked and the tool denied\n%s", forms[name], calls.Load(), got, res)
			}
			home := t.TempDir()
			t.Cleanup(func() { Writable(home) })
			out, _, err := BundlectlEnv(t, home, nil, "--workspace", a.Workdir, "review", "--json", "hh")
			var rv struct {
				Token string `json:"token"`
			}
			json.Unmarshal([]byte(out), &rv)
			if err == nil || rv.Token != "" {
				t.Errorf("bundlectl review accepted a bundle whose guard (url %q) it would skip: err %v\n%s", forms[name], err, out)
			}
		})
	}
}
