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
// --ignore-user-config, which Codex refuses --trust with. exec once read the
// project as the saved configuration left it, --trust unseen, and said
// nothing of the plugin that loaded.
func TestExecCodexOwnPluginTrustFlag(t *testing.T) {
	for _, c := range []struct {
		name  string
		user  string // more of config.toml; WORK and TOP stand for the workspace and its parent
		git   bool   // the workspace's parent is a git top, holding the file
		home  bool   // config.toml enables the plugin, not the project file
		args  []string
		stops string // what Codex says where it does not start; "is marked as untrusted" when "" and the plugin does not load
		loads bool
	}{
		{name: "folder with no entry", loads: true},
		{name: "below a git top with no entry, the top's file", git: true, loads: true},
		{name: "workspace marked untrusted", user: "[projects.\"WORK\"]\ntrust_level = \"untrusted\"\n"},
		{name: "workspace marked untrusted, the plugin enabled in config.toml", user: "[projects.\"WORK\"]\ntrust_level = \"untrusted\"\n", home: true},
		{name: "folder with no entry, --ignore-user-config beside", args: []string{"--ignore-user-config"}, stops: "--trust cannot be combined with --ignore-user-config"},
		{name: "git top marked untrusted, the plugin enabled in config.toml", user: "[projects.\"TOP\"]\ntrust_level = \"untrusted\"\n", git: true, home: true},
	} {
		t.Run(c.name, func(t *testing.T) {
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
			a.CodexConfig = strings.NewReplacer("WORK", a.Workdir, "TOP", top).Replace(c.user) + "\n" + a.CodexConfig
			if c.home {
				a.CodexConfig += "\n" + enable
			} else {
				writeFile(t, dir, ".codex/config.toml", enable, 0o644)
			}
			a.Args = append(append(a.Args, c.args...), "--trust")
			res := a.Run(t, execPrompt(Codex))
			if !c.loads {
				if res.Exit == 0 || !strings.Contains(res.Stderr, cmp.Or(c.stops, "is marked as untrusted")) {
					t.Fatalf("codex --trust started: this test's premise (Codex 0.171 stops) no longer holds\n%s", res)
				}
			} else {
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
