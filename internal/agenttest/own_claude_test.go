package agenttest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Tests of a Claude Code user's own plugins under bundlectl exec: a
// plugin installed with claude itself (claude plugin marketplace add +
// claude plugin install, from a local marketplace directory, offline)
// loads beside the views and is named; with --exclusive it is kept out of
// the session while the view's guard still runs, and none of the user's
// files is written.

const (
	ownClaudePlugin = "ownplug"
	ownClaudeMarket = "ownmarket"
	ownClaudeID     = ownClaudePlugin + "@" + ownClaudeMarket
	// ownClaudeSkill is the own plugin's skill description: it reaches the
	// model only when the plugin loads.
	ownClaudeSkill = "agenttest-own-plugin-skill-4c1d"
)

// claudeCLI runs the real claude with a's environment (not a session: a
// plugin or marketplace subcommand) and fails the test on error.
func claudeCLI(t *testing.T, a *Agent, args ...string) {
	t.Helper()
	_, env := a.Command(t, "unused")
	ctx, cancel := context.WithTimeout(context.Background(), HangGuard)
	defer cancel()
	cmd := exec.CommandContext(ctx, a.Bin, args...)
	cmd.Env, cmd.Dir = env, a.Workdir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("claude %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// installOwnClaudePlugin writes a local marketplace holding one plugin
// whose SessionStart and UserPromptSubmit hooks touch rec/<plugin>-ran and
// whose skill carries ownClaudeSkill, installs it with the real CLI, and
// keeps the user settings the CLI wrote (Agent.Command rewrites
// settings.json from a.Settings on every run).
func installOwnClaudePlugin(t *testing.T, a *Agent, rec string) {
	t.Helper()
	a.Settings = installOwnClaudePluginIn(t, a, rec, "settings.json")
}

// installOwnClaudePluginIn installs the own plugin as installOwnClaudePlugin
// does and returns the user settings file the CLI enabled it in (name, in
// the config directory).
func installOwnClaudePluginIn(t *testing.T, a *Agent, rec, name string) map[string]any {
	t.Helper()
	mkt := filepath.Join(t.TempDir(), "marketplace")
	writeJSONFile(t, mkt, ".claude-plugin/marketplace.json", map[string]any{
		"name": ownClaudeMarket, "owner": map[string]any{"name": "agenttest"},
		"plugins": []any{map[string]any{"name": ownClaudePlugin, "source": "./plugins/" + ownClaudePlugin, "description": "the user's own"}}})
	dir := filepath.Join(mkt, "plugins", ownClaudePlugin)
	writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": ownClaudePlugin, "version": "1.0.0"})
	touch := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "touch " + filepath.Join(rec, ownClaudePlugin+"-ran")}}}
	writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{
		"SessionStart": []any{touch}, "UserPromptSubmit": []any{touch}}})
	writeFile(t, dir, "skills/own-skill/SKILL.md", "---\nname: own-skill\ndescription: "+ownClaudeSkill+"\n---\n\nthe user's own skill\n", 0o644)
	claudeCLI(t, a, "plugin", "marketplace", "add", mkt)
	claudeCLI(t, a, "plugin", "install", ownClaudeID)
	b, err := os.ReadFile(filepath.Join(a.ConfigDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if e, _ := s["enabledPlugins"].(map[string]any); e[ownClaudeID] != true {
		t.Fatalf("claude plugin install did not enable %s in the user's %s:\n%s", ownClaudeID, name, b)
	}
	return s
}

// TestExecClaudeOwnPluginCowork: under CLAUDE_CODE_USE_COWORK_PLUGINS the
// real CLI installs the user's own plugin into cowork_plugins (and enables
// it in cowork_settings.json), and a session loads it from there: exec
// reads that folder, so it names the plugin (and --exclusive would turn it
// off); the view's guard blocks.
func TestExecClaudeOwnPluginCowork(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), markerName)
	a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
	f := newTrustedFixture(t, a, marker)
	r := &ownClaudeRun{a: a, f: f, rec: t.TempDir()}
	a.Env = []string{"CLAUDE_CODE_USE_COWORK_PLUGINS=1"}
	installOwnClaudePluginIn(t, a, r.rec, "cowork_settings.json")
	for _, file := range []string{"installed_plugins.json", "known_marketplaces.json"} {
		if _, err := os.Stat(filepath.Join(a.ConfigDir(), "cowork_plugins", file)); err != nil {
			t.Errorf("the real CLI did not write cowork_plugins/%s: %v", file, err)
		}
	}
	if _, err := os.Stat(filepath.Join(a.ConfigDir(), "plugins", "installed_plugins.json")); err == nil {
		t.Errorf("the real CLI wrote plugins/installed_plugins.json under cowork too: the test proves nothing")
	}
	a.Args = []string{"--allowedTools", "Bash"}
	a.Launcher = f.launcher(t)
	r.res = a.Run(t, "make the marker")
	f.checkGuard(t, a, r.res, 0)
	if !r.ownRan() {
		t.Errorf("the user's own plugin did not load from cowork_plugins: the test proves nothing\n%s", r.res)
	}
	if want := fmt.Sprintf("your own plugin %q loads beside the views", ownClaudeID); !strings.Contains(r.res.Stderr, want) {
		t.Errorf("stderr does not name the user's own plugin as %s\n%s", want, r.res)
	}
}

