package agenttest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Tests of the user's own Codex plugins — installed with Codex itself,
// never reviewed by bundlectl — beside bundlectl exec's views: which
// configuration layers enable one (TestCodexOwnPluginLayers), and that
// exec names each one that loads and, with --exclusive, keeps every one
// out while the views' guards still run (TestExecCodexExclusive).

const (
	ownMarketplace = "mine"
	ownPlugin      = "own"
	ownPluginID    = ownPlugin + "@" + ownMarketplace
)

// ownSkill is the description of the own plugin's skill: the plugin
// loaded when it reaches the model.
func ownSkill(name string) string { return "agenttest-own-plugin-" + name + "-4e1d" }

// installOwnPlugin puts plugin name@market in Codex's plugin cache as
// `codex plugin add` leaves it: a version directory with a manifest, a
// skill and, when rec is set, a stdio MCP server that records its start
// in rec/<name>.jsonl.
func installOwnPlugin(t *testing.T, a *Agent, market, name, rec string) {
	t.Helper()
	dir := filepath.Join(a.ConfigDir(), "plugins", "cache", market, name, "1.0.0")
	writeJSONFile(t, dir, ".codex-plugin/plugin.json", map[string]any{"name": name, "version": "1.0.0"})
	writeFile(t, dir, "skills/"+name+"-notes/SKILL.md", fmt.Sprintf("---\nname: %s-notes\ndescription: %s\n---\n\nbody\n", name, ownSkill(name)), 0o644)
	if rec != "" {
		writeJSONFile(t, dir, ".mcp.json", map[string]any{"mcpServers": map[string]any{name + "-srv": map[string]any{
			"command": FakeMCPServer(t), "args": []string{"-record", filepath.Join(rec, name+".jsonl")}}}})
	}
}

// ownLoaded reports whether the own plugin's skill reached the model.
func ownLoaded(a *Agent, name string) bool {
	r, ok := lastAt(a, 0)
	return ok && r.Contains(ownSkill(name))
}

// overlayEtc returns a launcher prefix that runs the rest of its
// arguments in a private mount namespace where /etc/codex holds files
// (name → content), the machine's /etc untouched; the test is skipped
// where that cannot be done (not root, no overlayfs).
func overlayEtc(t *testing.T, files map[string]string) []string {
	t.Helper()
	// Not t.TempDir(): a subtest's name with a comma ("system, disabled")
	// would end the overlay's lowerdir= option early, and the mount fail.
	up, err := os.MkdirTemp("", "agenttest-etc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(up) })
	if strings.ContainsAny(up, ",:") {
		t.Fatalf("%s cannot be an overlay option", up)
	}
	for name, content := range files {
		writeFile(t, up, "upper/codex/"+name, content, 0o644)
	}
	if err := os.Mkdir(filepath.Join(up, "work"), 0o755); err != nil {
		t.Fatal(err)
	}
	mount := "mount -t overlay overlay -o lowerdir=/etc,upperdir=" + up + "/upper,workdir=" + up + "/work /etc"
	if out, err := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", mount+" && test -d /etc/codex").CombinedOutput(); err != nil {
		t.Skipf("cannot put files in /etc/codex in a private mount namespace: %v %s", err, out)
	}
	return []string{"unshare", "-m", "--propagation", "private", "sh", "-c", mount + ` && exec "$@"`, "sh"}
}

