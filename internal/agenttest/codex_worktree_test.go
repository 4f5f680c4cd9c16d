package agenttest

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestExecCodexWorktree: Codex 0.171 runs a `codex exec --worktree`
// session in a new git worktree made from HEAD, under
// $CODEX_HOME/worktrees, trusted by the main checkout's [projects]
// entry, and reads that worktree's .codex/config.toml — the committed
// one — not the working copy's: with HEAD's file enabling one plugin of
// the user's own and the working copy's another, HEAD's loads and the
// other does not. bundlectl exec, which reads the working copy, once
// named the other as loading and said nothing of the one that loaded
// (hosts/codex FindOwnPlugins, AtHead): it now names neither and says
// why; --exclusive keeps HEAD's out too. The views' guard runs either
// way.
func TestExecCodexWorktree(t *testing.T) {
	t.Parallel()
	const other = "other"
	otherID := other + "@" + ownMarketplace
	for _, exclusive := range []bool{false, true} {
		t.Run(fmt.Sprintf("exclusive=%v", exclusive), func(t *testing.T) {
			s := newExecSession(t, Codex)
			a, f := s.a, s.f
			if exclusive {
				a.Launcher = append(a.Launcher[:len(a.Launcher)-1], "--exclusive", "--")
			}
			installOwnPlugin(t, a, ownMarketplace, ownPlugin, "")
			installOwnPlugin(t, a, ownMarketplace, other, "")
			commitOwnPluginConfig(t, a)
			writeFile(t, a.Workdir, ".codex/config.toml", fmt.Sprintf("[plugins.%q]\nenabled = true\n", otherID), 0o644)
			ws, err := filepath.EvalSymlinks(a.Workdir)
			if err != nil {
				t.Fatal(err)
			}
			a.CodexConfig = fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n\n", ws) + a.CodexConfig
			a.Args = append(a.Args, "--worktree")
			res := a.Run(t, execPrompt(Codex))
			f.checkGuard(t, a, res, s.shellTurn)
			if want := "workdir: " + filepath.Join(a.ConfigDir(), "worktrees"); !strings.Contains(res.Stderr, want) {
				t.Fatalf("the session did not run in a worktree under $CODEX_HOME/worktrees: this test's premise (Codex 0.171) no longer holds\n%s", res)
			}
			if ownLoaded(a, other) {
				t.Fatalf("the working copy's plugin %s loaded: this test's premise (Codex 0.171 reads HEAD's file) no longer holds\n%s", otherID, res)
			}
			loaded := ownLoaded(a, ownPlugin)
			if !exclusive && !loaded {
				t.Fatalf("HEAD's plugin %s did not load: this test's premise (Codex 0.171 reads the worktree's file) no longer holds\n%s", ownPluginID, res)
			}
			if exclusive && loaded {
				t.Errorf("bundlectl exec --exclusive: HEAD's plugin %s loaded\n%s", ownPluginID, res)
			}
			if strings.Contains(res.Stderr, fmt.Sprintf("your own plugin %q loads", otherID)) {
				t.Errorf("stderr names the working copy's plugin %s as loading, which does not\n%s", otherID, res)
			}
			note := "bundlectl: codex: --worktree runs the session in a new git worktree made from HEAD"
			if named := strings.Contains(res.Stderr, note); named == exclusive {
				t.Errorf("exclusive=%v: stderr says %q: %v\n%s", exclusive, note, named, res)
			}
		})
	}
}

// commitOwnPluginConfig makes a's working directory a git repository
// whose one commit, HEAD, holds a .codex/config.toml enabling the own
// plugin.
func commitOwnPluginConfig(t *testing.T, a *Agent) {
	t.Helper()
	writeFile(t, a.Workdir, ".codex/config.toml", fmt.Sprintf("[plugins.%q]\nenabled = true\n", ownPluginID), 0o644)
	gitCommitIn(t, a.Workdir, "HEAD enables the own plugin", "-A")
}

// TestExecCodexWorktreeTrustDialog: an interactive `codex --worktree`
// in a repository no [projects] entry decides asks Codex 0.171's "Trust
// this folder?"; answered "Trust and continue", it saves the entry for
// the main checkout (not for the new worktree) and reads HEAD's
// .codex/config.toml in the worktree, so the plugin that file enables
// loads. bundlectl exec says a plugin HEAD's files enable may load
// unnamed (it once named only what the working copy's file enabled,
// here the same file, on the "if you answer" condition).
func TestExecCodexWorktreeTrustDialog(t *testing.T) {
	t.Parallel()
	a := New(t, Codex, Say("done"), Say("done"))
	f := newTrustedFixture(t, a, filepath.Join(t.TempDir(), markerName))
	allowExecTools(a)
	a.Launcher = f.launcher(t)
	installOwnPlugin(t, a, ownMarketplace, ownPlugin, "")
	commitOwnPluginConfig(t, a)
	argv, env := interactiveCommand(t, a, "hi")
	argv = slices.Concat(argv[:1], []string{"--worktree"}, argv[1:])
	out, _ := answerCodexTrustDialog(t, a, argv, env)
	loaded := false
	for _, r := range sessionCalls(a, 0) {
		loaded = loaded || r.Contains(ownSkill(ownPlugin))
	}
	if !loaded {
		t.Fatalf("HEAD's plugin did not load once the folder was trusted: this test's premise (Codex 0.171) no longer holds\n%s\n%s", out, a.Model.Dump())
	}
	if note := "bundlectl: codex: --worktree runs the session in a new git worktree made from HEAD"; !strings.Contains(squash(out), squash(note)) {
		t.Errorf("the note %q not shown\n%s", note, out)
	}
}