// ownClaudeRun is one bundlectl exec session with the trusted guard bundle
// and the user's own plugin, installed and also enabled in the project's
// local settings (which outrank the user's).
type ownClaudeRun struct {
	a   *Agent
	f   *execFixture
	rec string
	res *Result
}

func runOwnClaude(t *testing.T, exclusive bool, args ...string) *ownClaudeRun {
	t.Helper()
	marker := filepath.Join(t.TempDir(), markerName)
	a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
	f := newTrustedFixture(t, a, marker)
	r := &ownClaudeRun{a: a, f: f, rec: t.TempDir()}
	installOwnClaudePlugin(t, a, r.rec)
	writeJSONFile(t, a.Workdir, ".claude/settings.local.json", map[string]any{"enabledPlugins": map[string]any{ownClaudeID: true}})
	a.Args = append([]string{"--allowedTools", "Bash"}, args...)
	a.Launcher = f.launcher(t)
	if exclusive {
		a.Launcher = append(a.Launcher[:len(a.Launcher)-1], "--exclusive", "--")
	}
	r.res = a.Run(t, "make the marker")
	return r
}

func (r *ownClaudeRun) ownRan() bool {
	_, err := os.Stat(filepath.Join(r.rec, ownClaudePlugin+"-ran"))
	return err == nil
}

func (r *ownClaudeRun) ownSkillOffered() bool {
	for _, q := range r.a.Model.Requests() {
		if q.Contains(ownClaudeSkill) {
			return true
		}
	}
	return false
}

// TestExecClaudeOwnPlugin: without --exclusive the user's own plugin loads
// beside the view (its hook runs, its skill is offered) and exec names it
// on stderr before the agent starts, with the command that keeps it out;
// the view's guard blocks the marker command either way.
func TestExecClaudeOwnPlugin(t *testing.T) {
	t.Parallel()
	r := runOwnClaude(t, false)
	r.f.checkGuard(t, r.a, r.res, 0)
	if !r.ownRan() || !r.ownSkillOffered() {
		t.Errorf("the user's own plugin did not load (hook ran %v, skill offered %v): the test proves nothing\n%s", r.ownRan(), r.ownSkillOffered(), r.res)
	}
	want := fmt.Sprintf("bundlectl: claude: your own plugin %q loads beside the views, never reviewed by bundlectl (bundlectl --home %s --workspace %s exec --exclusive -- claude keeps it out)\n", ownClaudeID, r.f.home, r.f.ws)
	if !strings.Contains(r.res.Stderr, want) {
		t.Errorf("stderr does not name the user's own plugin as\n%s\n%s", want, r.res)
	}
}

