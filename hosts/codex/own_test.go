package codex

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/hosts"
)

// ownFixture is a CODEX_HOME, a system directory standing in for
// /etc/codex, and a workspace, each file written from files (paths
// relative to a directory that holds all three: "home/", "etc/", "ws/").
func ownFixture(t *testing.T, files map[string]string) (root string) {
	t.Helper()
	root = t.TempDir()
	for rel, content := range files {
		p := filepath.Join(root, rel)
		dir := filepath.Dir(p)
		if strings.HasSuffix(rel, "/") {
			dir = p
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if dir == p {
			continue
		}
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(content, "ROOT", root)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(root, "ws"), 0o755)
	old := testOnlySystemDir
	testOnlySystemDir = filepath.Join(root, "etc")
	t.Cleanup(func() { testOnlySystemDir = old })
	return root
}

func installed(ids ...string) map[string]string {
	m := map[string]string{}
	for _, id := range ids {
		p, mk, _ := strings.Cut(id, "@")
		m["home/plugins/cache/"+mk+"/"+p+"/1.0.0/.codex-plugin/plugin.json"] = `{"name":"` + p + `"}`
	}
	return m
}

func with(a map[string]string, b map[string]string) map[string]string {
	for k, v := range b {
		a[k] = v
	}
	return a
}

func ids(ps []OwnPlugin) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.ID)
	}
	return out
}

// TestFindOwnPlugins: the configuration layers merge as Codex 0.171 was
// found to merge them (internal/agenttest TestCodexOwnPluginLayers): each
// layer over the one before, an entry without "enabled" enabled, a
// project's .codex/config.toml only when its own directory or its
// project root is trusted, and only an installed plugin loads.
func TestFindOwnPlugins(t *testing.T) {
	const on, off = "enabled = true\n", "enabled = false\n"
	for _, c := range []struct {
		name  string
		files map[string]string
		cwd   string // under ws/
		args  []string
		load  []string
		known []string
	}{
		{"user", map[string]string{"home/config.toml": `[plugins."a@m"]` + "\n" + on}, "", nil, []string{"a@m"}, nil},
		{"no enabled key", map[string]string{"home/config.toml": `[plugins."a@m"]` + "\n"}, "", nil, []string{"a@m"}, nil},
		{"disabled", map[string]string{"home/config.toml": `[plugins."a@m"]` + "\n" + off}, "", nil, nil, nil},
		{"not installed", map[string]string{"home/config.toml": `[plugins."z@m"]` + "\n" + on}, "", nil, nil, []string{"a@m", "b@m", "c@m", "z@m"}},
		{"system", map[string]string{"etc/config.toml": `[plugins."a@m"]` + "\n" + on}, "", nil, []string{"a@m"}, nil},
		{"user over system", map[string]string{"etc/config.toml": `[plugins."a@m"]` + "\n" + on, "home/config.toml": `[plugins."a@m"]` + "\n" + off}, "", nil, nil, nil},
		{"profile", map[string]string{"home/work.config.toml": `[plugins."a@m"]` + "\n" + on}, "", []string{"exec", "--profile", "work"}, []string{"a@m"}, nil},
		{"profile short", map[string]string{"home/work.config.toml": `[plugins."a@m"]` + "\n" + on}, "", []string{"-pwork"}, []string{"a@m"}, nil},
		{"profile not selected", map[string]string{"home/work.config.toml": `[plugins."a@m"]` + "\n" + on}, "", nil, nil, nil},
		{"project untrusted", map[string]string{"ws/.codex/config.toml": `[plugins."a@m"]` + "\n" + on}, "", nil, nil, []string{"a@m", "b@m", "c@m"}},
		{"project trusted", map[string]string{"home/config.toml": `[projects."ROOT/ws"]` + "\ntrust_level = \"trusted\"\n", "ws/.codex/config.toml": `[plugins."a@m"]` + "\n" + on}, "", nil, []string{"a@m"}, nil},
		{"project over user", map[string]string{"home/config.toml": `[plugins."a@m"]` + "\n" + off + `[projects."ROOT/ws"]` + "\ntrust_level = \"trusted\"\n", "ws/.codex/config.toml": `[plugins."a@m"]` + "\n" + on}, "", nil, []string{"a@m"}, nil},
		// no git work tree: only the working directory's .codex is read
		{"parent without git", map[string]string{"home/config.toml": `[projects."ROOT/ws/sub"]` + "\ntrust_level = \"trusted\"\n", "ws/.codex/config.toml": `[plugins."a@m"]` + "\n" + on, "ws/sub/": ""}, "sub", nil, nil, nil},
		// a git work tree: each directory from its top, trusted by its top
		{"git root trusted", map[string]string{"home/config.toml": `[projects."ROOT/ws"]` + "\ntrust_level = \"trusted\"\n", "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/.codex/config.toml": `[plugins."a@m"]` + "\n" + on, "ws/sub/.codex/config.toml": `[plugins."b@m"]` + "\n" + on}, "sub", nil, []string{"a@m", "b@m"}, nil},
		{"git subdir trusted", map[string]string{"home/config.toml": `[projects."ROOT/ws/sub"]` + "\ntrust_level = \"trusted\"\n", "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/.codex/config.toml": `[plugins."a@m"]` + "\n" + on, "ws/sub/": ""}, "sub", nil, nil, nil},
		// ...whose own file it trusts
		{"git subdir trusted, its own file", map[string]string{"home/config.toml": `[projects."ROOT/ws/sub"]` + "\ntrust_level = \"trusted\"\n", "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/sub/.codex/config.toml": `[plugins."a@m"]` + "\n" + on}, "sub", nil, []string{"a@m"}, nil},
		{"git subdir trusted, its own file turns plugins off", map[string]string{"home/config.toml": `[plugins."a@m"]` + "\n" + on + `[projects."ROOT/ws/sub"]` + "\ntrust_level = \"trusted\"\n", "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/sub/.codex/config.toml": `[plugins."a@m"]` + "\n" + off}, "sub", nil, nil, nil},
		{"cd", map[string]string{"home/config.toml": `[projects."ROOT/ws/sub"]` + "\ntrust_level = \"trusted\"\n", "ws/sub/.codex/config.toml": `[plugins."a@m"]` + "\n" + on}, "", []string{"-C", "sub", "exec"}, []string{"a@m"}, nil},
		{"managed over all", map[string]string{"home/config.toml": `[plugins."a@m"]` + "\n" + off, "etc/managed_config.toml": `[plugins."a@m"]` + "\n" + on}, "", nil, []string{"a@m"}, nil},
		{"prompt after --", map[string]string{"home/work.config.toml": `[plugins."a@m"]` + "\n" + on}, "", []string{"exec", "--", "-p", "work"}, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := ownFixture(t, with(c.files, installed("a@m", "b@m", "c@m")))
			got := FindOwnPlugins(filepath.Join(root, "home"), filepath.Join(root, "ws", c.cwd), c.args)
			if !slices.Equal(ids(got.Load), c.load) {
				t.Errorf("loads %q, want %q", ids(got.Load), c.load)
			}
			if c.known != nil && !slices.Equal(got.Known, c.known) {
				t.Errorf("known %q, want %q", got.Known, c.known)
			}
			if len(got.Unread) > 0 {
				t.Errorf("unread: %q", got.Unread)
			}
		})
	}
}