// TestCodexOwnPluginLayers records which configuration layers make Codex
// load a plugin installed in its cache, and which of them a session's
// `-c 'plugins={"<id>"={enabled=false}}'` — exec's way to keep one out —
// outranks (hosts/codex FindOwnPlugins, docs/hosts.md "Codex"):
//
//   - $CODEX_HOME/config.toml; an entry without "enabled" is enabled;
//     another id in the -c table leaves it enabled (the tables merge);
//   - the profile's $CODEX_HOME/<name>.config.toml (--profile);
//   - .codex/config.toml of the working directory, only when trusted, and
//     over config.toml;
//   - /etc/codex/config.toml;
//   - all of them lose to the -c table, but /etc/codex/managed_config.toml
//     wins over it;
//   - /etc/codex/requirements.toml pinning the plugins feature on wins
//     over -c features.plugins=false;
//   - a plugin in the cache that no layer names does not load.
func TestCodexOwnPluginLayers(t *testing.T) {
	t.Parallel()
	const on = "[plugins.\"" + ownPluginID + "\"]\nenabled = true\n"
	disable := []string{"-c", fmt.Sprintf("plugins={%q={enabled=false}}", ownPluginID)}
	for _, c := range []struct {
		name    string
		user    string // WORK and TOP stand for the working directory and its parent
		project string
		top     string // TOP/.codex/config.toml
		git     bool   // TOP is a git work tree's top
		etc     map[string]string
		args    []string
		loads   bool
	}{
		{name: "user", user: on, loads: true},
		{name: "user no enabled key", user: "[plugins.\"" + ownPluginID + "\"]\n", loads: true},
		{name: "user, other id on the command line", user: on, args: []string{"-c", `plugins={"other@elsewhere"={enabled=true}}`}, loads: true},
		{name: "user, disabled on the command line", user: on, args: disable},
		{name: "profile", args: []string{"--profile", "work"}, loads: true},
		{name: "profile, disabled on the command line", args: append([]string{"--profile", "work"}, disable...)},
		{name: "untrusted project", project: on},
		{name: "trusted project over user", user: "[plugins.\"" + ownPluginID + "\"]\nenabled = false\n[projects.\"WORK\"]\ntrust_level = \"trusted\"\n", project: on, loads: true},
		{name: "trusted project, disabled on the command line", user: "[projects.\"WORK\"]\ntrust_level = \"trusted\"\n", project: on, args: disable},
		{name: "git top trusted, the working directory's file", user: "[projects.\"TOP\"]\ntrust_level = \"trusted\"\n", project: on, git: true, loads: true},
		{name: "working directory alone trusted, its own file", user: "[projects.\"WORK\"]\ntrust_level = \"trusted\"\n", project: on, git: true, loads: true},
		{name: "working directory alone trusted, the git top's file", user: "[projects.\"WORK\"]\ntrust_level = \"trusted\"\n", top: on, git: true},
		{name: "working directory alone trusted, its own file turns it off", user: on + "[projects.\"WORK\"]\ntrust_level = \"trusted\"\n", project: "[plugins.\"" + ownPluginID + "\"]\nenabled = false\n", git: true},
		{name: "git top trusted, its own file", user: "[projects.\"TOP\"]\ntrust_level = \"trusted\"\n", top: on, git: true, loads: true},
		{name: "parent trusted, not a git work tree", user: "[projects.\"TOP\"]\ntrust_level = \"trusted\"\n", project: on},
		{name: "system", etc: map[string]string{"config.toml": on}, loads: true},
		{name: "system, disabled on the command line", etc: map[string]string{"config.toml": on}, args: disable},
		{name: "managed, disabled on the command line", etc: map[string]string{"managed_config.toml": on}, args: disable, loads: true},
		{name: "requirements pin the feature on, over the command line", user: on, etc: map[string]string{"requirements.toml": "[features]\nplugins = true\n"}, args: []string{"-c", "features.plugins=false"}, loads: true},
		{name: "not configured"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := New(t, Codex, Say("done"))
			installOwnPlugin(t, a, ownMarketplace, ownPlugin, "")
			top := filepath.Dir(a.Workdir)
			a.CodexConfig = strings.NewReplacer("WORK", a.Workdir, "TOP", top).Replace(c.user)
			writeFile(t, a.ConfigDir(), "work.config.toml", on, 0o644)
			if c.project != "" {
				writeFile(t, a.Workdir, ".codex/config.toml", c.project, 0o644)
			}
			if c.top != "" {
				writeFile(t, top, ".codex/config.toml", c.top, 0o644)
			}
			if c.git {
				if out, err := exec.Command("git", "init", "-q", top).CombinedOutput(); err != nil {
					t.Fatalf("git init: %v %s", err, out)
				}
			}
			if c.etc != nil {
				a.Launcher = overlayEtc(t, c.etc)
			}
			a.Args = append([]string{"-c", "features.plugins=true"}, c.args...)
			res := a.Run(t, "hi")
			if res.Exit != 0 {
				t.Fatalf("codex failed\n%s", res)
			}
			if got := ownLoaded(a, ownPlugin); got != c.loads {
				t.Errorf("own plugin loaded: %v, want %v (found by trying Codex 0.171)\n%s", got, c.loads, res)
			}
		})
	}
}

