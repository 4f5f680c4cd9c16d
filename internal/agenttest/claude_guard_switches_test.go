package agenttest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// guardCase is one way a session might be started: does a --plugin-dir
// plugin's PreToolUse guard still run and still block the marker command?
type guardCase struct {
	name string
	args []string
	env  []string
	// files (relative to the agent's home, "~/…", or working directory,
	// "./…") written before the run.
	files map[string]string
	// managed is written as /etc/claude-code/<name> in a private mount
	// namespace.
	managed map[string]string
	blocks  bool
	// hostRefuses: Claude Code itself refuses to start (exit 1), saying
	// hostSays ("disableSideloadFlags" when empty).
	hostRefuses bool
	hostSays    string
	// gitParent makes the working directory's parent a git repository's root.
	gitParent bool
}

// runGuardCase runs Claude Code with the guard plugin under c and reports
// whether the guard ran and whether the marker command was blocked.
func runGuardCase(t *testing.T, c guardCase) (ran, blocked bool, res *Result) {
	t.Helper()
	// Not t.TempDir: its name comes from the test's, and a subtest named
	// for a setting ("$schema") puts a "$" or "&" into the plugin root,
	// which Claude Code writes into the hook's shell line unquoted.
	tmp, err := os.MkdirTemp("", "guardcase")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	rec := filepath.Join(tmp, "rec")
	marker := filepath.Join(tmp, markerName)
	dir := filepath.Join(tmp, "grd")
	writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": "grd", "version": "1.0.0"})
	writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
		"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/guard.sh"}}}}}})
	writeFile(t, dir, "guard.sh", pluginGuard(rec), 0o755)
	if err := os.MkdirAll(rec, 0o755); err != nil {
		t.Fatal(err)
	}
	a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
	writeCaseFiles(t, a, c.files)
	if c.gitParent {
		if out, err := exec.Command("git", "init", "-q", filepath.Dir(a.Workdir)).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v %s", err, out)
		}
	}
	a.Args = append([]string{"--plugin-dir", dir, "--allowedTools", "Bash"}, c.args...)
	for _, kv := range c.env {
		a.Env = append(a.Env, strings.ReplaceAll(kv, "=HOME/", "="+a.Home+"/"))
	}
	if c.managed != nil {
		a.Launcher = overlayEtcAt(t, "claude-code", c.managed)
	}
	res = a.Run(t, "make the marker")
	_, err = os.Stat(filepath.Join(rec, "hook-argv.txt"))
	_, merr := os.Stat(marker)
	return err == nil, merr != nil, res
}

// writeCaseFiles writes files (relative to the agent's home, "~/…", or
// working directory, "./…"; WORKDIR in their content stands for the
// latter) for a Claude Code session.
func writeCaseFiles(t *testing.T, a *Agent, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		if rel == "~/.claude/settings.json" {
			// Agent.Command writes the user's settings from a.Settings.
			if err := json.Unmarshal([]byte(content), &a.Settings); err != nil {
				t.Fatal(err)
			}
			continue
		}
		base := a.Workdir
		if strings.HasPrefix(rel, "~/") {
			base, rel = a.Home, rel[2:]
		}
		writeFile(t, base, strings.TrimPrefix(rel, "./"), strings.ReplaceAll(content, "WORKDIR", a.Workdir), 0o644)
	}
}