// TestFindOwnPluginsForced: a plugin managed_config.toml enables cannot be
// kept out by the session's -c flags (it outranks them), installed or not;
// one it disables is out anyway; an unreadable managed file is reported.
func TestFindOwnPluginsForced(t *testing.T) {
	root := ownFixture(t, with(map[string]string{
		"etc/managed_config.toml": "[plugins.\"a@m\"]\nenabled = true\n[plugins.\"c@m\"]\nenabled = false\n[plugins.\"curated@openai-curated\"]\n",
		"home/config.toml":        "[plugins.\"c@m\"]\nenabled = true\n",
	}, installed("a@m", "c@m")))
	got := FindOwnPlugins(filepath.Join(root, "home"), filepath.Join(root, "ws"), nil)
	if want := []string{"a@m", "curated@openai-curated"}; !slices.Equal(ids(got.Forced), want) {
		t.Errorf("forced %q, want %q", ids(got.Forced), want)
	}
	if want := []string{"a@m"}; !slices.Equal(ids(got.Load), want) {
		t.Errorf("loads %q, want %q", ids(got.Load), want)
	}
	if got.Forced[0].Managed != filepath.Join(root, "etc", "managed_config.toml") {
		t.Errorf("forced by %q", got.Forced[0].Managed)
	}

	os.WriteFile(filepath.Join(root, "etc", "managed_config.toml"), []byte("[plugins\n"), 0o644)
	got = FindOwnPlugins(filepath.Join(root, "home"), filepath.Join(root, "ws"), nil)
	if got.UnreadManaged == "" || len(got.Unread) != 1 {
		t.Errorf("an unreadable managed_config.toml is not reported: %+v", got)
	}
}

// TestLaunchExclusive: an exclusive launch disables every plugin any layer
// names and every installed one in the session's -c plugins table, and
// names none; a managed plugin refuses the launch; without --exclusive each
// plugin that loads is named in the shape the three hosts share.
func TestLaunchExclusive(t *testing.T) {
	root := ownFixture(t, with(map[string]string{
		"home/config.toml": "[plugins.\"a@m\"]\n[plugins.\"z@m\"]\nenabled = false\n",
	}, installed("a@m", "b@m")))
	env := []string{"CODEX_HOME=" + filepath.Join(root, "home")}
	argv := []string{"codex", "exec", "hi"}

	s := hosts.NewSession(filepath.Join(root, "views"))
	l, err := Host{}.Launch(s, nil, argv, env)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{`codex: your own plugin "a@m" loads beside the views, never reviewed by bundlectl (bundlectl exec --exclusive -- codex keeps it out)`}; !slices.Equal(l.Notes, want) {
		t.Errorf("notes %q, want %q", l.Notes, want)
	}
	if !slices.Equal(l.Argv, argv) {
		t.Errorf("argv %q, want the user's own", l.Argv)
	}

	s = hosts.NewSession(filepath.Join(root, "views"))
	l, err = launch(s, true, nil, argv, env)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"codex", "-c", `plugins={"a@m"={"enabled"=false},"b@m"={"enabled"=false},"z@m"={"enabled"=false}}`, "exec", "hi"}
	if !slices.Equal(l.Argv, want) || len(l.Notes) > 0 {
		t.Errorf("exclusive launch: argv %q notes %q, want argv %q and no notes", l.Argv, l.Notes, want)
	}

	os.MkdirAll(filepath.Join(root, "etc"), 0o755)
	os.WriteFile(filepath.Join(root, "etc", "managed_config.toml"), []byte("[plugins.\"b@m\"]\nenabled = true\n"), 0o644)
	_, err = launch(s, true, nil, argv, env)
	var ne *hosts.NotExclusiveError
	if !errors.As(err, &ne) || ne.Plugin != "b@m" || !strings.Contains(err.Error(), "managed_config.toml") {
		t.Errorf("a managed plugin under --exclusive: got %v, want a NotExclusiveError naming b@m and the file", err)
	}

	os.WriteFile(filepath.Join(root, "etc", "managed_config.toml"), []byte("[plugins\n"), 0o644)
	_, err = launch(s, true, nil, argv, env)
	if want := `cannot keep your own plugins out: "` + filepath.Join(root, "etc", "managed_config.toml") + `" may enable some, and bundlectl cannot read it`; !errors.As(err, &ne) || !strings.Contains(err.Error(), want) {
		t.Errorf("an unreadable managed_config.toml under --exclusive: got %v, want %q", err, want)
	}
}

// TestManagedFeatureOff: a managed_config.toml that turns the plugins
// feature off, or the hooks feature when the views have hooks, is named.
func TestManagedFeatureOff(t *testing.T) {
	for _, c := range []struct {
		managed string
		hooks   bool
		want    string
	}{
		{"", true, ""},
		{"[features]\nplugins = false\n", false, "features.plugins = false"},
		{"[features]\nhooks = false\n", true, "features.hooks = false"},
		{"[features]\nhooks = false\n", false, ""},
		{"[features]\nhooks = true\nplugins = true\n", true, ""},
		{"[features\n", true, ""}, // Codex does not start on it
	} {
		files := map[string]string{}
		if c.managed != "" {
			files["etc/managed_config.toml"] = c.managed
		}
		ownFixture(t, files)
		if _, got := ManagedFeatureOff(c.hooks); got != c.want {
			t.Errorf("ManagedFeatureOff(%v) with %q = %q, want %q", c.hooks, c.managed, got, c.want)
		}
	}
}