// TestExecCodexExclusive: a plugin of the user's own, enabled in
// config.toml, with a skill and an MCP server. Through bundlectl exec it
// loads (its skill reaches the model, its server starts) and stderr names
// it; through bundlectl exec --exclusive it does not load at all, while
// the view's guard still blocks the marker command, and config.toml is
// left as it was. The user's own hook and MCP server in config.toml,
// which are configuration and not plugins, run in both.
func TestExecCodexExclusive(t *testing.T) {
	t.Parallel()
	for _, exclusive := range []bool{false, true} {
		t.Run(fmt.Sprintf("exclusive=%v", exclusive), func(t *testing.T) {
			t.Parallel()
			s := newExecSession(t, Codex)
			a, f := s.a, s.f
			if exclusive {
				a.Launcher = append(a.Launcher[:len(a.Launcher)-1], "--exclusive", "--")
			}
			rec := t.TempDir()
			installOwnPlugin(t, a, ownMarketplace, ownPlugin, rec)
			// The user's own hook and MCP server, configuration rather
			// than plugins, which load either way.
			userHook := filepath.Join(rec, "user-hook-ran")
			a.CodexConfig = fmt.Sprintf("[plugins.%q]\nenabled = true\n\n[mcp_servers.usersrv]\ncommand = %q\nargs = [\"-record\", %q]\n\n", ownPluginID, FakeMCPServer(t), filepath.Join(rec, "usersrv.jsonl")) +
				CodexTrustedHookTOML(a.ConfigDir(), "PreToolUse", "Bash", "touch "+userHook)
			res := a.Run(t, execPrompt(Codex))
			if _, err := os.Stat(userHook); err != nil {
				t.Errorf("exclusive=%v: the user's own hook in config.toml did not run\n%s", exclusive, res)
			}
			if len(mcpRecord(t, filepath.Join(rec, "usersrv.jsonl"))) == 0 {
				t.Errorf("exclusive=%v: the user's own MCP server in config.toml did not start\n%s", exclusive, res)
			}

			f.checkGuard(t, a, res, s.shellTurn)
			started := len(mcpRecord(t, filepath.Join(rec, ownPlugin+".jsonl"))) > 0
			named := strings.Contains(res.Stderr, fmt.Sprintf("bundlectl: codex: your own plugin %q loads beside the views, never reviewed by bundlectl (bundlectl --home %s --workspace %s exec --exclusive -- codex keeps it out)", ownPluginID, f.home, f.ws))
			if loaded := ownLoaded(a, ownPlugin); loaded == exclusive || started == exclusive || named == exclusive {
				t.Errorf("exclusive=%v: own plugin's skill reached the model: %v, its MCP server started: %v, stderr named it: %v\n%s", exclusive, loaded, started, named, res)
			}
			cfg, err := os.ReadFile(filepath.Join(a.ConfigDir(), "config.toml"))
			if err != nil || string(cfg) != a.CodexConfig {
				t.Errorf("config.toml after the session (%v):\n%s", err, cfg)
			}
			if ents, _ := os.ReadDir(filepath.Join(a.ConfigDir(), "plugins", "cache")); len(ents) != 1 || ents[0].Name() != ownMarketplace {
				t.Errorf("codex's plugin cache after the session holds %v, want the user's own marketplace alone", ents)
			}
		})
	}
}