// overlayEtcAt returns a launcher prefix that runs the rest of its
// arguments in a private mount namespace where /etc/<dir> holds files
// (name → content), the machine's /etc untouched; the test is skipped
// where that cannot be done (not root, no overlayfs).
func overlayEtcAt(t *testing.T, dir string, files map[string]string) []string {
	t.Helper()
	// Not t.TempDir(): a subtest's name with a comma ("managed true, a
	// drop-in false") would end the overlay's upperdir= option early, and
	// the mount fail, skipping the test (as overlayEtc does not either).
	up, err := os.MkdirTemp("", "agenttest-etc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(up) })
	if strings.ContainsAny(up, ",:") {
		t.Fatalf("%s cannot be an overlay option", up)
	}
	for name, content := range files {
		writeFile(t, up, "upper/"+dir+"/"+name, content, 0o644)
	}
	if err := os.Mkdir(filepath.Join(up, "work"), 0o755); err != nil {
		t.Fatal(err)
	}
	mount := "mount -t overlay overlay -o lowerdir=/etc,upperdir=" + up + "/upper,workdir=" + up + "/work /etc"
	if out, err := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", mount+" && test -d /etc/"+dir).CombinedOutput(); err != nil {
		t.Skipf("cannot put files in /etc/%s in a private mount namespace: %v %s", dir, err, out)
	}
	return []string{"unshare", "-m", "--propagation", "private", "sh", "-c", mount + ` && exec "$@"`, "sh"}
}