// FuzzFindOwnPlugins: no config.toml or argument list makes the reader
// panic, and every plugin it says loads is one an exclusive launch
// disables.
func FuzzFindOwnPlugins(f *testing.F) {
	f.Add("[plugins.\"a@m\"]\nenabled = true\n", "-p\x00work")
	f.Add("[plugins]\n\"a@m\" = true\n", "-C")
	f.Add("plugins = 3\n[projects.\"/\"]\ntrust_level = 1\n", "--profile=x\x00--")
	f.Add("[plugins.\"a@m\".enabled]\nx = 1\n", "-c\x00features.plugins=false")
	f.Add("", "-c\x00plugins.a@m.enabled=true\x00-c\x00plugins={\"b@m\"={enabled=\"x\"}}")
	f.Fuzz(func(t *testing.T, cfg, args string) {
		root := t.TempDir()
		home := filepath.Join(root, "home")
		writeAll(t, map[string]string{
			filepath.Join(home, "config.toml"):                                       cfg,
			filepath.Join(home, "plugins/cache/m/a/1.0.0/.codex-plugin/plugin.json"): "{}",
		})
		old := testOnlySystemDir
		testOnlySystemDir = filepath.Join(root, "etc")
		defer func() { testOnlySystemDir = old }()
		got := FindOwnPlugins(home, root, strings.Split(args, "\x00"))
		for _, p := range got.Load {
			if !slices.Contains(got.Known, p.ID) {
				t.Errorf("%q loads but is not disabled under --exclusive", p.ID)
			}
		}
	})
}

