package claude

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/hosts"
)

// ownHome is a user's Claude Code setup: a config dir, a working
// directory and a managed settings directory, all empty.
type ownHome struct{ config, wd, managed string }

func newOwnHome(t *testing.T) ownHome {
	t.Helper()
	root := t.TempDir()
	h := ownHome{config: filepath.Join(root, "config"), wd: filepath.Join(root, "wd"), managed: filepath.Join(root, "managed")}
	for _, d := range []string{h.config, h.wd, h.managed} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	testOnlyManagedDir = h.managed
	t.Cleanup(func() { testOnlyManagedDir = "" })
	// Installed as claude plugin install records it; "b" only through a
	// known (directory) marketplace.
	h.write(t, filepath.Join(h.config, "plugins", "installed_plugins.json"), map[string]any{"version": 2, "plugins": map[string]any{"a@m": []any{}, "c@m": []any{}}})
	h.write(t, filepath.Join(h.config, "plugins", "known_marketplaces.json"), map[string]any{"dirmk": map[string]any{}})
	return h
}

func (h ownHome) env() []string { return []string{"CLAUDE_CONFIG_DIR=" + h.config} }

func (h ownHome) write(t *testing.T, path string, v any) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeRaw writes body to path as it is (bytes JSON would not keep: a
// repeated key, invalid UTF-8, a byte order mark).
func (h ownHome) writeRaw(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func enabled(m map[string]any) map[string]any { return map[string]any{"enabledPlugins": m} }

func loaded(t *testing.T, h ownHome, args []string) []string {
	t.Helper()
	st, err := ownPlugins(args, h.env(), h.wd, false)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range st.plugins {
		out = append(out, p.id)
	}
	return out
}

// TestOwnPluginsPrecedence: the layers as Claude Code 2.1.332 decides
// them (own_claude_test.go in internal/agenttest, and the probes
// docs/hosts.md lists): --add-dir < user < project < local < the last
// --settings < managed; only true enables; a plugin loads only when
// installed or from a known marketplace.
func TestOwnPluginsPrecedence(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, h ownHome) []string
		want  []string
	}{
		{"user", func(t *testing.T, h ownHome) []string {
			h.write(t, filepath.Join(h.config, "settings.json"), enabled(map[string]any{"a@m": true, "b@dirmk": true, "x@unknown": true, "v@m": []any{"1.0.0"}}))
			return nil
		}, []string{"a@m", "b@dirmk"}},
		{"project over user", func(t *testing.T, h ownHome) []string {
			h.write(t, filepath.Join(h.config, "settings.json"), enabled(map[string]any{"a@m": false, "c@m": true}))
			h.write(t, filepath.Join(h.wd, ".claude", "settings.json"), enabled(map[string]any{"a@m": true, "c@m": false}))
			return nil
		}, []string{"a@m"}},
		{"local over project", func(t *testing.T, h ownHome) []string {
			h.write(t, filepath.Join(h.wd, ".claude", "settings.json"), enabled(map[string]any{"a@m": true}))
			h.write(t, filepath.Join(h.wd, ".claude", "settings.local.json"), enabled(map[string]any{"a@m": false, "c@m": true}))
			return nil
		}, []string{"c@m"}},
		{"project settings above the working directory are not read", func(t *testing.T, h ownHome) []string {
			h.write(t, filepath.Join(filepath.Dir(h.wd), ".claude", "settings.json"), enabled(map[string]any{"a@m": true}))
			return nil
		}, nil},
		{"only the last --settings", func(t *testing.T, h ownHome) []string {
			h.write(t, filepath.Join(h.wd, ".claude", "settings.local.json"), enabled(map[string]any{"a@m": true}))
			return []string{"--settings", `{"enabledPlugins": {"a@m": false}}`, "-p", "hi", "--settings={}"}
		}, []string{"a@m"}},
		{"--settings file over local", func(t *testing.T, h ownHome) []string {
			h.write(t, filepath.Join(h.wd, ".claude", "settings.local.json"), enabled(map[string]any{"a@m": true}))
			h.write(t, filepath.Join(h.wd, "mine.json"), enabled(map[string]any{"a@m": false, "c@m": true}))
			return []string{"--settings", "mine.json"}
		}, []string{"c@m"}},
		{"options end at --", func(t *testing.T, h ownHome) []string {
			return []string{"-p", "--", "--settings", `{"enabledPlugins": {"a@m": true}}`}
		}, nil},
		{"--add-dir lowest, variadic", func(t *testing.T, h ownHome) []string {
			for _, d := range []string{"d1", "d2"} {
				h.write(t, filepath.Join(h.wd, d, ".claude", "settings.json"), enabled(map[string]any{"a@m": true, "c@m": true}))
			}
			h.write(t, filepath.Join(h.config, "settings.json"), enabled(map[string]any{"c@m": false}))
			return []string{"--add-dir", "d1", "d2", "--verbose"}
		}, []string{"a@m"}},
		{"--setting-sources", func(t *testing.T, h ownHome) []string {
			h.write(t, filepath.Join(h.config, "settings.json"), enabled(map[string]any{"a@m": true}))
			h.write(t, filepath.Join(h.wd, ".claude", "settings.json"), enabled(map[string]any{"c@m": true}))
			return []string{"--setting-sources=project"}
		}, []string{"c@m"}},
		{"managed true outranks --settings", func(t *testing.T, h ownHome) []string {
			h.write(t, filepath.Join(h.managed, "managed-settings.d", "10.json"), enabled(map[string]any{"a@m": true}))
			return []string{"--settings", `{"enabledPlugins": {"a@m": false}}`}
		}, []string{"a@m"}},
		{"managed false outranks the rest", func(t *testing.T, h ownHome) []string {
			h.write(t, filepath.Join(h.managed, "managed-settings.json"), enabled(map[string]any{"a@m": false}))
			return []string{"--settings", `{"enabledPlugins": {"a@m": true}}`}
		}, nil},
		{"skills-dir plugins, by manifest name, unless off", func(t *testing.T, h ownHome) []string {
			h.write(t, filepath.Join(h.config, "skills", "folder", ".claude-plugin", "plugin.json"), map[string]any{"name": "sk"})
			h.write(t, filepath.Join(h.config, "skills", "off", ".claude-plugin", "plugin.json"), map[string]any{"name": "off"})
			if err := os.MkdirAll(filepath.Join(h.config, "skills", "bare"), 0o755); err != nil {
				t.Fatal(err)
			}
			h.write(t, filepath.Join(h.config, "settings.json"), enabled(map[string]any{"off@skills-dir": false}))
			return nil
		}, []string{"sk@skills-dir"}},
		{"skills-dir plugins without a name Claude Code takes load nothing", func(t *testing.T, h ownHome) []string {
			// Claude Code 2.1.332 runs none of their hooks and offers
			// none of their skills (agenttest
			// TestExecClaudeSkillsDirNameless): exec named them as
			// loading, by the folder's name.
			for dir, m := range map[string]string{"none": `{"version":"1.0.0"}`, "empty": `{"name":""}`, "number": `{"name":5}`, "space": `{"name":"a b"}`, "broken": `{name`,
				"tab": `{"name":"a\tb"}`, "nbsp": `{"name":"a\u00a0b"}`, "bidi": `{"name":"sk\u202e"}`, "c1": `{"name":"sk\u0085"}`, "at": `{"name":"a@b"}`, "colon": `{"name":"a:b"}`,
				"slash": `{"name":"a/b"}`, "cgj": `{"name":"sk\u034f"}`, "braille": `{"name":"sk\u2800"}`, "private": `{"name":"sk\ue000"}`, "ideographic": `{"name":"a\u3000b"}`} {
				h.writeRaw(t, filepath.Join(h.config, "skills", dir, ".claude-plugin", "plugin.json"), m)
			}
			h.write(t, filepath.Join(h.config, "skills", "folder", ".claude-plugin", "plugin.json"), map[string]any{"name": "sk"})
			h.writeRaw(t, filepath.Join(h.config, "skills", "upper", ".claude-plugin", "plugin.json"), `{"name":"SK-\u00dc.x_1"}`)
			// Unassigned in Go's Unicode tables, maybe not in Claude
			// Code's: named, a notice too many rather than one too few.
			h.writeRaw(t, filepath.Join(h.config, "skills", "unassigned", ".claude-plugin", "plugin.json"), `{"name":"sk\u0378"}`)
			return nil
		}, []string{"SK-Ü.x_1@skills-dir", "sk@skills-dir", "sk\u0378@skills-dir"}},
		{"skills-dir plugin names and installed plugins read by exact key, as Claude Code reads them", func(t *testing.T, h ownHome) []string {
			// encoding/json took the "Name" and "Plugins" written last:
			// the plugin Claude Code loads as sk@skills-dir went by
			// another id, which --exclusive turned off instead, and
			// a@m was not seen as installed.
			h.writeRaw(t, filepath.Join(h.config, "skills", "folder", ".claude-plugin", "plugin.json"), `{"name":"sk","Name":"other"}`)
			h.writeRaw(t, filepath.Join(h.config, "plugins", "installed_plugins.json"), `{"version":2,"plugins":{"a@m":[]},"Plugins":null}`)
			h.write(t, filepath.Join(h.config, "settings.json"), enabled(map[string]any{"other@skills-dir": false}))
			return nil
		}, []string{"sk@skills-dir"}},
		{"a file Claude Code drops for its schema turns nothing on or off", func(t *testing.T, h ownHome) []string {
			// Claude Code reads none of it (agenttest
			// TestExecClaudeExclusiveDroppedSettingsPlugins): a@m, on
			// in the project, stays on; c@m, on only there, stays off.
			h.write(t, filepath.Join(h.wd, ".claude", "settings.json"), enabled(map[string]any{"a@m": true}))
			h.writeRaw(t, filepath.Join(h.wd, ".claude", "settings.local.json"), `{"enabledPlugins": {"a@m": false, "c@m": true}, "statusLine": 5}`)
			return []string{"--settings", `{"enabledPlugins": {"a@m": false}, "permissions": {"defaultMode": "bogus"}}`}
		}, []string{"a@m"}},
		{"built-in and inline ids are not the user's own", func(t *testing.T, h ownHome) []string {
			h.write(t, filepath.Join(h.config, "settings.json"), enabled(map[string]any{"x@builtin": true, "y@inline": true}))
			return nil
		}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newOwnHome(t)
			args := c.setup(t, h)
			if got := loaded(t, h, args); !reflect.DeepEqual(got, c.want) {
				t.Errorf("loaded %v, want %v", got, c.want)
			}
		})
	}
}