// TestClaudeGuardSwitches records, for Claude Code 2.1.332, which ways of
// starting a session keep a --plugin-dir plugin's PreToolUse guard (a
// bundlectl view's) from running, and which do not (hosts/claude:
// hooksOff, pluginsOff, settingsEnv, userSettingsFiles; docs/hosts.md):
//
//   - The "env" of the user's settings, the last --settings, managed
//     settings and the global config (~/.claude.json) is applied to Claude
//     Code's environment before plugins load: CLAUDE_CODE_SIMPLE or
//     CLAUDE_CODE_SAFE_MODE set true there loads no plugin. A project's or
//     local "env" does not; nor the user's under --setting-sources project.
//   - A ~/.claude.json that is not JSON (a comment, a trailing comma or
//     text) makes Claude Code refuse to start (exit 1, naming the file);
//     one it cannot read (a directory) it skips, and starts with the
//     guard running: an "env" it cannot read it does not apply.
//   - CLAUDE_CODE_USE_COWORK_PLUGINS set true (in the environment, or in
//     the "env" of settings.json) makes the user's settings file
//     cowork_settings.json: disableAllHooks, or "<view>@inline": false,
//     there holds; in settings.json it no longer does.
//   - --setting-sources leaves a switch in a source it does not read
//     without effect (a --settings switch holds regardless).
//   - A project's .claude/settings.json above the working directory does
//     not count, at a git repository's root neither.
//   - Managed disableSideloadFlags makes Claude Code refuse --plugin-dir
//     itself (exit 1, saying so): nothing silent.
//   - No effect on the guard: --disable-slash-commands, --agents/--agent,
//     bypassPermissions and --dangerously-skip-permissions (IS_SANDBOX=1,
//     as root), managed strictPluginOnlyCustomization ["hooks"],
//     strictKnownMarketplaces [] and blockedMarketplaces, an enabledPlugins
//     wildcard "*@inline": false, a settings "hooks" entry for the same
//     event, CLAUDE_CODE_PERSONAL_HOOKS_OFF,
//     CLAUDE_CODE_MANAGED_SETTINGS_PATH, CLAUDE_CODE_DISABLE_HOOK_FORWARDING,
//     CLAUDE_CODE_PLUGIN_CACHE_DIR, the settings of an --add-dir
//     directory (disableAllHooks, allowManagedHooksOnly, or
//     CLAUDE_CODE_SIMPLE in its "env"), disableSideloadFlags outside
//     managed settings, and disableAllHooks, allowManagedHooksOnly or
//     enabledPlugins in ~/.claude.json, at its top level or in the
//     project's entry (only its "env" counts).
func TestClaudeGuardSwitches(t *testing.T) {
	t.Parallel()
	off := `{"disableAllHooks": true}`
	simple := `{"env": {"CLAUDE_CODE_SIMPLE": "1"}}`
	cases := []guardCase{
		{name: "control", blocks: true},

		{name: "user env CLAUDE_CODE_SIMPLE", files: map[string]string{"~/.claude/settings.json": simple}},
		{name: "user env CLAUDE_CODE_SIMPLE true over a false process env", env: []string{"CLAUDE_CODE_SIMPLE=0"}, files: map[string]string{"~/.claude/settings.json": `{"env": {"CLAUDE_CODE_SIMPLE": "true"}}`}},
		{name: "user env CLAUDE_CODE_SAFE_MODE", files: map[string]string{"~/.claude/settings.json": `{"env": {"CLAUDE_CODE_SAFE_MODE": "1"}}`}},
		{name: "--settings env CLAUDE_CODE_SIMPLE", args: []string{"--settings", simple}},
		{name: "managed env CLAUDE_CODE_SIMPLE", managed: map[string]string{"managed-settings.json": simple}},
		{name: "global config env CLAUDE_CODE_SIMPLE", files: map[string]string{"~/.claude.json": simple}},
		{name: "global config env CLAUDE_CODE_SIMPLE, trailing comma", files: map[string]string{"~/.claude.json": `{"env": {"CLAUDE_CODE_SIMPLE": "1"},}`}, hostRefuses: true, hostSays: "is corrupted"},
		{name: "global config env CLAUDE_CODE_SIMPLE, comment", files: map[string]string{"~/.claude.json": "// c\n" + simple}, hostRefuses: true, hostSays: "is corrupted"},
		{name: "global config env CLAUDE_CODE_SIMPLE, trailing text", files: map[string]string{"~/.claude.json": simple + " x"}, hostRefuses: true, hostSays: "is corrupted"},
		{name: "global config a directory", files: map[string]string{"~/.claude.json/x": "{}"}, blocks: true},
		{name: "user env CLAUDE_CODE_SIMPLE 0", files: map[string]string{"~/.claude/settings.json": `{"env": {"CLAUDE_CODE_SIMPLE": "0"}}`}, blocks: true},
		{name: "project env CLAUDE_CODE_SIMPLE", files: map[string]string{"./.claude/settings.json": simple}, blocks: true},
		{name: "local env CLAUDE_CODE_SIMPLE", files: map[string]string{"./.claude/settings.local.json": simple}, blocks: true},
		{name: "user env CLAUDE_CODE_SIMPLE, user not read", args: []string{"--setting-sources", "project"}, files: map[string]string{"~/.claude/settings.json": simple}, blocks: true},

		{name: "cowork, cowork_settings off", env: []string{"CLAUDE_CODE_USE_COWORK_PLUGINS=1"}, files: map[string]string{"~/.claude/cowork_settings.json": off}},
		{name: "cowork, cowork_settings view off", env: []string{"CLAUDE_CODE_USE_COWORK_PLUGINS=1"}, files: map[string]string{"~/.claude/cowork_settings.json": `{"enabledPlugins": {"grd@inline": false}}`}},
		{name: "cowork in settings env, cowork_settings off", files: map[string]string{"~/.claude/settings.json": `{"env": {"CLAUDE_CODE_USE_COWORK_PLUGINS": "1"}}`, "~/.claude/cowork_settings.json": off}},
		{name: "cowork, cowork_settings env CLAUDE_CODE_SIMPLE", env: []string{"CLAUDE_CODE_USE_COWORK_PLUGINS=1"}, files: map[string]string{"~/.claude/cowork_settings.json": simple}},
		{name: "cowork, settings.json off", env: []string{"CLAUDE_CODE_USE_COWORK_PLUGINS=1"}, files: map[string]string{"~/.claude/settings.json": off}, blocks: true},
		{name: "cowork 0, cowork_settings off", env: []string{"CLAUDE_CODE_USE_COWORK_PLUGINS=0"}, files: map[string]string{"~/.claude/cowork_settings.json": off}, blocks: true},
		{name: "cowork false, cowork_settings off", env: []string{"CLAUDE_CODE_USE_COWORK_PLUGINS=false"}, files: map[string]string{"~/.claude/cowork_settings.json": off}, blocks: true},

		{name: "sources user, project off", args: []string{"--setting-sources", "user"}, files: map[string]string{"./.claude/settings.json": off}, blocks: true},
		{name: "sources project, user off", args: []string{"--setting-sources", "project"}, files: map[string]string{"~/.claude/settings.json": off}, blocks: true},
		{name: "sources user, user off", args: []string{"--setting-sources", "user"}, files: map[string]string{"~/.claude/settings.json": off}},
		{name: "sources none, local off", args: []string{"--setting-sources", ""}, files: map[string]string{"./.claude/settings.local.json": `{"allowManagedHooksOnly": true}`}, blocks: true},
		{name: "sources none, project view off", args: []string{"--setting-sources", ""}, files: map[string]string{"./.claude/settings.json": `{"enabledPlugins": {"grd@inline": false}}`}, blocks: true},
		{name: "sources none, --settings off", args: []string{"--setting-sources", "", "--settings", off}},
		{name: "sources none", args: []string{"--setting-sources", ""}, blocks: true},

		{name: "parent off, not a repository", files: map[string]string{"../.claude/settings.json": off}, blocks: true},
		{name: "parent off, git root", gitParent: true, files: map[string]string{"../.claude/settings.json": off}, blocks: true},

		{name: "managed disableSideloadFlags", managed: map[string]string{"managed-settings.json": `{"disableSideloadFlags": true}`}, hostRefuses: true},
		{name: "managed drop-in disableSideloadFlags", managed: map[string]string{"managed-settings.d/50-org.json": `{"disableSideloadFlags": true}`}, hostRefuses: true},
		{name: "user disableSideloadFlags", files: map[string]string{"~/.claude/settings.json": `{"disableSideloadFlags": true}`}, blocks: true},
		{name: "--settings disableSideloadFlags", args: []string{"--settings", `{"disableSideloadFlags": true}`}, blocks: true},

		{name: "--disable-slash-commands", args: []string{"--disable-slash-commands"}, blocks: true},
		{name: "--agents --agent", args: []string{"--agents", `{"main": {"description": "agenttest", "prompt": "agenttest agent"}}`, "--agent", "main"}, blocks: true},
		{name: "bypassPermissions", args: []string{"--permission-mode", "bypassPermissions"}, env: []string{"IS_SANDBOX=1"}, blocks: true},
		{name: "--dangerously-skip-permissions", args: []string{"--dangerously-skip-permissions"}, env: []string{"IS_SANDBOX=1"}, blocks: true},
		{name: "managed strictPluginOnlyCustomization hooks", managed: map[string]string{"managed-settings.json": `{"strictPluginOnlyCustomization": ["hooks"]}`}, blocks: true},
		{name: "managed strictKnownMarketplaces none", managed: map[string]string{"managed-settings.json": `{"strictKnownMarketplaces": []}`}, blocks: true},
		{name: "managed blockedMarketplaces inline", managed: map[string]string{"managed-settings.json": `{"blockedMarketplaces": [{"source": "inline"}]}`}, blocks: true},
		{name: "enabledPlugins wildcard", files: map[string]string{"./.claude/settings.json": `{"enabledPlugins": {"*@inline": false, "*": false}}`}, blocks: true},
		{name: "settings hooks for the event", files: map[string]string{"./.claude/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": []}]}}`}, blocks: true},
		{name: "global config switches", files: map[string]string{"~/.claude.json": `{"disableAllHooks": true, "enabledPlugins": {"grd@inline": false}, "projects": {"WORKDIR": {"disableAllHooks": true, "allowManagedHooksOnly": true, "enabledPlugins": {"grd@inline": false}, "disabledPlugins": ["grd@inline"]}}}`}, blocks: true},
		{name: "--add-dir off", args: []string{"--add-dir", "extra"}, files: map[string]string{"./extra/.claude/settings.json": off, "./extra/.claude/settings.local.json": `{"allowManagedHooksOnly": true}`}, blocks: true},
		{name: "--add-dir env CLAUDE_CODE_SIMPLE", args: []string{"--add-dir", "extra"}, files: map[string]string{"./extra/.claude/settings.json": simple}, blocks: true},
		{name: "CLAUDE_CODE_DISABLE_HOOK_FORWARDING", env: []string{"CLAUDE_CODE_DISABLE_HOOK_FORWARDING=1"}, blocks: true},
		{name: "CLAUDE_CODE_PLUGIN_CACHE_DIR", env: []string{"CLAUDE_CODE_PLUGIN_CACHE_DIR=HOME/cache"}, blocks: true},
		{name: "CLAUDE_CODE_PERSONAL_HOOKS_OFF", env: []string{"CLAUDE_CODE_PERSONAL_HOOKS_OFF=1"}, blocks: true},
		{name: "CLAUDE_CODE_MANAGED_SETTINGS_PATH", env: []string{"CLAUDE_CODE_MANAGED_SETTINGS_PATH=HOME/m.json"}, files: map[string]string{"~/m.json": off}, blocks: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ran, blocked, res := runGuardCase(t, c)
			if c.hostRefuses {
				says := c.hostSays
				if says == "" {
					says = "disableSideloadFlags"
				}
				if ran || !blocked || res.Exit != 1 || !strings.Contains(res.Stderr, says) {
					t.Errorf("want Claude Code to refuse to start, saying %q (guard ran %v, marker blocked %v)\n%s", says, ran, blocked, res)
				}
				return
			}
			if blocked != c.blocks || ran != c.blocks {
				t.Errorf("the guard ran %v and blocked %v, want %v\n%s", ran, blocked, c.blocks, res)
			}
		})
	}
}

// runExecGuard starts Claude Code through bundlectl exec with the trusted
// guard bundle, the user settings settings (nil: none), files written in
// the agent's home, env and args, and the marker command to run.
func runExecGuard(t *testing.T, settings map[string]any, files map[string]string, env, args []string) (*Agent, *execFixture, *Result) {
	t.Helper()
	marker := filepath.Join(t.TempDir(), markerName)
	a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
	f := newTrustedFixture(t, a, marker)
	a.Settings = settings
	for rel, content := range files {
		writeFile(t, a.Home, rel, content, 0o644)
	}
	a.Env = env
	a.Args = append([]string{"--allowedTools", "Bash"}, args...)
	a.Launcher = f.launcher(t)
	return a, f, a.Run(t, "make the marker")
}

// checkRefused asserts exec refused to start Claude Code (exit 1, no model
// request, the marker not made) naming file and setting.
func checkRefused(t *testing.T, a *Agent, f *execFixture, res *Result, file, setting string) {
	t.Helper()
	if _, err := os.Stat(f.marker); err == nil {
		t.Errorf("the guarded command ran: the view's guard did not\n%s", res)
	}
	want := fmt.Sprintf("%q sets %s, which would keep them from running, so the agent is not started", file, setting)
	if res.Exit != 1 || !strings.Contains(res.Stderr, want) {
		t.Errorf("want exit 1 and %s\n%s", want, res)
	}
	if n := len(a.Model.Requests()); n > 0 {
		t.Errorf("the agent started (%d model requests)", n)
	}
}

// TestExecClaudeSettingsEnvNoPlugins: CLAUDE_CODE_SIMPLE set in the "env"
// of the user's settings starts Claude Code with no plugin, the view's
// guard neither (TestClaudeGuardSwitches): exec refuses, naming the file
// and the entry.
func TestExecClaudeSettingsEnvNoPlugins(t *testing.T) {
	t.Parallel()
	a, f, res := runExecGuard(t, map[string]any{"env": map[string]any{"CLAUDE_CODE_SIMPLE": "1"}}, nil, nil, nil)
	checkRefused(t, a, f, res, filepath.Join(a.ConfigDir(), "settings.json"), `"env": {"CLAUDE_CODE_SIMPLE": "1"}, Claude Code's minimal or safe mode (no plugin loads)`)
}