// TestExecClaudeExclusive: with --exclusive the user's own plugin, enabled
// in the user's and the project's local settings, does not load (its hook
// does not run, its skill is not offered), the view's guard still blocks,
// nothing names it, and the user's settings still enable it afterwards.
func TestExecClaudeExclusive(t *testing.T) {
	t.Parallel()
	r := runOwnClaude(t, true)
	r.f.checkGuard(t, r.a, r.res, 0)
	if r.ownRan() || r.ownSkillOffered() {
		t.Errorf("the user's own plugin loaded under --exclusive (hook ran %v, skill offered %v)\n%s", r.ownRan(), r.ownSkillOffered(), r.res)
	}
	if strings.Contains(r.res.Stderr, "your own plugin") {
		t.Errorf("stderr names an own plugin under --exclusive:\n%s", r.res.Stderr)
	}
	for _, f := range []string{filepath.Join(r.a.ConfigDir(), "settings.json"), filepath.Join(r.a.Workdir, ".claude", "settings.local.json")} {
		b, err := os.ReadFile(f)
		if err != nil || !strings.Contains(string(b), `"`+ownClaudeID+`": true`) {
			t.Errorf("%s no longer enables the plugin (%v):\n%s", f, err, b)
		}
	}
	r.f.checkLeftovers(t, r.a)
}

// TestExecClaudeExclusiveUserSettings: the user's own --settings is the
// last one and the only one Claude Code reads, so --exclusive carries it:
// its other settings still apply (here a hook of the user's own, which is
// configuration, not a plugin) and the own plugin stays out.
func TestExecClaudeExclusiveUserSettings(t *testing.T) {
	t.Parallel()
	ran := filepath.Join(t.TempDir(), "user-settings-hook-ran")
	settings, err := json.Marshal(map[string]any{"hooks": map[string]any{"UserPromptSubmit": []any{map[string]any{
		"hooks": []any{map[string]any{"type": "command", "command": "touch " + ran}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	r := runOwnClaude(t, true, "--settings", string(settings))
	r.f.checkGuard(t, r.a, r.res, 0)
	if r.ownRan() || r.ownSkillOffered() {
		t.Errorf("the user's own plugin loaded under --exclusive with the user's --settings\n%s", r.res)
	}
	if _, err := os.Stat(ran); err != nil {
		t.Errorf("the hook of the user's own --settings did not run: exec dropped their settings\n%s", r.res)
	}
	r.f.checkLeftovers(t, r.a)
}

// TestExecClaudeExclusiveRefuses: a plugin the user's own arguments load
// (--plugin-dir) cannot be kept out: exec refuses with a usage error
// naming the argument, and the agent never starts.
func TestExecClaudeExclusiveRefuses(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "mine")
	writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": "mine", "version": "1.0.0"})
	r := runOwnClaude(t, true, "--plugin-dir", dir)
	if r.res.Exit != 2 || !strings.Contains(r.res.Stderr, `"--plugin-dir" enables it`) || !strings.Contains(r.res.Stderr, "bundlectl: hint: ") {
		t.Errorf("want exit 2 naming --plugin-dir and a hint\n%s", r.res)
	}
	if n := len(r.a.Model.Requests()); n > 0 || r.ownRan() {
		t.Errorf("the agent started (%d model requests)", n)
	}
}

// TestExecClaudeViewTurnedOff: Claude Code loads a --plugin-dir plugin as
// "<name>@inline", and a settings layer setting that id to false drops it
// silently (TestClaudeInlineOff). A repository's .claude/settings.json
// doing so to the view of a bundle with a guard would leave the guard
// silent: exec refuses to start, naming the file and the entry.
func TestExecClaudeViewTurnedOff(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), markerName)
	a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
	f := newTrustedFixture(t, a, marker)
	writeJSONFile(t, a.Workdir, ".claude/settings.json", map[string]any{"enabledPlugins": map[string]any{pluginName + "@inline": false}})
	allowShell(a)
	a.Launcher = f.launcher(t)
	res := a.Run(t, "make the marker")
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the guarded command ran: the view was dropped and its guard with it\n%s", res)
	}
	want := fmt.Sprintf("sets \"enabledPlugins\": {%q: false}, which would keep them from running, so the agent is not started", pluginName+"@inline")
	if res.Exit != 1 || !strings.Contains(res.Stderr, filepath.Join(a.Workdir, ".claude", "settings.json")) || !strings.Contains(res.Stderr, want) {
		t.Errorf("want exit 1 naming the file and %s\n%s", want, res)
	}
}

// TestClaudeInlineOff: the fact TestExecClaudeViewTurnedOff rests on — a
// plugin loaded with --plugin-dir is dropped by a project settings entry
// "<name>@inline": false (its hook does not run), and a later --settings
// entry set to true brings it back.
func TestClaudeInlineOff(t *testing.T) {
	t.Parallel()
	for _, back := range []bool{false, true} {
		t.Run(fmt.Sprintf("flag-true-%v", back), func(t *testing.T) {
			t.Parallel()
			rec := t.TempDir()
			dir := filepath.Join(t.TempDir(), "inl")
			writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": "inl", "version": "1.0.0"})
			writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"UserPromptSubmit": []any{map[string]any{
				"hooks": []any{map[string]any{"type": "command", "command": "touch " + filepath.Join(rec, "ran")}}}}}})
			a := New(t, Claude, Say("done"))
			writeJSONFile(t, a.Workdir, ".claude/settings.json", map[string]any{"enabledPlugins": map[string]any{"inl@inline": false}})
			a.Args = []string{"--plugin-dir", dir}
			if back {
				a.Args = append(a.Args, "--settings", `{"enabledPlugins": {"inl@inline": true}}`)
			}
			res := a.Run(t, "hello")
			if _, err := os.Stat(filepath.Join(rec, "ran")); (err == nil) != back {
				t.Errorf("the --plugin-dir plugin's hook ran: %v, want %v\n%s", err == nil, back, res)
			}
		})
	}
}

