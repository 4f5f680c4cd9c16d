package agenttest

import (
	"path/filepath"
	"strings"
	"testing"
)

// execSwitchCase is a way a Claude Code session's settings may set its
// hook switches, tried with Claude Code alone (does a --plugin-dir
// plugin's guard run? guardCase.blocks) and through bundlectl exec.
type execSwitchCase struct {
	guardCase
	// refused is the source exec names when it refuses ("~/…" and "./…"
	// as in files, "/etc/claude-code/…", or "--settings"), with setting
	// (FILE in it stands for that source's file, WORKDIR for the working
	// directory); "" when exec starts Claude Code. exec refuses exactly
	// when the guard does not run, but for pinned.
	refused, setting string
	// pinned: Claude Code alone runs no guard, because it drops the file
	// whose false undoes a true, and exec starts it with the switch
	// pinned false in its own --settings: the guard runs.
	pinned bool
}

// TestExecClaudeHooksSwitches: exec decides whether a view's guards run
// in Claude Code 2.1.332 as Claude Code does, and refuses to start it
// exactly when they would not. Each case runs Claude Code alone with a
// --plugin-dir guard (the premise), then through bundlectl exec with a
// trusted bundle's guard: refused (exit 1, naming the source and the
// setting, no model request, the guarded command not run) when the
// premise's guard did not run, else started with the guard blocking the
// command. Found so (hosts/claude sessionSources, disableAllHooksOff,
// managedOnlyOff):
//
//   - disableAllHooks: the last of the user's settings, the project's,
//     the local, the last --settings and the managed settings
//     (managed-settings.json, then its drop-ins) that sets a boolean
//     decides; a value that is not a boolean counts for nothing, in the
//     user's settings too (it stops that file's own hooks, not a
//     plugin's); only the last --settings is read; --setting-sources
//     leaves out what it names not;
//   - allowManagedHooksOnly counts in the managed settings only, where
//     the last file that sets it to anything but null decides, and
//     anything but false and "false" turns it on (0 too);
//   - Claude Code drops a user, project, local or --settings file that
//     fails its schema (here a settings marketplace source listing a
//     plugin of an unknown kind, deeper than bundlectl models the schema: TestExecClaudeSettingsSchema
//     and TestClaudeSettingsSchemaVectors have what it does), its false with it, so a user's true
//     holds again: exec, which cannot tell, pins the switch
//     false in the --settings it gives Claude Code, and the guard runs;
//     a managed file it reads all the same;
//   - a --settings file that does not exist stops Claude Code; exec
//     refuses first, naming it.
//
// exec once refused a true in any source, and allowManagedHooksOnly in
// any file: it kept sessions whose guards run from starting.
func TestExecClaudeHooksSwitches(t *testing.T) {
	t.Parallel()
	const off, on = `{"disableAllHooks": true}`, `{"disableAllHooks": false}`
	const userFile, projectFile = "~/.claude/settings.json", "./.claude/settings.json"
	cases := []execSwitchCase{
		{guardCase: guardCase{name: "user true", files: map[string]string{userFile: off}}, refused: userFile, setting: `"disableAllHooks": true`},
		{guardCase: guardCase{name: "user true, project false", files: map[string]string{userFile: off, projectFile: on}, blocks: true}},
		{guardCase: guardCase{name: "user true, project null", files: map[string]string{userFile: off, projectFile: `{"disableAllHooks": null}`}}, refused: userFile, setting: `"disableAllHooks": true`},
		{guardCase: guardCase{name: "project not a boolean", files: map[string]string{projectFile: `{"disableAllHooks": "true"}`}, blocks: true}},
		{guardCase: guardCase{name: "user not a boolean", files: map[string]string{userFile: `{"disableAllHooks": "true"}`}, blocks: true}},
		{guardCase: guardCase{name: "local true", files: map[string]string{"./.claude/settings.local.json": off}}, refused: "./.claude/settings.local.json", setting: `"disableAllHooks": true`},
		{guardCase: guardCase{name: "--settings false over user true", files: map[string]string{userFile: off}, args: []string{"--settings", on}, blocks: true}},
		{guardCase: guardCase{name: "--settings true over local false", files: map[string]string{"./.claude/settings.local.json": on}, args: []string{"--settings", off}}, refused: "--settings", setting: `"disableAllHooks": true`},
		{guardCase: guardCase{name: "only the last --settings", args: []string{"--settings", off, "--settings", `{}`}, blocks: true}},
		{guardCase: guardCase{name: "--settings file missing", args: []string{"--settings", "nope.json"}, hostRefuses: true, hostSays: "nope.json"}, refused: "./nope.json", setting: "something bundlectl cannot read (stat FILE: no such file or directory)"},
		{guardCase: guardCase{name: "sources project, user true, project false", args: []string{"--setting-sources", "project"}, files: map[string]string{userFile: off, projectFile: on}, blocks: true}},
		{guardCase: guardCase{name: "local allowManagedHooksOnly", files: map[string]string{"./.claude/settings.local.json": `{"allowManagedHooksOnly": true}`}, blocks: true}},
		{guardCase: guardCase{name: "managed false over user true", files: map[string]string{userFile: off}, managed: map[string]string{"managed-settings.json": on}, blocks: true}},
		{guardCase: guardCase{name: "managed false in an invalid file over user true", files: map[string]string{userFile: off}, managed: map[string]string{"managed-settings.json": `{"disableAllHooks": false, "statusLine": 5}`}, blocks: true}},
		{guardCase: guardCase{name: "managed true over --settings false", args: []string{"--settings", on}, managed: map[string]string{"managed-settings.json": off}}, refused: "/etc/claude-code/managed-settings.json", setting: `"disableAllHooks": true`},
		{guardCase: guardCase{name: "managed true, a drop-in false", managed: map[string]string{"managed-settings.json": off, "managed-settings.d/50-org.json": on}, blocks: true}},
		{guardCase: guardCase{name: "managed allowManagedHooksOnly \"false\"", managed: map[string]string{"managed-settings.json": `{"allowManagedHooksOnly": "false"}`}, blocks: true}},
		{guardCase: guardCase{name: "managed allowManagedHooksOnly 0", managed: map[string]string{"managed-settings.json": `{"allowManagedHooksOnly": 0}`}}, refused: "/etc/claude-code/managed-settings.json", setting: `"allowManagedHooksOnly": 0`},
		{guardCase: guardCase{name: "user true, an invalid project false", files: map[string]string{userFile: off, projectFile: `{"disableAllHooks": false, "extraKnownMarketplaces": {"m": {"source": {"source": "github", "repo": 5, "plugins": [{"name": "p", "source": {"source": "bogus"}}]}}}}`}}, pinned: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runExecSwitchCase(t, c)
		})
	}
}