func writeAll(t *testing.T, files map[string]string) {
	t.Helper()
	for p, content := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRequirementsOff: a requirements.toml that pins the plugins feature
// off, or (when the views have hooks) the hooks feature, or lets managed
// hooks alone run, is named; Codex 0.171 honours each above any -c flag
// (internal/agenttest TestExecCodexRequirementsOff).
func TestRequirementsOff(t *testing.T) {
	for _, c := range []struct {
		req   string
		hooks bool
		want  string
	}{
		{"", true, ""},
		{"[features]\nplugins = false\n", false, "features.plugins = false"},
		{"[features]\nhooks = false\n", true, "features.hooks = false"},
		{"[features]\nhooks = false\n", false, ""},
		{"[feature_requirements]\nhooks = false\n", true, "feature_requirements.hooks = false"},
		{"[features]\nhooks = true\nplugins = true\n", true, ""},
		{"allow_managed_hooks_only = true\n", true, "allow_managed_hooks_only = true"},
		{"allow_managed_hooks_only = true\n", false, ""},
		{"allow_managed_hooks_only = false\n", true, ""},
		// 0.171 reads the switch at the top level only (tried).
		{"[hooks]\nallow_managed_hooks_only = true\n", true, ""},
		{"[features\n", true, ""}, // Codex does not start on it
	} {
		files := map[string]string{}
		if c.req != "" {
			files["etc/requirements.toml"] = c.req
		}
		ownFixture(t, files)
		if _, got := RequirementsOff(c.hooks); got != c.want {
			t.Errorf("RequirementsOff(%v) with %q = %q, want %q", c.hooks, c.req, got, c.want)
		}
	}
}

// TestLaunchRequirementsOff: a launch with a view whose hooks a
// requirements.toml keeps from running is refused with a HooksOffError
// naming the file and the setting, before anything is linked.
func TestLaunchRequirementsOff(t *testing.T) {
	root := ownFixture(t, map[string]string{"etc/requirements.toml": "allow_managed_hooks_only = true\n"})
	env := []string{"CODEX_HOME=" + filepath.Join(root, "home")}
	views := []hosts.BuiltView{{Bundle: "guard", Dir: filepath.Join(root, "view"), Hooks: true, Meta: map[string]string{"hooks/hooks.json:pre_tool_use:0:0": "sha256:00"}}}
	_, err := launch(hosts.NewSession(filepath.Join(root, "views")), false, views, []string{"codex", "exec", "hi"}, env)
	var he *hosts.HooksOffError
	if !errors.As(err, &he) || he.File != filepath.Join(root, "etc", "requirements.toml") || he.Setting != "allow_managed_hooks_only = true" {
		t.Fatalf("got %v, want a HooksOffError naming requirements.toml and allow_managed_hooks_only", err)
	}
	if ents, _ := os.ReadDir(filepath.Join(root, "home", "plugins", "cache")); len(ents) > 0 {
		t.Errorf("the refused launch left %v in codex's plugin cache", ents)
	}
}

// TestLaunchRequirementsOffHint: the hint of a refusal a requirements.toml
// makes greps for the setting, and finds its line in every spelling TOML
// allows (a table, a dotted key, an inline table, a quoted key).
func TestLaunchRequirementsOffHint(t *testing.T) {
	for _, c := range []struct{ req, line string }{
		{"[features]\nplugins = true\nhooks = false\n", "3:hooks = false"},
		{"features.hooks=false\n", "1:features.hooks=false"},
		{"features = { plugins = true, hooks = false }\n", "1:features = { plugins = true, hooks = false }"},
		{"[feature_requirements]\n\"hooks\" = false\n", "2:\"hooks\" = false"},
		{"# managed\nallow_managed_hooks_only = true\n", "2:allow_managed_hooks_only = true"},
	} {
		root := ownFixture(t, map[string]string{"etc/requirements.toml": c.req})
		env := []string{"CODEX_HOME=" + filepath.Join(root, "home")}
		views := []hosts.BuiltView{{Bundle: "guard", Dir: filepath.Join(root, "view"), Hooks: true, Meta: map[string]string{"hooks/hooks.json:pre_tool_use:0:0": "sha256:00"}}}
		_, err := launch(hosts.NewSession(filepath.Join(root, "views")), false, views, []string{"codex", "exec", "hi"}, env)
		var he *hosts.HooksOffError
		if !errors.As(err, &he) || !strings.HasPrefix(he.Hint(), "grep -n -E -- ") {
			t.Errorf("%q: got %v, want a HooksOffError whose hint greps", c.req, err)
			continue
		}
		out, err := exec.Command("sh", "-c", he.Hint()).Output()
		if err != nil || strings.TrimSpace(string(out)) != c.line {
			t.Errorf("%q: %s printed %q (%v), want %q", c.req, he.Hint(), out, err, c.line)
		}
	}
}

// TestPluginArgError: the user's own -c plugins… arguments. The whole
// table would replace exec's (Codex 0.171 replaces an earlier -c value
// with a later one at the same key: TestCodexPluginArgs) and a view's
// entry is exec's: both refused, with or without --exclusive. An entry
// of the user's own that leaves the plugin enabled is refused under
// --exclusive alone; Codex takes quotes and spaces in a part of a -c key
// as part of the name (TestCodexPluginArgs), so a quoted or spaced id
// names no plugin that can load, neither the user's nor a view.
func TestPluginArgError(t *testing.T) {
	for _, c := range []struct {
		args      []string
		plain     string // the refusal without --exclusive ("" for none)
		exclusive string // and with it
	}{
		{nil, "", ""},
		{[]string{"-c", "model=x"}, "", ""},
		{[]string{"-c", `plugins={"a@m"={enabled=true}}`}, "replaces the whole plugins table", "replaces the whole plugins table"},
		{[]string{"-c", `plugins={}`}, "replaces the whole plugins table", "replaces the whole plugins table"},
		{[]string{`--config="plugins"={}`}, "", ""}, // a table named "plugins" with its quotes (agenttest TestCodexFeatureArgSpellings)
		{[]string{"-c", "plugins.x@bundlectl-1.enabled=false"}, "a bundlectl session marketplace", "a bundlectl session marketplace"},
		{[]string{"-c", "plugins.x@bundlectl-1={}"}, "a bundlectl session marketplace", "a bundlectl session marketplace"},
		{[]string{"-c", `plugins."x@bundlectl-1"={}`}, "", ""},                              // names the plugin "\"x@bundlectl-1\"", not the view
		{[]string{"-c", `plugins."x@bundlectl-1".enabled=false`}, "", ""},                   // the same
		{[]string{"-c", "plugins. x@bundlectl-1 .enabled=false"}, "", ""},                   // " x@bundlectl-1 "
		{[]string{"-c", `plugins."a@m".enabled=true`}, "", ""},                              // enables no plugin of the user's own
		{[]string{"-c", "plugins. a@m .enabled=true"}, "", ""},                              // nor does this
		{[]string{"-c", " plugins.a@m.enabled=true "}, "", `enables your own plugin "a@m"`}, // Codex trims the whole key
		{[]string{"-c", "plugins.a@m.enabled=true"}, "", `enables your own plugin "a@m"`},
		{[]string{"-ca=1", "-c", "plugins.a@m={}"}, "", `enables your own plugin "a@m"`},
		{[]string{"-c", "plugins.a@m={enabled=false}"}, "", ""},
		{[]string{"-c", "plugins.a@m.enabled=false"}, "", ""},
		{[]string{"-c", "plugins.a@m.enabled=true", "-c", "plugins.a@m.enabled=false"}, "", ""},
		{[]string{"-c", "plugins.a@m.enabled=false", "-c", "plugins.a@m={}"}, "", `the argument "-c plugins.a@m={}" enables your own plugin "a@m"`},
		{[]string{"-c", "plugins.a@m.other=1"}, "", ""},
		{[]string{"-c", "plugins.a@m.enabled=\"yes\""}, "", `enables your own plugin "a@m"`},
		{[]string{"--", "-c", "plugins={}"}, "", ""},
	} {
		if err := PluginArgError(c.args, false, false); err != nil && !strings.Contains(err.Error(), "session marketplace") {
			t.Errorf("PluginArgError(%q) with no view and no --exclusive = %v: exec passes no plugins table then", c.args, err)
		}
		for _, exclusive := range []bool{false, true} {
			want := c.plain
			if exclusive {
				want = c.exclusive
			}
			err := PluginArgError(c.args, exclusive, true)
			var ae *hosts.ArgumentError
			switch {
			case want == "" && err != nil:
				t.Errorf("PluginArgError(%q, %v) = %v, want nil", c.args, exclusive, err)
			case want != "" && (!errors.As(err, &ae) || !strings.Contains(err.Error(), want) || ae.Fix == ""):
				t.Errorf("PluginArgError(%q, %v) = %v, want an ArgumentError with %q", c.args, exclusive, err, want)
			}
		}
	}
}

// TestFindOwnPluginsArgs: a plugin the user's own -c plugins.<id>… enables
// is one that loads (and is named at launch); a requirements.toml that
// pins the plugins feature decides it above any flag.
func TestFindOwnPluginsArgs(t *testing.T) {
	root := ownFixture(t, with(map[string]string{"home/config.toml": "[plugins.\"b@m\"]\n"}, installed("a@m", "b@m")))
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	got := FindOwnPlugins(home, ws, []string{"-c", "plugins.a@m.enabled=true", "-c", "plugins.b@m.enabled=false", "-c", `plugins."x@bundlectl-1".enabled=true`})
	if want := []string{"a@m"}; !slices.Equal(ids(got.Load), want) {
		t.Errorf("loads %q, want %q", ids(got.Load), want)
	}
	// A whole table merges over the files' entries, one by one.
	got = FindOwnPlugins(home, ws, []string{"-c", `plugins={"a@m"={},"c@m"={enabled=false}}`})
	if want := []string{"a@m", "b@m"}; !slices.Equal(ids(got.Load), want) {
		t.Errorf("with a whole table: loads %q, want %q", ids(got.Load), want)
	}
	if slices.Contains(got.Known, `"x@bundlectl-1"`) || slices.Contains(got.Known, "x@bundlectl-1") {
		t.Errorf("a view's id is among the user's own: %q", got.Known)
	}
	if !FindOwnPlugins(home, ws, nil).FeatureOn || FindOwnPlugins(home, ws, []string{"--disable", "plugins"}).FeatureOn {
		t.Errorf("the plugins feature does not follow the arguments")
	}
	os.MkdirAll(filepath.Join(root, "etc"), 0o755)
	os.WriteFile(filepath.Join(root, "etc", "requirements.toml"), []byte("[features]\nplugins = true\n"), 0o644)
	if !FindOwnPlugins(home, ws, []string{"--disable", "plugins"}).FeatureOn {
		t.Errorf("requirements.toml pins the plugins feature on, and --disable plugins turned it off")
	}
}

// TestLaunchRemote: with views to load, or --exclusive, --remote is
// refused (a usage error): the session would run in an app server the
// session's -c flags do not configure; with neither, exec passes no flag
// and leaves it alone.
func TestLaunchRemote(t *testing.T) {
	root := ownFixture(t, nil)
	env := []string{"CODEX_HOME=" + filepath.Join(root, "home")}
	argv := []string{"codex", "--remote", "ws://127.0.0.1:9", "hi"}
	views := []hosts.BuiltView{{Bundle: "guard", Dir: filepath.Join(root, "view")}}
	for _, c := range []struct {
		exclusive bool
		views     []hosts.BuiltView
		refused   bool
	}{{false, views, true}, {true, nil, true}, {false, nil, false}} {
		_, err := launch(hosts.NewSession(filepath.Join(root, "views")), c.exclusive, c.views, argv, env)
		var ae *hosts.ArgumentError
		if got := errors.As(err, &ae) && strings.Contains(err.Error(), `the argument "--remote ws://127.0.0.1:9" runs the session in an app server`); got != c.refused || !c.refused && err != nil {
			t.Errorf("exclusive=%v views=%d: got %v, want refused %v", c.exclusive, len(c.views), err, c.refused)
		}
	}
}

// TestLaunchRemoteOwnPlugins: without views, --remote runs the session
// in an app server under its own configuration (internal/agenttest
// TestExecCodexRemoteOwnPlugins: with Codex 0.171 the server's
// config.toml MCP server started, the client's did not). exec once named the plugins this CODEX_HOME enables as loading
// beside the views; it now says the server's go unnamed, and names
// these with the condition that the server reads this configuration.
// A subcommand that starts no session gets no note.
func TestLaunchRemoteOwnPlugins(t *testing.T) {
	root := ownFixture(t, with(map[string]string{"home/config.toml": `[plugins."a@m"]` + "\n"}, installed("a@m")))
	t.Chdir(root)
	env := []string{"CODEX_HOME=" + filepath.Join(root, "home")}
	for _, c := range []struct {
		args []string
		want string // the note, "" for none
	}{
		{[]string{"--remote", "ws://127.0.0.1:9", "exec", "hi"}, `codex: the argument "--remote ws://127.0.0.1:9" runs the session in that app server, under the server's own configuration, which bundlectl does not read: a plugin of your own it enables may load unnamed, never reviewed by bundlectl (this configuration enables "a@m", which loads there if the server reads it)`},
		{[]string{"exec", "--remote=unix://", "hi"}, `codex: the argument "--remote=unix://" runs the session in that app server`},
		{[]string{"--remote", "ws://127.0.0.1:9", "login"}, ""},
	} {
		l, err := launch(hosts.NewSession(filepath.Join(root, "views")), false, nil, append([]string{"codex"}, c.args...), env)
		if err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		if slices.ContainsFunc(l.Notes, func(n string) bool { return strings.Contains(n, "loads beside the views") }) {
			t.Errorf("%q: a plugin named as loading beside the views, in a session that runs under the app server's configuration: %q", c.args, l.Notes)
		}
		if got := slices.ContainsFunc(l.Notes, func(n string) bool { return c.want != "" && strings.HasPrefix(n, c.want) }); got != (c.want != "") || c.want == "" && len(l.Notes) > 0 {
			t.Errorf("%q: notes %q, want %q", c.args, l.Notes, c.want)
		}
	}
}

// TestLaunchRequirementsMCP: a requirements.toml that lists the MCP
// servers of some plugin keeps a view's servers from starting in Codex
// 0.171 (internal/agenttest TestCodexRequirementsMCP): the launch names
// each server, the bundle and the file before Codex starts, and goes on
// (the hooks still run). Lists that are empty, and the top-level
// [mcp_servers] list, leave a plugin's servers alone: no note.
func TestLaunchRequirementsMCP(t *testing.T) {
	const mcp = `{"mcpServers":{"index":{"command":"bundlectl"},"docs":{"url":"https://x"}}}`
	for _, c := range []struct {
		req  string
		want []string // the servers named
	}{
		{"", nil},
		{"[mcp_servers.other.identity]\ncommand = \"x\"\n", nil},
		{"[plugins.\"else@m\".mcp_servers]\n", nil},
		{"[plugins]\n", nil},
		{"[plugins.\"else@m\".mcp_servers.other.identity]\ncommand = \"x\"\n", []string{"docs", "index"}},
	} {
		files := map[string]string{"view/local/.mcp.json": mcp}
		if c.req != "" {
			files["etc/requirements.toml"] = c.req
		}
		root := ownFixture(t, files)
		env := []string{"CODEX_HOME=" + filepath.Join(root, "home")}
		views := []hosts.BuiltView{{Bundle: "guard", Dir: filepath.Join(root, "view")}}
		l, err := launch(hosts.NewSession(filepath.Join(root, "views")), false, views, []string{"codex", "exec", "hi"}, env)
		if err != nil {
			t.Fatalf("%q: %v", c.req, err)
		}
		var named []string
		for _, n := range l.Notes {
			if strings.Contains(n, "does not start") {
				if !strings.Contains(n, `bundle "guard"`) || !strings.Contains(n, strconv.Quote(filepath.Join(root, "etc", "requirements.toml"))) || !strings.Contains(n, `plugin "else@m"`) {
					t.Errorf("%q: note %q does not name the bundle, the file and the plugin listed", c.req, n)
				}
				for _, s := range []string{"docs", "index"} {
					if strings.Contains(n, "MCP server "+strconv.Quote(s)) {
						named = append(named, s)
					}
				}
			}
		}
		if !slices.Equal(named, c.want) {
			t.Errorf("%q: the notes name the servers %q, want %q\n%q", c.req, named, c.want, l.Notes)
		}
		if l.Cleanup != nil {
			l.Cleanup()
		}
	}
}

// TestLaunchRequirementsMCPNote: under a requirements.toml that lists
// another plugin's MCP servers, in any spelling Codex 0.171 reads (agenttest
// TestCodexRequirementsMCPForms), each server of a view, stdio or HTTP, is
// named in a note, and the note's grep prints the lines that write the
// lists.
func TestLaunchRequirementsMCPNote(t *testing.T) {
	const mcp = `{"mcpServers": {"local": {"command": "bin/srv"}, "web": {"url": "https://web.example/mcp"}}}`
	for _, c := range []struct{ req, lines string }{
		{"[plugins.\"else@mine\".mcp_servers.other.identity]\ncommand = \"/bin/nothing\"\n", "1:[plugins.\"else@mine\".mcp_servers.other.identity]"},
		{"[plugins.\"else@mine\".mcp_servers.other.identity]\nurl = \"https://else.example/mcp\"\n", "1:[plugins.\"else@mine\".mcp_servers.other.identity]"},
		{"# managed\nplugins.\"else@mine\".mcp_servers.other.identity.command = \"/bin/nothing\"\n", "2:plugins.\"else@mine\".mcp_servers.other.identity.command = \"/bin/nothing\""},
		{"[plugins]\n'else@mine'.mcp_servers.other.identity.url = \"https://else.example/mcp\"\n", "1:[plugins]\n2:'else@mine'.mcp_servers.other.identity.url = \"https://else.example/mcp\""},
		{"[plugins.\"else@mine\"]\nmcp_servers.other.identity = { command = \"/bin/nothing\" }\n", "1:[plugins.\"else@mine\"]"},
		{"plugins = { \"else@mine\" = { mcp_servers = { other = { identity = { command = \"/bin/nothing\" } } } } }\n", "1:plugins = { \"else@mine\" = { mcp_servers = { other = { identity = { command = \"/bin/nothing\" } } } } }"},
		{"[plugins.\"else@mine\".mcp_servers.other.identity.url]\nmatch = \"prefix\"\nvalue = \"https://\"\n", "1:[plugins.\"else@mine\".mcp_servers.other.identity.url]"},
	} {
		root := ownFixture(t, map[string]string{"etc/requirements.toml": c.req, "view/" + Version + "/.mcp.json": mcp})
		env := []string{"CODEX_HOME=" + filepath.Join(root, "home")}
		views := []hosts.BuiltView{{Bundle: "guard", Dir: filepath.Join(root, "view")}}
		l, err := launch(hosts.NewSession(filepath.Join(root, "views")), false, views, []string{"codex", "exec", "hi"}, env)
		if err != nil {
			t.Fatalf("%q: %v", c.req, err)
		}
		if len(l.Notes) != 2 || !strings.Contains(l.Notes[0], `its MCP server "local" does not start`) || !strings.Contains(l.Notes[1], `its MCP server "web" does not start`) {
			t.Errorf("%q: notes %q, want one for each server", c.req, l.Notes)
			continue
		}
		n := l.Notes[0]
		i, j := strings.LastIndex(n, "(grep "), strings.LastIndex(n, " shows the lists)")
		if i < 0 || j < i {
			t.Errorf("%q: note %q has no grep", c.req, n)
			continue
		}
		out, err := exec.Command("sh", "-c", n[i+1:j]).Output()
		if err != nil || strings.TrimSpace(string(out)) != c.lines {
			t.Errorf("%q: %s printed %q (%v), want %q", c.req, n[i+1:j], out, err, c.lines)
		}
	}
}

// TestFindOwnPluginsOnTrust: an interactive session (no exec, e or
// review first) in a project no [projects] entry decides asks "Trust
// this folder?", and answered "Trust and continue" reads the project's
// files in that same session (internal/agenttest
// TestExecCodexTrustDialog, real Codex 0.171): a plugin such a file
// enables is OnTrust, with the file, not Load. Where an entry decides,
// either way, Codex does not ask; codex exec and review never ask. exec
// once said nothing of such a plugin, which loaded once the user said
// yes.
func TestFindOwnPluginsOnTrust(t *testing.T) {
	const on = `[plugins."a@m"]` + "\nenabled = true\n"
	entry := func(dir, level string) string {
		return `[projects."ROOT/` + dir + `"]` + "\ntrust_level = \"" + level + "\"\n"
	}
	for _, c := range []struct {
		name    string
		files   map[string]string
		cwd     string // under ws/
		args    []string
		onTrust string // the file, under ROOT, of a@m's OnTrust entry; "" for none
		load    bool
	}{
		{name: "interactive, a folder with no entry", files: map[string]string{"ws/.codex/config.toml": on}, onTrust: "ws/.codex/config.toml"},
		{name: "interactive with a prompt", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"-s", "read-only", "fix it"}, onTrust: "ws/.codex/config.toml"},
		{name: "interactive, the prompt exec after --", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"--", "exec"}, onTrust: "ws/.codex/config.toml"},
		{name: "resume", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"resume", "--last"}, onTrust: "ws/.codex/config.toml"},
		{name: "interactive below a git top with no entry, the top's file", files: map[string]string{"ws/.git/HEAD": "ref: refs/heads/main\n", "ws/.codex/config.toml": on, "ws/sub/": ""}, cwd: "sub", onTrust: "ws/.codex/config.toml"},
		{name: "interactive, -i taking exec and the prompt for images", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"-i", "a.png", "exec", "fix it"}, onTrust: "ws/.codex/config.toml"},
		{name: "interactive, --image taking exec for an image", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"--image", "a.png", "exec", "-s", "read-only", "fix it"}, onTrust: "ws/.codex/config.toml"},
		{name: "exec after --image=", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"--image=a.png", "exec", "fix it"}},
		{name: "exec after -i and an option", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"-i", "a.png", "-s", "read-only", "exec", "fix it"}},
		{name: "exec", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"exec", "fix it"}},
		{name: "e", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"e"}},
		{name: "review", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"review"}},
		{name: "exec --trust: Load", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"exec", "--trust"}, load: true},
		{name: "interactive, a folder marked untrusted: Codex does not ask", files: map[string]string{"home/config.toml": entry("ws", "untrusted"), "ws/.codex/config.toml": on}},
		{name: "interactive, a trusted folder: Load", files: map[string]string{"home/config.toml": entry("ws", "trusted"), "ws/.codex/config.toml": on}, load: true},
		{name: "interactive, a workspace trusted alone below a git top with no entry, the top's file: Codex does not ask", files: map[string]string{"home/config.toml": entry("ws/sub", "trusted"), "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/.codex/config.toml": on, "ws/sub/": ""}, cwd: "sub"},
		{name: "interactive, the file disables it", files: map[string]string{"ws/.codex/config.toml": `[plugins."a@m"]` + "\nenabled = false\n"}},
		{name: "exec after --remote and its address", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"--remote", "ws://127.0.0.1:1", "exec", "fix it"}},
		{name: "exec after --thread-source and its value", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"--thread-source", "user", "exec", "fix it"}},
		{name: "interactive, the prompt after --remote and its address", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"--remote", "unix://", "fix it"}, onTrust: "ws/.codex/config.toml"},
		{name: "login starts no session", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"login", "status"}},
		{name: "mcp list starts no session", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"-s", "read-only", "mcp", "list"}},
		{name: "--help starts no session", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"--help"}},
		{name: "a prompt that is no subcommand", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"mcp-server"}, onTrust: "ws/.codex/config.toml"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := ownFixture(t, with(c.files, installed("a@m")))
			got := FindOwnPlugins(filepath.Join(root, "home"), filepath.Join(root, "ws", c.cwd), c.args)
			if load := slices.Contains(ids(got.Load), "a@m"); load != c.load {
				t.Errorf("a@m in Load: %v, want %v", load, c.load)
			}
			var want []OwnPlugin
			if c.onTrust != "" {
				real, err := filepath.EvalSymlinks(root)
				if err != nil {
					t.Fatal(err)
				}
				want = []OwnPlugin{{ID: "a@m", File: filepath.Join(real, c.onTrust)}}
			}
			if !slices.Equal(got.OnTrust, want) {
				t.Errorf("OnTrust %+v, want %+v", got.OnTrust, want)
			}
		})
	}
}