func launchOwn(t *testing.T, h ownHome, exclusive bool, views []hosts.BuiltView, args ...string) (*hosts.Launch, *hosts.Session, error) {
	t.Helper()
	wd, _ := os.Getwd()
	if err := os.Chdir(h.wd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chdir(wd) })
	s := hosts.NewSession(t.TempDir())
	t.Cleanup(s.Remove)
	l, err := launch(s, exclusive, views, append([]string{"claude"}, args...), h.env())
	return l, s, err
}

// TestLaunchOwnNotes: without --exclusive each plugin of the user's own
// is named, and nothing is added to the command line.
func TestLaunchOwnNotes(t *testing.T) {
	h := newOwnHome(t)
	h.write(t, filepath.Join(h.config, "settings.json"), enabled(map[string]any{"a@m": true}))
	h.write(t, filepath.Join(h.managed, "managed-settings.json"), enabled(map[string]any{"c@m": true}))
	l, _, err := launchOwn(t, h, false, nil, "--plugin-dir", "/p/x", "-p", "hi")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`claude: your own plugin "a@m" loads beside the views, never reviewed by bundlectl (bundlectl exec --exclusive -- claude keeps it out)`,
		`claude: your own plugin "c@m" loads beside the views, never reviewed by bundlectl (managed settings "` + filepath.Join(h.managed, "managed-settings.json") + `" turn it on, and --exclusive cannot keep it out)`,
		`claude: your own plugin "/p/x" (your argument --plugin-dir) loads beside the views, never reviewed by bundlectl (leave the argument out to keep it out)`,
	}
	if !reflect.DeepEqual(l.Notes, want) {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(l.Notes, "\n"), strings.Join(want, "\n"))
	}
	if got := strings.Join(l.Argv, " "); got != "claude --plugin-dir /p/x -p hi" {
		t.Errorf("argv %q", got)
	}
	// Behind a byte order mark, which Claude Code skips (agenttest
	// TestSetupClaudeSettingsSpellings), the file's plugins load: named.
	h = newOwnHome(t)
	h.writeRaw(t, filepath.Join(h.config, "settings.json"), "\xef\xbb\xbf"+`{"enabledPlugins": {"a@m": true}}`)
	l, _, err = launchOwn(t, h, false, nil, "-p", "hi")
	if err != nil || len(l.Notes) != 1 || !strings.Contains(l.Notes[0], `"a@m"`) {
		t.Errorf("behind a byte order mark: err %v notes %q, want a@m named", err, l.Notes)
	}
}