// TestExecCodexOwnPluginTrustedWorkspace: Codex 0.171 reads the
// .codex/config.toml of a working directory trusted directly, below a git
// work tree's top it does not trust (TestCodexOwnPluginLayers), so a
// plugin of the user's own that file enables loads beside the views:
// bundlectl exec names it, and the view's guard still blocks the marker
// command. exec once read a project's files only under a trusted top, and
// said nothing of the plugin.
func TestExecCodexOwnPluginTrustedWorkspace(t *testing.T) {
	t.Parallel()
	s := newExecSession(t, Codex)
	a, f := s.a, s.f
	installOwnPlugin(t, a, ownMarketplace, ownPlugin, "")
	top := filepath.Dir(a.Workdir)
	if out, err := exec.Command("git", "init", "-q", top).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	a.CodexConfig = fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n\n", a.Workdir) + a.CodexConfig
	writeFile(t, a.Workdir, ".codex/config.toml", fmt.Sprintf("[plugins.%q]\nenabled = true\n", ownPluginID), 0o644)
	res := a.Run(t, execPrompt(Codex))
	f.checkGuard(t, a, res, s.shellTurn)
	if !ownLoaded(a, ownPlugin) {
		t.Fatalf("the own plugin did not load: this test's premise (Codex 0.171) no longer holds\n%s", res)
	}
	if want := fmt.Sprintf("bundlectl: codex: your own plugin %q loads beside the views, never reviewed by bundlectl", ownPluginID); !strings.Contains(res.Stderr, want) {
		t.Errorf("stderr lacks %q\n%s", want, res)
	}
}

// TestExecCodexExclusiveManaged: a plugin /etc/codex/managed_config.toml
// enables outranks any -c flag, so bundlectl exec --exclusive refuses to
// start Codex (a usage error, exit 2) and names the plugin and the file;
// without --exclusive the plugin loads and the note says what enables it.
func TestExecCodexExclusiveManaged(t *testing.T) {
	t.Parallel()
	for _, exclusive := range []bool{false, true} {
		t.Run(fmt.Sprintf("exclusive=%v", exclusive), func(t *testing.T) {
			t.Parallel()
			a := New(t, Codex, Say("done"))
			f := newExecFixture(t, a)
			f.trust(t)
			installOwnPlugin(t, a, ownMarketplace, ownPlugin, "")
			launcher := f.launcher(t)
			if exclusive {
				launcher = append(launcher[:len(launcher)-1], "--exclusive", "--")
			}
			a.Launcher = append(overlayEtc(t, map[string]string{"managed_config.toml": fmt.Sprintf("[plugins.%q]\nenabled = true\n", ownPluginID)}), launcher...)
			a.Args = append(a.Args, "-c", "features.plugins=true")
			res := a.Run(t, "hi")
			if exclusive {
				want := fmt.Sprintf("bundlectl exec --exclusive -- codex cannot keep your own plugin %q out: \"/etc/codex/managed_config.toml\" enables it", ownPluginID)
				if res.Exit != 2 || !strings.Contains(res.Stderr, want) || len(a.Model.Requests()) > 0 {
					t.Errorf("want exit 2, %q on stderr and codex never started\n%s", want, res)
				}
				return
			}
			if res.Exit != 0 || !ownLoaded(a, ownPlugin) || !strings.Contains(res.Stderr, "(\"/etc/codex/managed_config.toml\" enables it, above anything a session can set)") {
				t.Errorf("want the managed plugin loaded and named with its file\n%s", res)
			}
		})
	}
}

// TestExecCodexManagedFeaturesOff: /etc/codex/managed_config.toml outranks
// the -c flags with which exec turns the plugins and hooks features on, so
// a managed file that turns either off would start Codex with the views'
// guards silently gone (tried: the marker command ran). exec refuses to
// start Codex instead, naming the file and the setting.
func TestExecCodexManagedFeaturesOff(t *testing.T) {
	t.Parallel()
	for _, setting := range []string{"plugins", "hooks"} {
		t.Run(setting, func(t *testing.T) {
			t.Parallel()
			marker := filepath.Join(t.TempDir(), markerName)
			turns, _, _, _ := execScript(Codex, marker)
			a := New(t, Codex, turns...)
			f := newTrustedFixture(t, a, marker)
			allowExecTools(a)
			a.Launcher = append(overlayEtc(t, map[string]string{"managed_config.toml": "[features]\n" + setting + " = false\n"}), f.launcher(t)...)
			res := a.Run(t, execPrompt(Codex))
			want := fmt.Sprintf(`"/etc/codex/managed_config.toml" sets features.%s = false, which would keep them from running, so the agent is not started`, setting)
			if _, err := os.Stat(marker); err == nil || res.Exit != 1 || !strings.Contains(res.Stderr, want) || len(a.Model.Requests()) > 0 {
				t.Errorf("want codex never started and %q on stderr\n%s", want, res)
			}
		})
	}
}