// TestInstalledPluginsSessionPrefix: a real directory in the plugin cache
// named as a session's marketplace begins ("bundlectl-mine") is the
// user's own marketplace, and its plugins are installed, as are those of
// a link of the user's own so named; a session's marketplace, the link
// Launch makes, is not listed.
func TestInstalledPluginsSessionPrefix(t *testing.T) {
	root := ownFixture(t, installed("a@bundlectl-mine", "b@m"))
	cache := filepath.Join(root, "home", "plugins", "cache")
	writeAt(t, filepath.Join(root, "sessions", "s-1", "codex-marketplace", "v", "local", ".codex-plugin", "plugin.json"), `{"name":"v"}`)
	if err := os.Symlink(filepath.Join(root, "sessions", "s-1", "codex-marketplace"), filepath.Join(cache, "bundlectl-1")); err != nil {
		t.Fatal(err)
	}
	writeAt(t, filepath.Join(root, "elsewhere", "c", "1.0.0", ".codex-plugin", "plugin.json"), `{"name":"c"}`)
	if err := os.Symlink(filepath.Join(root, "elsewhere"), filepath.Join(cache, "bundlectl-linked")); err != nil {
		t.Fatal(err)
	}
	if got, want := installedPlugins(cache), []string{"a@bundlectl-mine", "b@m", "c@bundlectl-linked"}; !slices.Equal(got, want) {
		t.Errorf("installed %q, want %q", got, want)
	}
}