// TestLaunchExclusive: every plugin a layer turns on (installed or not),
// every installed one and every skills-dir one is set to false in a
// --settings argument; the user's own last
// --settings is carried in a session file (their settings may hold
// secrets) and their --settings arguments are dropped.
func TestLaunchExclusive(t *testing.T) {
	h := newOwnHome(t)
	h.write(t, filepath.Join(h.config, "settings.json"), enabled(map[string]any{"a@m": true, "x@unknown": true, "z@m": false}))
	h.write(t, filepath.Join(h.config, "skills", "sk", ".claude-plugin", "plugin.json"), map[string]any{"name": "sk"})
	l, _, err := launchOwn(t, h, true, []hosts.BuiltView{{Bundle: "guard", Dir: "/v/guard"}}, "-p", "hi")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"claude", "--plugin-dir=/v/guard", `--settings={"enabledPlugins":{"a@m":false,"c@m":false,"sk@skills-dir":false,"x@unknown":false}}`, "-p", "hi"}
	if !reflect.DeepEqual(l.Argv, want) || len(l.Notes) > 0 {
		t.Errorf("argv %q notes %q, want %q", l.Argv, l.Notes, want)
	}

	l, s, err := launchOwn(t, h, true, nil, "--settings", `{"model": "m", "enabledPlugins": {"z@m": false}}`, "-p", "hi")
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := s.Dir()
	file := filepath.Join(dir, "claude-settings.json")
	if want := []string{"claude", "--settings=" + file, "-p", "hi"}; !reflect.DeepEqual(l.Argv, want) {
		t.Errorf("argv %q, want %q", l.Argv, want)
	}
	b, err := os.ReadFile(file)
	if got := string(b); err != nil || got != `{"enabledPlugins":{"a@m":false,"c@m":false,"sk@skills-dir":false,"x@unknown":false,"z@m":false},"model":"m"}` {
		t.Errorf("session settings %s (%v)", got, err)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("session settings mode: %v", err)
	}
}