// TestExecClaudeSettingsEnvByteOrderMark: behind a byte order mark, which
// Claude Code 2.1.332 skips, CLAUDE_CODE_SIMPLE in the "env" of the
// user's settings starts it with no plugin, the view's guard neither:
// exec refuses, naming the file and the entry. It once skipped the file
// it could not parse, started the agent, and the marker command ran.
func TestExecClaudeSettingsEnvByteOrderMark(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), markerName)
	a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
	f := newTrustedFixture(t, a, marker)
	a.SettingsFile = []byte("\ufeff" + `{"env": {"CLAUDE_CODE_SIMPLE": "1"}}`)
	a.Args = []string{"--allowedTools", "Bash"}
	a.Launcher = f.launcher(t)
	res := a.Run(t, "make the marker")
	checkRefused(t, a, f, res, filepath.Join(a.ConfigDir(), "settings.json"), `"env": {"CLAUDE_CODE_SIMPLE": "1"}, Claude Code's minimal or safe mode (no plugin loads)`)
}

// TestExecClaudeCowork: with CLAUDE_CODE_USE_COWORK_PLUGINS set Claude
// Code reads the user's cowork_settings.json, where disableAllHooks keeps
// the view's guard from running (TestClaudeGuardSwitches): exec refuses,
// naming that file.
func TestExecClaudeCowork(t *testing.T) {
	t.Parallel()
	a, f, res := runExecGuard(t, nil, map[string]string{".claude/cowork_settings.json": `{"disableAllHooks": true}`}, []string{"CLAUDE_CODE_USE_COWORK_PLUGINS=1"}, nil)
	checkRefused(t, a, f, res, filepath.Join(a.ConfigDir(), "cowork_settings.json"), `"disableAllHooks": true`)
}

