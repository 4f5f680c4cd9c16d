package agenttest

import "testing"

// TestExecClaudePinOverDroppedSettings: a user's true, undone by a project
// false in a file Claude Code 2.1.332 drops for a reason the schema model
// does not know (a github marketplace source whose repo is no string,
// listing a plugin of an unknown kind), so
// Claude Code alone runs no guard; exec pins "disableAllHooks": false in
// the session's own --settings. When the user's own --settings (a file,
// or inline JSON) holds a value the model knows Claude Code drops the
// file for ("statusLine": 5), exec once carried it into that --settings
// beside the pin, Claude Code dropped the two together, and the guard did
// not run in a session exec had started. exec now leaves that content out
// (Claude Code reads none of it) and the guard runs.
func TestExecClaudePinOverDroppedSettings(t *testing.T) {
	t.Parallel()
	const off = `{"disableAllHooks": true}`
	const projectFalse = `{"disableAllHooks": false, "extraKnownMarketplaces": {"m": {"source": {"source": "github", "repo": 5, "plugins": [{"name": "p", "source": {"source": "bogus"}}]}}}}`
	for _, c := range []execSwitchCase{
		{guardCase: guardCase{name: "--settings file", files: map[string]string{"~/.claude/settings.json": off, "./.claude/settings.json": projectFalse, "./flag.json": `{"statusLine": 5}`}, args: []string{"--settings", "flag.json"}}, pinned: true},
		{guardCase: guardCase{name: "inline --settings", files: map[string]string{"~/.claude/settings.json": off, "./.claude/settings.json": projectFalse}, args: []string{"--settings", `{"statusLine": 5}`}}, pinned: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runExecSwitchCase(t, c)
		})
	}
}

// TestExecClaudeInlineSettingsSchema: Claude Code 2.1.332 drops an inline
// --settings holding a value its schema refuses as it drops such a file
// ("--settings (inline JSON) (statusLine): Expected object"): its true
// holds nothing off (exec once refused it), and its false does not undo
// the user's true (exec refuses, saying why).
func TestExecClaudeInlineSettingsSchema(t *testing.T) {
	t.Parallel()
	for _, c := range []execSwitchCase{
		{guardCase: guardCase{name: "inline true beside a wrong type", args: []string{"--settings", `{"disableAllHooks": true, "statusLine": 5}`}, blocks: true}},
		{guardCase: guardCase{name: "user true, a dropped inline false", files: map[string]string{"~/.claude/settings.json": `{"disableAllHooks": true}`}, args: []string{"--settings", `{"disableAllHooks": false, "statusLine": 5}`}}, refused: "~/.claude/settings.json", setting: `"disableAllHooks": true (the "disableAllHooks": false of "--settings" does not undo it: Claude Code drops that argument, as its "statusLine": 5 fails Claude Code's settings schema)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runExecSwitchCase(t, c)
		})
	}
}

// TestExecClaudeExclusiveDroppedSettings: under --exclusive the entries
// that turn the user's own plugin off go in the session's own --settings,
// which carries the user's --settings. One Claude Code drops for its
// schema ("statusLine": 5) took the entries down with it, and the own
// plugin loaded and ran its hook in a session exec had started as
// exclusive; exec now leaves that content out, and the plugin stays out.
func TestExecClaudeExclusiveDroppedSettings(t *testing.T) {
	t.Parallel()
	r := runOwnClaude(t, true, "--settings", `{"statusLine": 5}`)
	r.f.checkGuard(t, r.a, r.res, 0)
	if r.ownRan() || r.ownSkillOffered() {
		t.Errorf("the user's own plugin loaded under --exclusive beside a dropped --settings (hook ran %v, skill offered %v)\n%s", r.ownRan(), r.ownSkillOffered(), r.res)
	}
	r.f.checkLeftovers(t, r.a)
}