// TestLaunchExclusiveRefuses: what no session setting can keep out is a
// NotExclusiveError (a usage error), naming the plugin and its source; a
// settings file that cannot be read is refused too.
func TestLaunchExclusiveRefuses(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(t *testing.T, h ownHome)
		args   []string
		source string
	}{
		{"--plugin-dir", nil, []string{"--plugin-dir=/p/x"}, "--plugin-dir"},
		{"--plugin-url", nil, []string{"--plugin-url", "https://example.com/p.zip"}, "--plugin-url"},
		{"--plugin-dir-no-mcp", nil, []string{"--plugin-dir-no-mcp", "/p/x"}, "--plugin-dir-no-mcp"},
		{"--settings turns one on", nil, []string{"--settings", `{"enabledPlugins": {"a@m": true}}`}, "--settings"},
		{"managed settings", func(t *testing.T, h ownHome) {
			h.write(t, filepath.Join(h.managed, "managed-settings.json"), enabled(map[string]any{"a@m": true}))
		}, nil, "managed-settings.json"},
		// Carried into the session's own --settings, a value Claude Code
		// may drop the file for and the model cannot vouch for would take
		// the entries that turn the user's plugins off with it (agenttest
		// TestExecClaudeExclusiveCarriedUnmodelledDrop).
		{"--settings with an unmodelled hook field", nil, []string{"--settings", `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "notAField": "s"}]}]}}`}, "--settings"},
		{"--settings with an http hook", nil, []string{"--settings", `{"hooks": {"PermissionRequest": [{"hooks": [{"type": "http", "url": "http://xn--a-/x"}]}]}}`}, "--settings"},
		{"--settings with a marketplace listing a plugin of an unknown kind", nil, []string{"--settings", `{"extraKnownMarketplaces": {"m": {"source": {"source": "github", "repo": "o/r", "plugins": [{"name": "p", "source": {"source": "bogus"}}]}}}}`}, "--settings"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newOwnHome(t)
			if c.setup != nil {
				c.setup(t, h)
			}
			_, _, err := launchOwn(t, h, true, nil, c.args...)
			var ne *hosts.NotExclusiveError
			if !errors.As(err, &ne) || !strings.HasSuffix(ne.Source, c.source) || ne.Hint() != "bundlectl exec -- claude" {
				t.Errorf("err %v, want a NotExclusiveError naming %s", err, c.source)
			}
		})
	}
	h := newOwnHome(t)
	if err := os.WriteFile(filepath.Join(h.config, "settings.json"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := launchOwn(t, h, true, nil); err == nil || !strings.Contains(err.Error(), "settings.json") {
		t.Errorf("an unreadable settings file: err %v", err)
	}
	if _, _, err := launchOwn(t, h, false, nil); err != nil {
		t.Errorf("without --exclusive an unreadable settings file only goes unnamed: %v", err)
	}
	// A --settings that Claude Code drops for its schema loads nothing it
	// names, so there is nothing to refuse (agenttest
	// TestExecClaudeExclusiveDroppedSettingsPlugins); it was refused as a
	// plugin the user's own argument turns on.
	h = newOwnHome(t)
	if _, _, err := launchOwn(t, h, true, nil, "--settings", `{"enabledPlugins": {"a@m": true}, "statusLine": 5}`); err != nil {
		t.Errorf("a dropped --settings turning a plugin on: %v, want none", err)
	}
	// A --settings JSON value bundlectl cannot read is named by the
	// option alone: it may hold a secret.
	h = newOwnHome(t)
	_, _, err := launchOwn(t, h, true, nil, "--settings", `{"env": {"TOKEN": "sk-secret-1234"`)
	if err == nil || strings.Contains(err.Error(), "sk-secret") || !strings.Contains(err.Error(), `"--settings"`) {
		t.Errorf("an unreadable --settings value: err %v", err)
	}
	// An --add-dir naming a file holds no settings.
	if err := os.WriteFile(filepath.Join(h.wd, "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := launchOwn(t, h, true, nil, "--add-dir", "notes.txt"); err != nil {
		t.Errorf("--add-dir naming a file: %v", err)
	}
}

// TestLaunchViewTurnedOff: "<bundle>@inline": false in a layer drops the
// view; with hooks that is refused, without it is named.
func TestLaunchViewTurnedOff(t *testing.T) {
	h := newOwnHome(t)
	h.write(t, filepath.Join(h.wd, ".claude", "settings.json"), enabled(map[string]any{"guard@inline": false, "plain@inline": false}))
	_, _, err := launchOwn(t, h, false, []hosts.BuiltView{{Bundle: "guard", Dir: "/v/g", Hooks: true}})
	var he *hosts.HooksOffError
	if !errors.As(err, &he) || !strings.Contains(err.Error(), `"enabledPlugins": {"guard@inline": false}`) {
		t.Fatalf("err %v, want a HooksOffError naming the entry", err)
	}
	// The hint shows the entry's line.
	if out, err := exec.Command("sh", "-c", he.Hint()).Output(); err != nil || !strings.Contains(string(out), `"guard@inline":false`) {
		t.Errorf("hint %q printed %q (%v), want the entry's line", he.Hint(), out, err)
	}
	l, _, err := launchOwn(t, h, false, []hosts.BuiltView{{Bundle: "plain", Dir: "/v/p"}})
	if err != nil || len(l.Notes) != 1 || !strings.Contains(l.Notes[0], `bundle "plain" is not loaded into claude`) {
		t.Errorf("err %v notes %q", err, l.Notes)
	}
}

// TestHooksOffManagedDropIn: a drop-in of managed-settings.d/ turning
// hooks off keeps plugin hooks from running as managed-settings.json does
// (found with the real CLI), so it is refused the same way.
func TestHooksOffManagedDropIn(t *testing.T) {
	for _, setting := range []string{"disableAllHooks", "allowManagedHooksOnly"} {
		h := newOwnHome(t)
		h.write(t, filepath.Join(h.managed, "managed-settings.d", "50-org.json"), map[string]any{setting: true})
		_, _, err := launchOwn(t, h, false, []hosts.BuiltView{{Bundle: "guard", Dir: "/v/g", Hooks: true}})
		var he *hosts.HooksOffError
		if !errors.As(err, &he) || he.File != filepath.Join(h.managed, "managed-settings.d", "50-org.json") {
			t.Errorf("%s in a managed drop-in: err %v, want a HooksOffError naming the drop-in", setting, err)
		}
	}
}

// TestNoPluginModes: --bare, --safe-mode and their environment variables
// load no plugin: refused when a view has hooks, named otherwise; a
// false value of the variable is no switch, nor an option after "--".
func TestNoPluginModes(t *testing.T) {
	h := newOwnHome(t)
	h.write(t, filepath.Join(h.config, "settings.json"), enabled(map[string]any{"a@m": true}))
	guard := []hosts.BuiltView{{Bundle: "guard", Dir: "/v/g", Hooks: true}}
	for _, c := range []struct {
		args, env []string
		off       string
	}{
		{[]string{"--bare"}, nil, "--bare"},
		{[]string{"-p", "hi", "--safe-mode"}, nil, "--safe-mode"},
		{nil, []string{"CLAUDE_CODE_SIMPLE=1"}, "CLAUDE_CODE_SIMPLE"},
		{nil, []string{"CLAUDE_CODE_SAFE_MODE= On "}, "CLAUDE_CODE_SAFE_MODE"},
		{[]string{"--", "--bare"}, []string{"CLAUDE_CODE_SAFE_MODE=0"}, ""},
	} {
		if got, _, _ := pluginsOff(c.args, c.env); got != c.off {
			t.Errorf("pluginsOff(%q, %q) = %q, want %q", c.args, c.env, got, c.off)
		}
	}
	_, _, err := launchOwn(t, h, false, guard, "--bare")
	var he *hosts.HooksOffError
	if !errors.As(err, &he) || he.File != "--bare" {
		t.Errorf("--bare with a guard view: err %v", err)
	}
	l, _, err := launchOwn(t, h, false, []hosts.BuiltView{{Bundle: "plain", Dir: "/v/p"}}, "--safe-mode")
	if err != nil || len(l.Notes) != 1 || l.Notes[0] != `bundle "plain" is not loaded into claude: --safe-mode loads no plugin` {
		t.Errorf("--safe-mode without hooks: err %v notes %q (own plugins load neither, so none is named)", err, l.Notes)
	}
}

// TestNoPluginModesInSettingsEnv: Claude Code applies the "env" of its
// global config, the user's settings, the last --settings and managed
// settings to its environment before it loads plugins, so
// CLAUDE_CODE_SIMPLE set true there starts it with no plugin (found with
// the real CLI); a project's "env" does not count, nor the user's when
// --setting-sources leaves them out, nor a false value, nor one in a
// file Claude Code drops for its schema.
func TestNoPluginModesInSettingsEnv(t *testing.T) {
	simple := map[string]any{"env": map[string]any{"CLAUDE_CODE_SIMPLE": "1"}}
	guard := []hosts.BuiltView{{Bundle: "guard", Dir: "/v/g", Hooks: true}}
	for _, c := range []struct {
		name string
		file func(h ownHome) string // where simple is written
		args []string
		off  func(h ownHome) string // the source refused, "" for none
	}{
		{"user", func(h ownHome) string { return filepath.Join(h.config, "settings.json") }, nil, func(h ownHome) string { return filepath.Join(h.config, "settings.json") }},
		{"global config", func(h ownHome) string { return filepath.Join(h.config, ".claude.json") }, nil, func(h ownHome) string { return filepath.Join(h.config, ".claude.json") }},
		{"managed drop-in", func(h ownHome) string { return filepath.Join(h.managed, "managed-settings.d", "10.json") }, nil, func(h ownHome) string { return filepath.Join(h.managed, "managed-settings.d", "10.json") }},
		{"--settings", nil, []string{"--settings", `{"env": {"CLAUDE_CODE_SIMPLE": "yes"}}`}, func(ownHome) string { return "--settings" }},
		{"project", func(h ownHome) string { return filepath.Join(h.wd, ".claude", "settings.json") }, nil, func(ownHome) string { return "" }},
		{"local", func(h ownHome) string { return filepath.Join(h.wd, ".claude", "settings.local.json") }, nil, func(ownHome) string { return "" }},
		{"user left out", func(h ownHome) string { return filepath.Join(h.config, "settings.json") }, []string{"--setting-sources", "project"}, func(ownHome) string { return "" }},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newOwnHome(t)
			if c.file != nil {
				h.write(t, c.file(h), simple)
			}
			_, _, err := launchOwn(t, h, false, guard, c.args...)
			want := c.off(h)
			var he *hosts.HooksOffError
			switch {
			case want == "" && err != nil:
				t.Errorf("err %v, want none", err)
			case want != "" && (!errors.As(err, &he) || he.File != want || !strings.Contains(he.Setting, `"CLAUDE_CODE_SIMPLE"`)):
				t.Errorf("err %v, want a HooksOffError naming %s and the entry", err, want)
			}
		})
	}
	// Behind a byte order mark, which Claude Code skips (internal/agenttest
	// TestSetupClaudeSettingsSpellings), the entry counts too.
	h := newOwnHome(t)
	user := filepath.Join(h.config, "settings.json")
	h.writeRaw(t, user, "\xef\xbb\xbf"+`{"env": {"CLAUDE_CODE_SIMPLE": "1"}}`)
	var he *hosts.HooksOffError
	if _, _, err := launchOwn(t, h, false, guard); !errors.As(err, &he) || he.File != user || !strings.Contains(he.Setting, `"CLAUDE_CODE_SIMPLE"`) {
		t.Errorf("behind a byte order mark: err %v, want a HooksOffError naming %s and the entry", err, user)
	}
	// A user or --settings file Claude Code drops for its schema applies
	// no "env" (agenttest TestClaudeSettingsEnvDropped): exec refused it.
	h = newOwnHome(t)
	h.writeRaw(t, filepath.Join(h.config, "settings.json"), `{"env": {"CLAUDE_CODE_SIMPLE": "1"}, "permissions": {"defaultMode": "bogus"}}`)
	if _, _, err := launchOwn(t, h, false, guard, "--settings", `{"env": {"CLAUDE_CODE_SIMPLE": "1"}, "statusLine": 5}`); err != nil {
		t.Errorf("in dropped files: err %v, want none", err)
	}
	// A "__proto__" entry of enabledPlugins Claude Code's schema skips
	// (testdata/schema_vectors.txt): the file is read, its env applies.
	h = newOwnHome(t)
	user = filepath.Join(h.config, "settings.json")
	h.writeRaw(t, user, `{"env": {"CLAUDE_CODE_SIMPLE": "1"}, "enabledPlugins": {"__proto__": 5}}`)
	if _, _, err := launchOwn(t, h, false, guard); !errors.As(err, &he) || he.File != user {
		t.Errorf("beside an enabledPlugins __proto__ entry: err %v, want a HooksOffError naming %s", err, user)
	}
	h = newOwnHome(t)
	h.write(t, filepath.Join(h.config, "settings.json"), map[string]any{"env": map[string]any{"CLAUDE_CODE_SAFE_MODE": "0"}})
	if _, _, err := launchOwn(t, h, false, guard); err != nil {
		t.Errorf("a false value: err %v", err)
	}
	h.write(t, filepath.Join(h.config, "settings.json"), simple)
	l, _, err := launchOwn(t, h, false, []hosts.BuiltView{{Bundle: "plain", Dir: "/v/p"}})
	want := `bundle "plain" is not loaded into claude: "` + filepath.Join(h.config, "settings.json") + `" sets "env": {"CLAUDE_CODE_SIMPLE": "1"}, Claude Code's minimal or safe mode (no plugin loads)`
	if err != nil || len(l.Notes) != 1 || l.Notes[0] != want {
		t.Errorf("a view without hooks: err %v notes %q, want %q", err, l.Notes, want)
	}
}