// TestInstalledPluginsLinks: Codex 0.171 loads a plugin whose marketplace
// or plugin directory in its cache is a symbolic link, and not one whose
// version directory is (internal/agenttest TestExecCodexOwnPluginLinked):
// installedPlugins lists the first two. It once left out every link, and
// exec named neither plugin, which loaded.
func TestInstalledPluginsLinks(t *testing.T) {
	root := ownFixture(t, nil)
	cache := filepath.Join(root, "home", "plugins", "cache")
	ext := filepath.Join(root, "ext")
	link := func(target, at string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, at); err != nil {
			t.Fatal(err)
		}
	}
	manifest := func(dir, name string) {
		writeAt(t, filepath.Join(dir, ".codex-plugin", "plugin.json"), `{"name":"`+name+`"}`)
	}
	manifest(filepath.Join(ext, "market", "a", "1.0.0"), "a")
	link(filepath.Join(ext, "market"), filepath.Join(cache, "lm"))
	manifest(filepath.Join(ext, "plugin", "1.0.0"), "b")
	link(filepath.Join(ext, "plugin"), filepath.Join(cache, "m", "b"))
	manifest(filepath.Join(ext, "version"), "c")
	link(filepath.Join(ext, "version"), filepath.Join(cache, "m", "c", "1.0.0"))
	link(filepath.Join(ext, "gone"), filepath.Join(cache, "dangling"))
	link(filepath.Join(ext, "plugin", "1.0.0", ".codex-plugin", "plugin.json"), filepath.Join(cache, "file"))
	if got, want := installedPlugins(cache), []string{"a@lm", "b@m"}; !slices.Equal(got, want) {
		t.Errorf("installed %q, want %q", got, want)
	}
}

