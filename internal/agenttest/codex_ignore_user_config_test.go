package agenttest

import (
	"fmt"
	"strings"
	"testing"
)

// TestExecCodexIgnoreUserConfig: `codex exec --ignore-user-config`
// (Codex 0.171) reads neither $CODEX_HOME/config.toml nor the profile's
// <name>.config.toml, nor trusts a project by their [projects] entries,
// while /etc/codex/config.toml, a project file trusted by it or by a -c
// flag, the -c flags and /etc/codex/managed_config.toml still count. So
// a plugin of the user's own that config.toml enables does not load
// beside the views, and one the system's file enables loads though
// config.toml disables it: bundlectl exec -- codex exec
// --ignore-user-config names exactly the plugins that load. It once
// read the user's files as ever, naming the first as loading and
// leaving the second, which loaded, unnamed (hosts/codex
// FindOwnPlugins). (Codex takes --ignore-user-config after exec alone:
// elsewhere it does not start, "unexpected argument".)
func TestExecCodexIgnoreUserConfig(t *testing.T) {
	t.Parallel()
	const on = "[plugins.\"" + ownPluginID + "\"]\nenabled = true\n"
	const off = "[plugins.\"" + ownPluginID + "\"]\nenabled = false\n"
	const trustWork = "[projects.\"WORK\"]\ntrust_level = \"trusted\"\n"
	for _, c := range []struct {
		name    string
		user    string // config.toml; WORK stands for the workspace
		profile string // work.config.toml, selected with --profile work
		project string // the workspace's .codex/config.toml
		etc     map[string]string
		args    []string
		loads   bool
	}{
		{name: "the user's plugin", user: on},
		{name: "the profile's plugin", profile: on},
		{name: "a project the user's entry trusts", user: trustWork, project: on},
		{name: "a project a -c flag trusts", project: on, args: []string{"-c", `projects={"WORK"={trust_level="trusted"}}`}, loads: true},
		{name: "a project the system's entry trusts", project: on, etc: map[string]string{"config.toml": trustWork}, loads: true},
		{name: "the system's plugin the user's file disables", user: off, etc: map[string]string{"config.toml": on}, loads: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newExecSession(t, Codex)
			a, f := s.a, s.f
			installOwnPlugin(t, a, ownMarketplace, ownPlugin, "")
			work := strings.NewReplacer("WORK", a.Workdir)
			a.CodexConfig = work.Replace(c.user) + "\n" + a.CodexConfig
			if c.profile != "" {
				writeFile(t, a.ConfigDir(), "work.config.toml", c.profile, 0o644)
				a.Args = append(a.Args, "--profile", "work")
			}
			if c.project != "" {
				writeFile(t, a.Workdir, ".codex/config.toml", c.project, 0o644)
			}
			if c.etc != nil {
				etc := map[string]string{}
				for name, content := range c.etc {
					etc[name] = work.Replace(content)
				}
				a.Launcher = append(overlayEtc(t, etc), a.Launcher...)
			}
			for _, arg := range c.args {
				a.Args = append(a.Args, work.Replace(arg))
			}
			a.Args = append(a.Args, "--ignore-user-config")
			res := a.Run(t, execPrompt(Codex))
			f.checkGuard(t, a, res, s.shellTurn)
			if ownLoaded(a, ownPlugin) != c.loads {
				t.Fatalf("the own plugin loaded: %v, want %v: this test's premise (Codex 0.171) no longer holds\n%s", !c.loads, c.loads, res)
			}
			note := fmt.Sprintf("bundlectl: codex: your own plugin %q loads beside the views", ownPluginID)
			if named := strings.Contains(res.Stderr, note); named != c.loads {
				t.Errorf("stderr names the own plugin: %v, want %v\n%s", named, c.loads, res)
			}
		})
	}
}