// TestHooksOffCowork: with CLAUDE_CODE_USE_COWORK_PLUGINS true Claude Code
// reads the user's cowork_settings.json instead of settings.json (found
// with the real CLI), so a switch there is refused and one in
// settings.json is not; set in settings.json's own "env", both count.
func TestHooksOffCowork(t *testing.T) {
	off := map[string]any{"disableAllHooks": true}
	guard := []hosts.BuiltView{{Bundle: "guard", Dir: "/v/g", Hooks: true}}
	for _, c := range []struct {
		name    string
		env     string
		files   map[string]any // name in the config dir → content
		refused string         // the file named, "" for none
	}{
		{"cowork file", coworkVar + "=1", map[string]any{"cowork_settings.json": off}, "cowork_settings.json"},
		{"cowork file, variable false", coworkVar + "=0", map[string]any{"cowork_settings.json": off}, ""},
		{"plain file under cowork", coworkVar + "=true", map[string]any{"settings.json": off}, ""},
		{"view off in the cowork file", coworkVar + "=1", map[string]any{"cowork_settings.json": enabled(map[string]any{"guard@inline": false})}, "cowork_settings.json"},
		{"variable in the global config", "", map[string]any{".claude.json": map[string]any{"env": map[string]any{coworkVar: "1"}}, "cowork_settings.json": off}, "cowork_settings.json"},
		{"variable in settings.json", "", map[string]any{"settings.json": map[string]any{"env": map[string]any{coworkVar: "1"}}, "cowork_settings.json": off}, "cowork_settings.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newOwnHome(t)
			for name, v := range c.files {
				h.write(t, filepath.Join(h.config, name), v)
			}
			wd, _ := os.Getwd()
			if err := os.Chdir(h.wd); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chdir(wd) })
			s := hosts.NewSession(t.TempDir())
			t.Cleanup(s.Remove)
			env := h.env()
			if c.env != "" {
				env = append(env, c.env)
			}
			_, err := launch(s, false, guard, []string{"claude"}, env)
			var he *hosts.HooksOffError
			if c.refused == "" {
				if err != nil {
					t.Errorf("err %v, want none", err)
				}
			} else if !errors.As(err, &he) || he.File != filepath.Join(h.config, c.refused) {
				t.Errorf("err %v, want a HooksOffError naming %s", err, c.refused)
			}
		})
	}
}