// TestSweepSessionLinksOnly: sweep removes a session's link whose session
// directory is gone, and leaves a link of the user's own whose name
// begins as a session's, its target gone or not: CODEX_HOME is the
// user's, and launch writes nothing else there.
func TestSweepSessionLinksOnly(t *testing.T) {
	root := t.TempDir()
	cache := filepath.Join(root, "cache")
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"bundlectl-2":    filepath.Join(root, "sessions", "s-2", "codex-marketplace"),
		"bundlectl-mine": filepath.Join(root, "gone"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(cache, name)); err != nil {
			t.Fatal(err)
		}
	}
	sweep(cache)
	var left []string
	ents, _ := os.ReadDir(cache)
	for _, e := range ents {
		left = append(left, e.Name())
	}
	if want := []string{"bundlectl-mine"}; !slices.Equal(left, want) {
		t.Errorf("left %q, want %q", left, want)
	}
}

// TestLaunchOnTrustFeature: with no view to load, exec leaves the plugins
// feature as the user's configuration sets it, and a project file Codex
// reads once the user trusts the folder may set it: Codex 0.171 then
// loads the plugin that file enables though config.toml turns the
// feature off. The OnTrust note follows the feature as it stands once
// trusted (exec once followed it as it stood before, and said nothing
// of such a plugin, which loaded), and no note names a plugin for a
// project file that turns the feature off.
func TestLaunchOnTrustFeature(t *testing.T) {
	const plugin = "[plugins.\"a@m\"]\nenabled = true\n"
	for _, c := range []struct {
		name, user, project string
		named               bool
	}{
		{name: "the project file turns the feature on", user: "[features]\nplugins = false\n", project: "[features]\nplugins = true\n" + plugin, named: true},
		{name: "the project file turns the feature off", project: "[features]\nplugins = false\n" + plugin},
		{name: "the feature on throughout", project: plugin, named: true},
		{name: "the feature off throughout", user: "[features]\nplugins = false\n", project: plugin},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := ownFixture(t, with(map[string]string{"home/config.toml": c.user, "ws/.codex/config.toml": c.project}, installed("a@m")))
			t.Chdir(filepath.Join(root, "ws"))
			env := []string{"CODEX_HOME=" + filepath.Join(root, "home")}
			l, err := launch(hosts.NewSession(filepath.Join(root, "views")), false, nil, []string{"codex", "hi"}, env)
			if err != nil {
				t.Fatal(err)
			}
			named := slices.ContainsFunc(l.Notes, func(n string) bool {
				return strings.HasPrefix(n, `codex: your own plugin "a@m" loads beside the views if you answer "Trust and continue"`)
			})
			if named != c.named {
				t.Errorf("the OnTrust note shown: %v, want %v (notes %q)", named, c.named, l.Notes)
			}
		})
	}
}

// readOptionVectors reads testdata/codex_options.txt: each option of
// Codex 0.171's session-starting commands ("value" or "flag") and each
// subcommand ("session" or "nosession").
func readOptionVectors(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "codex_options.txt"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndex(line, " ")
		out[line[:i]] = line[i+1:]
	}
	return out
}