// TestClaudeNoPluginModes: the fact TestExecClaudeNoPluginMode rests on —
// --bare, --safe-mode, and CLAUDE_CODE_SIMPLE or CLAUDE_CODE_SAFE_MODE set
// true, each start Claude Code without a --plugin-dir plugin's hooks (a
// view's guards); the control run has them.
func TestClaudeNoPluginModes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		args []string
		env  []string
		runs bool
	}{
		{"control", nil, []string{"CLAUDE_CODE_SAFE_MODE=0"}, true},
		{"bare", []string{"--bare"}, nil, false},
		{"safe-mode", []string{"--safe-mode"}, nil, false},
		{"CLAUDE_CODE_SIMPLE", nil, []string{"CLAUDE_CODE_SIMPLE=1"}, false},
		{"CLAUDE_CODE_SAFE_MODE", nil, []string{"CLAUDE_CODE_SAFE_MODE=yes"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rec := t.TempDir()
			dir := filepath.Join(t.TempDir(), "inl")
			writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": "inl", "version": "1.0.0"})
			writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"UserPromptSubmit": []any{map[string]any{
				"hooks": []any{map[string]any{"type": "command", "command": "touch " + filepath.Join(rec, "ran")}}}}}})
			a := New(t, Claude, Say("done"))
			a.Args = append([]string{"--plugin-dir", dir}, c.args...)
			a.Env = c.env
			res := a.Run(t, "hello")
			if _, err := os.Stat(filepath.Join(rec, "ran")); (err == nil) != c.runs {
				t.Errorf("the --plugin-dir plugin's hook ran: %v, want %v\n%s", err == nil, c.runs, res)
			}
		})
	}
}