// TestHooksOffSettingSources: a switch in a source --setting-sources
// leaves out keeps no hook from running (found with the real CLI): not
// refused; one in a source it reads is, and --settings always is.
func TestHooksOffSettingSources(t *testing.T) {
	off := map[string]any{"disableAllHooks": true}
	guard := []hosts.BuiltView{{Bundle: "guard", Dir: "/v/g", Hooks: true}}
	for _, c := range []struct {
		file    func(h ownHome) string
		sources string
		refused bool
	}{
		{func(h ownHome) string { return filepath.Join(h.wd, ".claude", "settings.json") }, "user", false},
		{func(h ownHome) string { return filepath.Join(h.wd, ".claude", "settings.json") }, "user,project", true},
		{func(h ownHome) string { return filepath.Join(h.config, "settings.json") }, "project,local", false},
		{func(h ownHome) string { return filepath.Join(h.config, "settings.json") }, "user", true},
		{func(h ownHome) string { return filepath.Join(h.wd, ".claude", "settings.local.json") }, "", false},
		{func(h ownHome) string { return filepath.Join(h.managed, "managed-settings.json") }, "", true},
	} {
		h := newOwnHome(t)
		h.write(t, c.file(h), off)
		_, _, err := launchOwn(t, h, false, guard, "--setting-sources", c.sources)
		var he *hosts.HooksOffError
		if refused := errors.As(err, &he) && he.File == c.file(h); refused != c.refused {
			t.Errorf("%s with --setting-sources %q: err %v, want refused %v", c.file(h), c.sources, err, c.refused)
		}
	}
	h := newOwnHome(t)
	_, _, err := launchOwn(t, h, false, guard, "--setting-sources", "", "--settings", `{"disableAllHooks": true}`)
	var he *hosts.HooksOffError
	if !errors.As(err, &he) || he.File != "--settings" {
		t.Errorf("--settings under --setting-sources \"\": err %v, want refused", err)
	}
}