// TestTakesValueOptions: takesValue knows every option of the list taken
// from Codex 0.171's help, imageList which command's -i (--image) takes
// a list, and noSessionCommands every subcommand that starts no session
// (internal/agenttest TestCodexHelpOptions keeps the list true):
// --remote, --thread-source and others were once missing, so their value
// read as the subcommand or the prompt, and exec resume's -i, which
// takes one file, was read as a list.
func TestTakesValueOptions(t *testing.T) {
	for word, kind := range readOptionVectors(t) {
		switch kind {
		case "value", "values", "flag":
			cmd, opt := "", word
			if i := strings.LastIndex(word, " "); i >= 0 {
				cmd, opt = word[:i], word[i+1:]
			}
			if got := takesValue(opt); got != (kind != "flag") {
				t.Errorf("takesValue(%q) = %v, want %v", opt, got, kind != "flag")
			}
			if opt == "-i" || opt == "--image" {
				first, second, _ := strings.Cut(cmd, " ")
				if got := imageList(first, second); got != (kind == "values") {
					t.Errorf("%s: imageList(%q, %q) = %v, want %v", word, first, second, got, kind == "values")
				}
			} else if kind == "values" {
				t.Errorf("%s takes a list, which sessionArgs reads for -i (--image) alone", word)
			}
		case "session", "nosession":
			if got := noSessionCommands[word]; got != (kind == "nosession") {
				t.Errorf("noSessionCommands[%q] = %v, want %v", word, got, kind == "nosession")
			}
		default:
			t.Errorf("%q: kind %q", word, kind)
		}
	}
}

// TestFindOwnPluginsNoSession: a subcommand of Codex 0.171 that starts
// no session (codex login, codex mcp list, codex completion, codex apply,
// …), or -h, --help, -V, --version, loads no plugin, so nothing is named
// as loading beside the views; a first word Codex has no subcommand for
// is a prompt, and the session loads what the files enable. exec once
// named config.toml's plugins as loading beside the views of codex login.
func TestFindOwnPluginsNoSession(t *testing.T) {
	root := ownFixture(t, with(map[string]string{"home/config.toml": "[plugins.\"a@m\"]\n"}, installed("a@m")))
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	for _, c := range []struct {
		args []string
		load bool
	}{
		{[]string{"login"}, false},
		{[]string{"logout"}, false},
		{[]string{"mcp", "list"}, false},
		{[]string{"-c", "model=x", "plugin", "list"}, false},
		{[]string{"completion", "bash"}, false},
		{[]string{"apply", "task-1"}, false},
		{[]string{"a", "task-1"}, false},
		{[]string{"doctor"}, false},
		{[]string{"features", "list"}, false},
		{[]string{"--version"}, false},
		{[]string{"exec", "--help"}, false},
		{[]string{"-p", "--help"}, true}, // Codex refuses it (-p has no value); read as -p's value, which names more, never fewer
		{[]string{"--", "login"}, true},  // the prompt
		{[]string{"loginx"}, true},       // a prompt
		{[]string{"exec", "login"}, true},
		{[]string{"resume", "--last"}, true},
		{[]string{"app-server"}, true},
		{[]string{"debug", "app-server", "send-message-v2", "hi"}, true}, // runs a turn with the model
		{[]string{"-c", "model=x", "debug", "prompt-input", "hi"}, true},
		{[]string{"debug", "models"}, false}, // renders the model catalog: no MCP server starts
		{[]string{"debug", "-c", "model=x", "models", "--bundled"}, false},
		{[]string{"debug", "prompt-input", "models"}, true},
		{[]string{"models"}, true}, // a prompt
		{[]string{"queue", "--thread", "t", "--message", "m"}, false},
		{[]string{"queue", "--thread", "t", "--message", "m", "--resume"}, true}, // resumes the thread on the local daemon
		{nil, true},
	} {
		got := FindOwnPlugins(home, ws, c.args)
		if load := slices.Contains(ids(got.Load), "a@m"); load != c.load {
			t.Errorf("%q: a@m in Load: %v, want %v", c.args, load, c.load)
		}
		if !slices.Contains(got.Known, "a@m") {
			t.Errorf("%q: a@m not Known, which an exclusive start disables", c.args)
		}
	}
}

// TestFindOwnPluginsWorktree: Codex 0.171 runs a --worktree session in a
// new git worktree made from HEAD and reads that worktree's project
// .codex/config.toml, as committed, not the working copy's (internal/
// agenttest TestExecCodexWorktree): a plugin the working copy's file
// enables is neither Load nor OnTrust there (exec once named it as
// loading, and said nothing of the one HEAD's file enabled, which
// loaded), AtHead says so, and it stays Known; the user's config.toml
// still counts.
func TestFindOwnPluginsWorktree(t *testing.T) {
	const on = `[plugins."a@m"]` + "\nenabled = true\n"
	trusted := `[projects."ROOT/ws"]` + "\ntrust_level = \"trusted\"\n"
	for _, c := range []struct {
		name   string
		user   string // home/config.toml
		args   []string
		load   []string
		atHead bool
	}{
		{name: "exec --worktree", user: trusted, args: []string{"exec", "--worktree", "fix it"}, atHead: true},
		{name: "exec --worktree, config.toml's plugin", user: trusted + `[plugins."b@m"]` + "\n", args: []string{"exec", "--worktree", "fix it"}, load: []string{"b@m"}, atHead: true},
		{name: "interactive --worktree, a folder with no entry", args: []string{"--worktree"}, atHead: true},
		{name: "resume --worktree", user: trusted, args: []string{"resume", "--last", "--worktree"}, atHead: true},
		{name: "exec without --worktree", user: trusted, args: []string{"exec", "fix it"}, load: []string{"a@m"}},
		{name: "--worktree the prompt's", user: trusted, args: []string{"exec", "--", "--worktree"}, load: []string{"a@m"}},
		{name: "--worktree beside a subcommand that starts no session", user: trusted, args: []string{"mcp", "list", "--worktree"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := ownFixture(t, with(map[string]string{"home/config.toml": c.user, "ws/.codex/config.toml": on}, installed("a@m", "b@m")))
			got := FindOwnPlugins(filepath.Join(root, "home"), filepath.Join(root, "ws"), c.args)
			if !slices.Equal(ids(got.Load), c.load) || len(got.OnTrust) > 0 || got.AtHead != c.atHead {
				t.Errorf("Load %q OnTrust %+v AtHead %v, want Load %q, no OnTrust, AtHead %v", ids(got.Load), got.OnTrust, got.AtHead, c.load, c.atHead)
			}
			if !slices.Contains(got.Known, "a@m") {
				t.Errorf("a@m not Known, which an exclusive start disables: %q", got.Known)
			}
		})
	}
}