// TestExecClaudeNoPluginMode: exec with --bare would start Claude Code
// without the view, and so without its guard: exec refuses, naming it.
func TestExecClaudeNoPluginMode(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), markerName)
	a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
	f := newTrustedFixture(t, a, marker)
	a.Args = []string{"--allowedTools", "Bash", "--bare"}
	a.Launcher = f.launcher(t)
	res := a.Run(t, "make the marker")
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the guarded command ran under --bare\n%s", res)
	}
	if res.Exit != 1 || !strings.Contains(res.Stderr, `"--bare" sets Claude Code's minimal or safe mode`) {
		t.Errorf("want exit 1 naming --bare\n%s", res)
	}
}

// TestClaudeLastSettings: the fact --exclusive's handling of the user's
// own --settings rests on — Claude Code reads only the last --settings
// argument: a plugin turned off in an earlier one still loads, and turned
// off in the last one it does not.
func TestClaudeLastSettings(t *testing.T) {
	t.Parallel()
	off := `{"enabledPlugins": {"` + ownClaudeID + `": false}}`
	for _, c := range []struct {
		name  string
		args  []string
		loads bool
	}{
		{"off-then-other", []string{"--settings", off, "--settings", `{"cleanupPeriodDays": 30}`}, true},
		{"other-then-off", []string{"--settings", `{"cleanupPeriodDays": 30}`, "--settings", off}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rec := t.TempDir()
			a := New(t, Claude, Say("done"))
			installOwnClaudePlugin(t, a, rec)
			a.Args = c.args
			res := a.Run(t, "hello")
			if _, err := os.Stat(filepath.Join(rec, ownClaudePlugin+"-ran")); (err == nil) != c.loads {
				t.Errorf("the plugin loaded: %v, want %v\n%s", err == nil, c.loads, res)
			}
		})
	}
}

// TestExecClaudeExclusiveSkillsDir: a folder of the user's skills folder
// holding .claude-plugin/plugin.json is a plugin ("<name>@skills-dir"):
// it loads and is named without --exclusive, and is kept out with it,
// while a folder of bare skills beside it — the user's configuration —
// is offered either way. Its name is the manifest's "name", read by that
// exact key as Claude Code reads it: with a "Name" written after it,
// bundlectl once took that for the id and turned off a plugin of
// another name, and under --exclusive the user's plugin and its hook
// ran in the session; so did a name holding bytes that are not UTF-8,
// which Go decoded to another id than Claude Code (name-bytes).
func TestExecClaudeExclusiveSkillsDir(t *testing.T) {
	t.Parallel()
	const bareSkill = "agenttest-users-bare-skill-e5a0"
	manifests := map[string]string{
		"plain":     `{"name": "skp", "version": "1.0.0"}`,
		"name-case": `{"name": "skp", "version": "1.0.0", "Name": "other"}`,
		// Bytes that are not UTF-8: Claude Code decodes the truncated
		// sequence as one U+FFFD, where Go gave three.
		"name-bytes": "{\"name\": \"sk\xf0\x9f\x98p\", \"version\": \"1.0.0\"}",
	}
	// The id as exec's notice writes it.
	ids := map[string]string{"plain": "skp@skills-dir", "name-case": "skp@skills-dir", "name-bytes": `sk\ufffdp@skills-dir`}
	for _, m := range []string{"plain", "name-case", "name-bytes"} {
		for _, exclusive := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s-exclusive-%v", m, exclusive), func(t *testing.T) {
				a := New(t, Claude, Say("done"))
				f := newExecFixture(t, a)
				f.trust(t)
				rec := t.TempDir()
				dir := filepath.Join(a.ConfigDir(), "skills", "folder")
				writeFile(t, dir, ".claude-plugin/plugin.json", manifests[m], 0o644)
				writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"UserPromptSubmit": []any{map[string]any{
					"hooks": []any{map[string]any{"type": "command", "command": "touch " + filepath.Join(rec, "ran")}}}}}})
				writeFile(t, a.ConfigDir(), "skills/bare/SKILL.md", "---\nname: bare\ndescription: "+bareSkill+"\n---\n\nthe user's own skill\n", 0o644)
				a.Launcher = f.launcher(t)
				if exclusive {
					a.Launcher = append(a.Launcher[:len(a.Launcher)-1], "--exclusive", "--")
				}
				res := a.Run(t, "hello")
				_, err := os.Stat(filepath.Join(rec, "ran"))
				if ran := err == nil; ran == exclusive {
					t.Errorf("the skills-folder plugin's hook ran: %v under exclusive %v\n%s", ran, exclusive, res)
				}
				if named := strings.Contains(res.Stderr, `your own plugin "`+ids[m]+`" loads beside the views`); named == exclusive {
					t.Errorf("the skills-folder plugin named: %v under exclusive %v\n%s", named, exclusive, res.Stderr)
				}
				offered := false
				for _, r := range a.Model.Requests() {
					offered = offered || r.Contains(bareSkill)
				}
				if !offered {
					t.Errorf("the user's bare skill was not offered (exclusive %v)", exclusive)
				}
			})
		}
	}
}