// TestHooksOffSideload: managed disableSideloadFlags makes Claude Code
// refuse every --plugin-dir (found with the real CLI), so a launch with a
// guard view is refused naming the managed file; in the user's settings
// it holds nothing off.
func TestHooksOffSideload(t *testing.T) {
	guard := []hosts.BuiltView{{Bundle: "guard", Dir: "/v/g", Hooks: true}}
	h := newOwnHome(t)
	h.write(t, filepath.Join(h.config, "settings.json"), map[string]any{"disableSideloadFlags": true})
	if _, _, err := launchOwn(t, h, false, guard); err != nil {
		t.Errorf("in the user's settings: err %v, want none", err)
	}
	f := filepath.Join(h.managed, "managed-settings.d", "50-org.json")
	h.write(t, f, map[string]any{"disableSideloadFlags": true})
	_, _, err := launchOwn(t, h, false, guard)
	var he *hosts.HooksOffError
	if !errors.As(err, &he) || he.File != f || !strings.Contains(he.Setting, `"disableSideloadFlags": true`) {
		t.Errorf("in a managed drop-in: err %v, want a HooksOffError naming it", err)
	}
}

// TestOwnPluginsCowork: under CLAUDE_CODE_USE_COWORK_PLUGINS Claude Code
// keeps installed plugins and known marketplaces in cowork_plugins, not
// plugins (its bundled code; $CLAUDE_CODE_PLUGIN_CACHE_DIR replaces
// either): --exclusive turns off what is installed there, and a plugin
// installed only in plugins is not named as loading.
func TestOwnPluginsCowork(t *testing.T) {
	h := newOwnHome(t)
	h.write(t, filepath.Join(h.config, "cowork_plugins", "installed_plugins.json"), map[string]any{"version": 2, "plugins": map[string]any{"w@cm": []any{}}})
	h.write(t, filepath.Join(h.config, "cowork_plugins", "known_marketplaces.json"), map[string]any{"cmk": map[string]any{}})
	h.write(t, filepath.Join(h.config, "cowork_settings.json"), enabled(map[string]any{"w@cm": true, "k@cmk": true, "a@m": true}))
	cache := filepath.Join(t.TempDir(), "cache")
	h.write(t, filepath.Join(cache, "installed_plugins.json"), map[string]any{"version": 2, "plugins": map[string]any{"k@cmk": []any{}}})
	for _, c := range []struct {
		name          string
		env           []string
		loads, offIDs []string
	}{
		{"cowork", []string{coworkVar + "=1"}, []string{"k@cmk", "w@cm"}, []string{"a@m", "k@cmk", "w@cm"}},
		{"cowork, cache dir", []string{coworkVar + "=1", "CLAUDE_CODE_PLUGIN_CACHE_DIR=" + cache}, []string{"k@cmk"}, []string{"a@m", "k@cmk", "w@cm"}},
		{"cowork, cache dir under ~", []string{coworkVar + "=1", "HOME=" + filepath.Dir(cache), "CLAUDE_CODE_PLUGIN_CACHE_DIR=~/cache"}, []string{"k@cmk"}, []string{"a@m", "k@cmk", "w@cm"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, err := ownPlugins(nil, append(h.env(), c.env...), h.wd, true)
			if err != nil {
				t.Fatal(err)
			}
			var loads []string
			for _, p := range st.plugins {
				loads = append(loads, p.id)
			}
			set, _, err := st.sessionSettings(true, false)
			if err != nil {
				t.Fatal(err)
			}
			var off []string
			for id := range set["enabledPlugins"].(map[string]any) {
				off = append(off, id)
			}
			sort.Strings(off)
			if !reflect.DeepEqual(loads, c.loads) || !reflect.DeepEqual(off, c.offIDs) {
				t.Errorf("loads %q, turned off %q; want %q, %q", loads, off, c.loads, c.offIDs)
			}
		})
	}
}

