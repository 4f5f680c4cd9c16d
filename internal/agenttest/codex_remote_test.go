package agenttest

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCodexRemoteConfig records that codex exec 0.171 refuses -c flags
// beside --remote, before it connects: the agent of a remote app server is
// configured on that server, so the -c flags with which bundlectl exec
// loads its views and trusts their hooks would not reach it (hosts/codex
// remoteArg).
func TestCodexRemoteConfig(t *testing.T) {
	t.Parallel()
	a := New(t, Codex, Say("done"))
	a.Args = []string{"--remote", "ws://127.0.0.1:9"}
	res := a.Run(t, "hi")
	if want := "--remote currently supports only prompt, resume by UUID, and output options; configure the agent on the server"; res.Exit != 1 || !strings.Contains(res.Stderr, want) {
		t.Errorf("want exit 1 and %q (found by trying Codex 0.171)\n%s", want, res)
	}
}

// TestExecCodexRemote: bundlectl exec refuses --remote when it loads views
// (a usage error, exit 2, naming the argument), and never starts Codex.
func TestExecCodexRemote(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), markerName)
	turns, _, _, _ := execScript(Codex, marker)
	a := New(t, Codex, turns...)
	f := newTrustedFixture(t, a, marker)
	a.Launcher = f.launcher(t)
	a.Args = append(a.Args, "--remote", "ws://127.0.0.1:9")
	res := a.Run(t, execPrompt(Codex))
	want := `bundlectl: codex: the argument "--remote ws://127.0.0.1:9" runs the session in an app server bundlectl exec did not start`
	if res.Exit != 2 || !strings.Contains(res.Stderr, want) || strings.Contains(res.Stderr, "Error: --remote") || len(a.Model.Requests()) > 0 {
		t.Errorf("want exit 2 and %q, codex never started\n%s", want, res)
	}
}

// TestExecCodexGuardsStillRun records switches of Codex 0.171 that look
// as if they could turn a view's guard off and do not, so bundlectl exec
// lets them through (docs/hosts.md "Codex"): --ignore-user-config, a
// --profile file that turns the hooks feature off (exec's -c flags
// outrank it), the removed plugin_hooks feature switched off,
// --strict-config, --ephemeral and -C (--cd).
func TestExecCodexGuardsStillRun(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		args []string
	}{
		{"ignore-user-config", []string{"--ignore-user-config"}},
		{"profile turns hooks off", []string{"--profile", "work"}},
		{"plugin_hooks off", []string{"-c", "features.plugin_hooks=false"}},
		{"strict-config", []string{"--strict-config"}},
		{"ephemeral", []string{"--ephemeral"}},
		{"cd", []string{"-C", "/"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			marker := filepath.Join(t.TempDir(), markerName)
			turns, _, _, shellTurn := execScript(Codex, marker)
			a := New(t, Codex, turns...)
			f := newTrustedFixture(t, a, marker)
			allowExecTools(a)
			writeFile(t, a.ConfigDir(), "work.config.toml", "[features]\nhooks = false\nplugins = false\n", 0o644)
			a.Launcher = f.launcher(t)
			a.Args = append(a.Args, c.args...)
			res := a.Run(t, execPrompt(Codex))
			f.checkGuard(t, a, res, shellTurn)
		})
	}
}
