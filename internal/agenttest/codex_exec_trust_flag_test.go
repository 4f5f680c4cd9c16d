package agenttest

import (
	"cmp"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestExecCodexOwnPluginTrustFlag: `codex exec --trust` trusts a project
// no entry decides for, saving its entry, and reads its .codex/config.toml
// in that same session (TestCodexTrustFlagSavesEntry), so a plugin of
// the user's own that the file enables loads beside the views: bundlectl
// exec -- codex exec --trust names it. Where the user marked the
// workspace, or the git top above it, untrusted Codex stops instead
// ("is marked as untrusted"), and exec names nothing, not even a plugin
// the user's own config.toml enables (exec once named that one as
// loading in the session that never started); so it does beside
// --ignore-user-config, which Codex refuses --trust with. Codex decides
// --trust by the saved configuration alone and merges the session's -c
// flags over the result: a -c projects table untrusting the workspace
// neither stops it nor keeps the entry from being saved (the file stays
// unread in that session, the plugin config.toml enables loads), one
// trusting it lifts no untrusted entry (Codex stops) and, below a git
// top with no entry, still has the top's entry saved and its file read
// (exec once read the flags first, and left that plugin unnamed). exec
// once read the project as the saved configuration left it, --trust
// unseen, and said nothing of the plugin that loaded.
func TestExecCodexOwnPluginTrustFlag(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		user  string // more of config.toml; WORK and TOP stand for the workspace and its parent
		git   bool   // the workspace's parent is a git top, holding the file
		home  bool   // config.toml enables the plugin, not the project file
		args  []string
		stops string // what Codex says where it does not start; "is marked as untrusted" when "" and the plugin does not load
		runs  bool   // Codex starts though the plugin does not load
		loads bool
	}{
		{name: "folder with no entry", loads: true},
		{name: "below a git top with no entry, the top's file", git: true, loads: true},
		{name: "workspace marked untrusted", user: "[projects.\"WORK\"]\ntrust_level = \"untrusted\"\n"},
		{name: "workspace marked untrusted, the plugin enabled in config.toml", user: "[projects.\"WORK\"]\ntrust_level = \"untrusted\"\n", home: true},
		{name: "folder with no entry, --ignore-user-config beside", args: []string{"--ignore-user-config"}, stops: "--trust cannot be combined with --ignore-user-config"},
		{name: "a -c flag untrusting the workspace, the plugin enabled in config.toml", args: []string{"-c", `projects={"WORK"={trust_level="untrusted"}}`}, home: true, loads: true},
		{name: "a -c flag untrusting the workspace, its file", args: []string{"-c", `projects={"WORK"={trust_level="untrusted"}}`}, runs: true},
		{name: "a -c flag trusting the workspace below a git top with no entry, the top's file", args: []string{"-c", `projects={"WORK"={trust_level="trusted"}}`}, git: true, loads: true},
		{name: "a -c flag trusting a workspace marked untrusted", user: "[projects.\"WORK\"]\ntrust_level = \"untrusted\"\n", args: []string{"-c", `projects={"WORK"={trust_level="trusted"}}`}},
		{name: "git top marked untrusted, the plugin enabled in config.toml", user: "[projects.\"TOP\"]\ntrust_level = \"untrusted\"\n", git: true, home: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newExecSession(t, Codex)
			a, f := s.a, s.f
			installOwnPlugin(t, a, ownMarketplace, ownPlugin, "")
			top := filepath.Dir(a.Workdir)
			dir := a.Workdir
			if c.git {
				gitRun(t, "init", "-q", top)
				dir = top
			}
			enable := fmt.Sprintf("[plugins.%q]\nenabled = true\n", ownPluginID)
			names := strings.NewReplacer("WORK", a.Workdir, "TOP", top)
			a.CodexConfig = names.Replace(c.user) + "\n" + a.CodexConfig
			for _, arg := range c.args {
				a.Args = append(a.Args, names.Replace(arg))
			}
			if c.home {
				a.CodexConfig += "\n" + enable
			} else {
				writeFile(t, dir, ".codex/config.toml", enable, 0o644)
			}
			a.Args = append(a.Args, "--trust")
			res := a.Run(t, execPrompt(Codex))
			switch {
			case c.runs:
				if res.Exit != 0 || ownLoaded(a, ownPlugin) {
					t.Fatalf("codex --trust stopped, or loaded the plugin: this test's premise (Codex 0.171) no longer holds\n%s", res)
				}
			case !c.loads:
				if res.Exit == 0 || !strings.Contains(res.Stderr, cmp.Or(c.stops, "is marked as untrusted")) {
					t.Fatalf("codex --trust started: this test's premise (Codex 0.171 stops) no longer holds\n%s", res)
				}
			default:
				f.checkGuard(t, a, res, s.shellTurn)
				if !ownLoaded(a, ownPlugin) {
					t.Fatalf("the own plugin did not load: this test's premise (Codex 0.171) no longer holds\n%s", res)
				}
			}
			note := fmt.Sprintf("bundlectl: codex: your own plugin %q loads beside the views", ownPluginID)
			if named := strings.Contains(res.Stderr, note); named != c.loads {
				t.Errorf("stderr names the own plugin: %v, want %v\n%s", named, c.loads, res)
			}
		})
	}
}