// TestLaunchExclusiveExactKeys: --exclusive turns off the plugins by the
// ids Claude Code gives them, read from its files by exact key: a skills
// folder's manifest "name", installed_plugins.json's "plugins".
// encoding/json took a "Name" or "Plugins" written after them, so the
// skills-dir plugin was turned off under an id it does not have (and
// loaded into the session), and an installed plugin was not turned off.
func TestLaunchExclusiveExactKeys(t *testing.T) {
	h := newOwnHome(t)
	h.writeRaw(t, filepath.Join(h.config, "skills", "sk", ".claude-plugin", "plugin.json"), `{"name":"sk","Name":"other"}`)
	h.writeRaw(t, filepath.Join(h.config, "plugins", "installed_plugins.json"), `{"version":2,"plugins":{"a@m":[]},"Plugins":null}`)
	l, _, err := launchOwn(t, h, true, []hosts.BuiltView{{Bundle: "guard", Dir: "/v/guard"}}, "-p", "hi")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"claude", "--plugin-dir=/v/guard", `--settings={"enabledPlugins":{"a@m":false,"sk@skills-dir":false}}`, "-p", "hi"}
	if !reflect.DeepEqual(l.Argv, want) {
		t.Errorf("argv %q, want %q", l.Argv, want)
	}
}

// TestLaunchExclusiveNameBytes: a skills-folder plugin whose name holds
// bytes that are not UTF-8 (in its manifest, or its folder's name when
// the manifest has none) is turned off under the id Claude Code gives
// it, which decodes each maximal invalid subpart as one U+FFFD
// (internal/jsjson DecodeUTF8): "sk\xf0\x9f\x98p" is "sk\ufffdp". Go's
// decoding gave one U+FFFD a byte, an id the plugin does not have, and
// under --exclusive it loaded (internal/agenttest
// TestExecClaudeExclusiveSkillsDir, its "name-bytes" case).
func TestLaunchExclusiveNameBytes(t *testing.T) {
	h := newOwnHome(t)
	h.writeRaw(t, filepath.Join(h.config, "skills", "a", ".claude-plugin", "plugin.json"), "{\"name\":\"sk\xf0\x9f\x98p\"}")
	h.writeRaw(t, filepath.Join(h.config, "skills", "b\xf0\x9f\x98", ".claude-plugin", "plugin.json"), `{"version":"1.0.0"}`)
	l, _, err := launchOwn(t, h, true, []hosts.BuiltView{{Bundle: "guard", Dir: "/v/guard"}}, "-p", "hi")
	if err != nil {
		t.Fatal(err)
	}
	var off []string
	for _, a := range l.Argv {
		if v, ok := strings.CutPrefix(a, "--settings="); ok {
			var set struct{ EnabledPlugins map[string]bool }
			if err := json.Unmarshal([]byte(v), &set); err != nil {
				t.Fatal(err)
			}
			for id := range set.EnabledPlugins {
				if strings.HasSuffix(id, "@skills-dir") {
					off = append(off, id)
				}
			}
		}
	}
	sort.Strings(off)
	if want := []string{"b\ufffd@skills-dir", "sk\ufffdp@skills-dir"}; !reflect.DeepEqual(off, want) {
		t.Errorf("turned off %q, want %q (argv %q)", off, want, l.Argv)
	}
}