// runExecSwitchCase runs c with Claude Code alone (the premise), then
// through bundlectl exec, and checks exec refuses or starts as c says.
func runExecSwitchCase(t *testing.T, c execSwitchCase) {
	ran, blocked, res := runGuardCase(t, c.guardCase)
	switch {
	case c.hostRefuses && (ran || res.Exit != 1 || !strings.Contains(res.Stderr, c.hostSays)):
		t.Fatalf("Claude Code alone did not refuse to start, saying %q: this test's premise (Claude Code 2.1.332) no longer holds\n%s", c.hostSays, res)
	case !c.hostRefuses && (ran != c.blocks || blocked != c.blocks):
		t.Fatalf("Claude Code alone ran the guard %v (blocked %v), want %v: this test's premise (Claude Code 2.1.332) no longer holds\n%s", ran, blocked, c.blocks, res)
	}

	marker := filepath.Join(t.TempDir(), markerName)
	a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
	f := newTrustedFixture(t, a, marker)
	writeCaseFiles(t, a, c.files)
	a.Args = append([]string{"--allowedTools", "Bash"}, c.args...)
	a.Launcher = f.launcher(t)
	if c.managed != nil {
		a.Launcher = append(overlayEtcAt(t, "claude-code", c.managed), a.Launcher...)
	}
	a.Env = c.env
	res = a.Run(t, "make the marker")
	if c.refused != "" {
		file := execSource(a, c.refused)
		checkRefused(t, a, f, res, file, strings.NewReplacer("FILE", file, "WORKDIR", a.Workdir).Replace(c.setting))
		return
	}
	if res.Exit != 0 {
		t.Fatalf("exec did not start Claude Code, whose guard runs\n%s", res)
	}
	f.checkGuard(t, a, res, 0)
}

// execSource is the name exec gives the source rel of an
// execSwitchCase: a file's absolute path, or "--settings".
func execSource(a *Agent, rel string) string {
	switch {
	case strings.HasPrefix(rel, "~/.claude/"):
		return filepath.Join(a.ConfigDir(), strings.TrimPrefix(rel, "~/.claude/"))
	case strings.HasPrefix(rel, "~/"):
		return filepath.Join(a.Home, rel[2:])
	case strings.HasPrefix(rel, "./"):
		return filepath.Join(a.Workdir, rel[2:])
	}
	return rel
}