// TestExecClaudeSettingSources: under --setting-sources user Claude Code
// does not read the project's settings, so their disableAllHooks keeps no
// guard from running (TestClaudeGuardSwitches): exec starts the agent and
// the view's guard blocks the marker command.
func TestExecClaudeSettingSources(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), markerName)
	a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
	f := newTrustedFixture(t, a, marker)
	writeJSONFile(t, a.Workdir, ".claude/settings.json", map[string]any{"disableAllHooks": true})
	a.Args = []string{"--allowedTools", "Bash", "--setting-sources", "user"}
	a.Launcher = f.launcher(t)
	res := a.Run(t, "make the marker")
	if res.Exit != 0 {
		t.Errorf("exec refused a switch Claude Code does not read\n%s", res)
	}
	f.checkGuard(t, a, res, 0)
}

// TestExecClaudeManagedSideload: managed disableSideloadFlags makes Claude
// Code refuse every --plugin-dir (TestClaudeGuardSwitches); exec refuses
// first, naming the managed file rather than an argument the user never
// gave.
func TestExecClaudeManagedSideload(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), markerName)
	a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
	f := newTrustedFixture(t, a, marker)
	a.Args = []string{"--allowedTools", "Bash"}
	a.Launcher = append(overlayEtcAt(t, "claude-code", map[string]string{"managed-settings.json": `{"disableSideloadFlags": true}`}), f.launcher(t)...)
	res := a.Run(t, "make the marker")
	checkRefused(t, a, f, res, "/etc/claude-code/managed-settings.json", `"disableSideloadFlags": true (Claude Code then loads no --plugin-dir, the views neither)`)
}

// TestExecClaudeParentSettings: Claude Code reads no project settings
// above the working directory, at a git repository's root neither, so
// disableAllHooks there keeps no guard from running
// (TestClaudeGuardSwitches): exec starts the agent and the view's guard
// blocks the marker command. exec used to refuse this.
func TestExecClaudeParentSettings(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), markerName)
	a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
	f := newTrustedFixture(t, a, marker)
	parent := filepath.Dir(a.Workdir)
	writeJSONFile(t, parent, ".claude/settings.json", map[string]any{"disableAllHooks": true})
	writeJSONFile(t, parent, ".claude/settings.local.json", map[string]any{"allowManagedHooksOnly": true})
	if out, err := exec.Command("git", "init", "-q", parent).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	a.Args = []string{"--allowedTools", "Bash"}
	a.Launcher = f.launcher(t)
	res := a.Run(t, "make the marker")
	if res.Exit != 0 {
		t.Errorf("exec refused a switch Claude Code does not read\n%s", res)
	}
	f.checkGuard(t, a, res, 0)
}