// TestExecClaudeSkillsDirNameless: a folder of the user's skills folder
// whose .claude-plugin/plugin.json has no "name" Claude Code takes (none,
// empty, not a string, holding a space or other white space (tab,
// U+00A0), a control character (U+0085), a format one (U+202E), an
// invisible one (U+034F) or "@", or no JSON) loads nothing in
// Claude Code 2.1.332: its hook does not run and its skill is not
// offered. exec once named it as loading, by its folder's name; a
// manifest with a name (upper case and non-ASCII letters too) loads and
// is named.
func TestExecClaudeSkillsDirNameless(t *testing.T) {
	t.Parallel()
	const innerSkill = "agenttest-nameless-inner-skill-3b7d"
	for name, m := range map[string]string{
		"no-name":    `{"version": "1.0.0"}`,
		"empty-name": `{"name": "", "version": "1.0.0"}`,
		"num-name":   `{"name": 5}`,
		"space-name": `{"name": "a b"}`,
		"not-json":   `{name`,
		"tab-name":   `{"name": "a\tb"}`,
		"bidi-name":  `{"name": "skp\u202e"}`,
		"c1-name":    `{"name": "skp\u0085"}`,
		"named":      `{"name": "skp", "version": "1.0.0"}`,
		"nbsp-name":  `{"name": "a\u00a0b"}`,
		"at-name":    `{"name": "a@b"}`,
		"cgj-name":   `{"name": "skp\u034f"}`,
		"upper-name": `{"name": "SKP-Ü.x_1"}`,
	} {
		t.Run(name, func(t *testing.T) {
			loads := name == "named" || name == "upper-name"
			a := New(t, Claude, Say("done"))
			f := newExecFixture(t, a)
			f.trust(t)
			rec := t.TempDir()
			dir := filepath.Join(a.ConfigDir(), "skills", "folder")
			writeFile(t, dir, ".claude-plugin/plugin.json", m, 0o644)
			writeFile(t, dir, "skills/inner/SKILL.md", "---\nname: inner\ndescription: "+innerSkill+"\n---\n\nthe plugin's skill\n", 0o644)
			writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"UserPromptSubmit": []any{map[string]any{
				"hooks": []any{map[string]any{"type": "command", "command": "touch " + filepath.Join(rec, "ran")}}}}}})
			a.Launcher = f.launcher(t)
			res := a.Run(t, "hello")
			_, err := os.Stat(filepath.Join(rec, "ran"))
			offered := false
			for _, r := range a.Model.Requests() {
				offered = offered || r.Contains(innerSkill)
			}
			if ran := err == nil; ran != loads || offered != loads {
				t.Errorf("the plugin's hook ran %v, its skill offered %v; want %v\n%s", ran, offered, loads, res)
			}
			if named := strings.Contains(res.Stderr, `@skills-dir" loads beside the views`); named != loads {
				t.Errorf("exec named the plugin as loading: %v, want %v\n%s", named, loads, res.Stderr)
			}
		})
	}
}