// TestCodexPluginArgs records how Codex 0.171 reads -c plugins…
// arguments after the -c plugins table exec enables its views with
// (hosts/codex PluginArgs, PluginArgError):
//
//   - a later -c plugins={…} replaces the earlier table whole: a plugin
//     only the first enables does not load (so such an argument of the
//     user's would drop every view);
//   - a later -c plugins.<id>.enabled=… or -c plugins.<id>={…} changes
//     that entry alone, over the table;
//   - the key is split on dots with quotes and spaces kept: -c
//     'plugins."<id>".enabled=true' names a plugin `"<id>"`, and -c
//     'plugins. <id> .enabled=true' one ` <id> `; either enables nothing,
//     and disables nothing either (after the table the plugin still loads).
func TestCodexPluginArgs(t *testing.T) {
	t.Parallel()
	table := fmt.Sprintf("plugins={%q={enabled=true}}", ownPluginID)
	for _, c := range []struct {
		name  string
		args  []string
		loads bool
	}{
		{"table", []string{"-c", table}, true},
		{"table, then another table", []string{"-c", table, "-c", `plugins={"other@x"={enabled=true}}`}, false},
		{"table, then another entry", []string{"-c", table, "-c", "plugins.other@x={enabled=true}"}, true},
		{"table, then the entry off", []string{"-c", table, "-c", "plugins." + ownPluginID + ".enabled=false"}, false},
		{"entry on", []string{"-c", "plugins." + ownPluginID + ".enabled=true"}, true},
		{"quoted entry on", []string{"-c", fmt.Sprintf("plugins.%q.enabled=true", ownPluginID)}, false},
		{"table, then the quoted entry off", []string{"-c", table, "-c", fmt.Sprintf("plugins.%q.enabled=false", ownPluginID)}, true},
		{"table, then the quoted entry replaced", []string{"-c", table, "-c", fmt.Sprintf("plugins.%q={enabled=false}", ownPluginID)}, true},
		{"spaced entry on", []string{"-c", "plugins. " + ownPluginID + " .enabled=true"}, false},
		{"table, then the spaced entry off", []string{"-c", table, "-c", "plugins. " + ownPluginID + " .enabled=false"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a := New(t, Codex, Say("done"))
			installOwnPlugin(t, a, ownMarketplace, ownPlugin, "")
			a.Args = append([]string{"-c", "features.plugins=true"}, c.args...)
			res := a.Run(t, "hi")
			if res.Exit != 0 {
				t.Fatalf("codex failed\n%s", res)
			}
			if got := ownLoaded(a, ownPlugin); got != c.loads {
				t.Errorf("own plugin loaded: %v, want %v (found by trying Codex 0.171)\n%s", got, c.loads, res)
			}
		})
	}
}

