package agenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestClaudeSettingsEnvDropped: Claude Code 2.1.332 applies the "env" of
// the user's settings and of --settings to its own environment before it
// loads plugins, so CLAUDE_CODE_SIMPLE there starts it with no plugin
// (TestClaudeGuardSwitches) — but not from a file it drops for its
// schema (a null disableAllHooks among the reasons, which no other
// test can try: beside a true it takes the true's place): there the
// guard runs. exec refused such a file as one that
// keeps the views out (hosts/claude settingsEnv); it now starts Claude
// Code, and the guard blocks.
func TestClaudeSettingsEnvDropped(t *testing.T) {
	t.Parallel()
	for _, c := range []execSwitchCase{
		{guardCase: guardCase{name: "user file, a wrong type", files: map[string]string{"~/.claude/settings.json": `{"env": {"CLAUDE_CODE_SIMPLE": "1"}, "statusLine": 5}`}, blocks: true}},
		{guardCase: guardCase{name: "user file, an unknown permission mode", files: map[string]string{"~/.claude/settings.json": `{"env": {"CLAUDE_CODE_SIMPLE": "1"}, "permissions": {"defaultMode": "bogus"}}`}, blocks: true}},
		{guardCase: guardCase{name: "--settings file", files: map[string]string{"./flag.json": `{"env": {"CLAUDE_CODE_SIMPLE": "1"}, "statusLine": 5}`}, args: []string{"--settings", "flag.json"}, blocks: true}},
		{guardCase: guardCase{name: "--settings file, a null disableAllHooks", files: map[string]string{"./flag.json": `{"env": {"CLAUDE_CODE_SIMPLE": "1"}, "disableAllHooks": null}`}, args: []string{"--settings", "flag.json"}, blocks: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runExecSwitchCase(t, c)
		})
	}
}

// TestExecClaudeExclusiveDroppedSettingsPlugins: an enabledPlugins entry
// in a --settings file Claude Code 2.1.332 drops for its schema loads
// nothing: the user's own plugin, turned on there alone, neither runs
// its hook nor offers its skill (turned on in a --settings file it reads,
// it does). exec --exclusive refused such a file as one that turns on a
// plugin no session setting can keep out; it now starts the session, the
// plugin stays out and the view's guard blocks.
func TestExecClaudeExclusiveDroppedSettingsPlugins(t *testing.T) {
	t.Parallel()
	run := func(t *testing.T, settings map[string]any, exclusive bool) *ownClaudeRun {
		marker := filepath.Join(t.TempDir(), markerName)
		a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
		f := newTrustedFixture(t, a, marker)
		r := &ownClaudeRun{a: a, f: f, rec: t.TempDir()}
		installOwnClaudePlugin(t, a, r.rec)
		a.Settings["enabledPlugins"] = map[string]any{ownClaudeID: false}
		b, err := json.Marshal(settings)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(a.Workdir, "flag.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		a.Args = []string{"--allowedTools", "Bash", "--settings", "flag.json"}
		if exclusive {
			a.Launcher = f.launcher(t)
			a.Launcher = append(a.Launcher[:len(a.Launcher)-1], "--exclusive", "--")
		}
		r.res = a.Run(t, "make the marker")
		return r
	}
	on := map[string]any{"enabledPlugins": map[string]any{ownClaudeID: true}}
	dropped := map[string]any{"enabledPlugins": map[string]any{ownClaudeID: true}, "statusLine": 5}
	if r := run(t, on, false); !r.ownRan() || !r.ownSkillOffered() {
		t.Fatalf("Claude Code alone did not load the own plugin a --settings file turns on (hook ran %v, skill offered %v): the test proves nothing\n%s", r.ownRan(), r.ownSkillOffered(), r.res)
	}
	if r := run(t, dropped, false); r.ownRan() || r.ownSkillOffered() {
		t.Fatalf("Claude Code alone loaded the own plugin a dropped --settings file turns on (hook ran %v, skill offered %v): this test's premise (Claude Code 2.1.332) no longer holds\n%s", r.ownRan(), r.ownSkillOffered(), r.res)
	}
	r := run(t, dropped, true)
	if r.res.Exit != 0 {
		t.Fatalf("exec --exclusive did not start Claude Code\n%s", r.res)
	}
	r.f.checkGuard(t, r.a, r.res, 0)
	if r.ownRan() || r.ownSkillOffered() {
		t.Errorf("the own plugin loaded under --exclusive (hook ran %v, skill offered %v)\n%s", r.ownRan(), r.ownSkillOffered(), r.res)
	}
	r.f.checkLeftovers(t, r.a)
}