// TestExecCodexPluginArgs: the user's own -c plugins… arguments through
// bundlectl exec. A whole table, which would replace exec's and drop the
// view (TestCodexPluginArgs), is refused with or without --exclusive
// (exit 2, codex never started). An entry enabling a plugin of the user's
// own loads it beside the view, named on stderr, while the view's guard
// still blocks the marker command; under --exclusive it is refused, while
// the same entry with its id quoted, which enables nothing, is not: the
// session starts, the guard blocks, the own plugin stays out.
func TestExecCodexPluginArgs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name      string
		arg       string
		exclusive bool
		refused   string
	}{
		{"table", fmt.Sprintf("plugins={%q={enabled=true}}", ownPluginID), false, "replaces the whole plugins table"},
		{"table, exclusive", fmt.Sprintf("plugins={%q={enabled=true}}", ownPluginID), true, "replaces the whole plugins table"},
		{"entry", "plugins." + ownPluginID + ".enabled=true", false, ""},
		{"entry, exclusive", "plugins." + ownPluginID + ".enabled=true", true, fmt.Sprintf("enables your own plugin %q, which --exclusive keeps out", ownPluginID)},
		// A quoted id names no plugin (TestCodexPluginArgs): nothing to refuse.
		{"quoted entry, exclusive", fmt.Sprintf("plugins.%q.enabled=true", ownPluginID), true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			marker := filepath.Join(t.TempDir(), markerName)
			turns, _, _, shellTurn := execScript(Codex, marker)
			a := New(t, Codex, turns...)
			f := newTrustedFixture(t, a, marker)
			allowExecTools(a)
			installOwnPlugin(t, a, ownMarketplace, ownPlugin, "")
			a.Launcher = f.launcher(t)
			if c.exclusive {
				a.Launcher = append(a.Launcher[:len(a.Launcher)-1], "--exclusive", "--")
			}
			a.Args = append(a.Args, "-c", c.arg)
			res := a.Run(t, execPrompt(Codex))
			if c.refused != "" {
				if res.Exit != 2 || !strings.Contains(res.Stderr, c.refused) || !strings.Contains(res.Stderr, "bundlectl: hint: ") || len(a.Model.Requests()) > 0 {
					t.Errorf("want exit 2, %q and a hint on stderr, codex never started\n%s", c.refused, res)
				}
				return
			}
			f.checkGuard(t, a, res, shellTurn)
			if c.exclusive {
				if ownLoaded(a, ownPlugin) || strings.Contains(res.Stderr, "your own plugin") {
					t.Errorf("want the own plugin kept out, and not named\n%s", res)
				}
				return
			}
			if !ownLoaded(a, ownPlugin) || !strings.Contains(res.Stderr, fmt.Sprintf("your own plugin %q loads beside the views", ownPluginID)) {
				t.Errorf("want the own plugin loaded and named\n%s", res)
			}
		})
	}
}

// TestExecCodexHooksLayers: each configuration layer whose
// features.hooks = false keeps Codex 0.171 from running any hook in a
// session started without exec (TestSetupCodexHooksLayers: the user's
// config.toml, a trusted project's .codex/config.toml, one of a working
// directory trusted directly, a --profile's file) is outranked by the
// -c features.hooks=true exec gives Codex: exec starts it, and the
// view's guard blocks the marker command — with the --profile given on
// exec's own command line too, which exec knows at launch.
func TestExecCodexHooksLayers(t *testing.T) {
	t.Parallel()
	const off = "[features]\nhooks = false\n"
	trust := func(dir string) string { return fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n", dir) }
	for _, c := range []struct {
		name    string
		user    func(work, top string) string
		project bool // WORK/.codex/config.toml turns hooks off
		git     bool // TOP is a git work tree's top
		args    []string
	}{
		{name: "user false", user: func(string, string) string { return off }},
		{name: "trusted project false", user: func(work, _ string) string { return trust(work) }, project: true},
		{name: "workspace trusted below an untrusted git top, its false", user: func(work, _ string) string { return trust(work) }, project: true, git: true},
		{name: "profile false, selected", args: []string{"--profile", "work"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			marker := filepath.Join(t.TempDir(), markerName)
			turns, _, _, shellTurn := execScript(Codex, marker)
			a := New(t, Codex, turns...)
			f := newTrustedFixture(t, a, marker)
			allowExecTools(a)
			top := filepath.Dir(a.Workdir)
			if c.user != nil {
				a.CodexConfig = c.user(a.Workdir, top) + "\n" + a.CodexConfig
			}
			if c.project {
				writeFile(t, a.Workdir, ".codex/config.toml", off, 0o644)
			}
			if c.git {
				if out, err := exec.Command("git", "init", "-q", top).CombinedOutput(); err != nil {
					t.Fatalf("git init: %v %s", err, out)
				}
			}
			writeFile(t, a.ConfigDir(), "work.config.toml", off, 0o644)
			a.Args = append(a.Args, c.args...)
			a.Launcher = f.launcher(t)
			res := a.Run(t, execPrompt(Codex))
			if res.Exit != 0 {
				t.Fatalf("exec did not start codex\n%s", res)
			}
			f.checkGuard(t, a, res, shellTurn)
		})
	}
}
