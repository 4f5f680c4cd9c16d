package agenttest

import "testing"

// TestExecClaudePinOverDroppedSettings: a user's true, undone by a project
// false in a file Claude Code 2.1.332 drops for a reason the schema model
// does not know (a string where permissions.allow wants an array), so
// Claude Code alone runs no guard; exec pins "disableAllHooks": false in
// the session's own --settings. When the user's own --settings (a file,
// or inline JSON) holds a value the model knows Claude Code drops the
// file for ("statusLine": 5), exec once carried it into that --settings
// beside the pin, Claude Code dropped the two together, and the guard did
// not run in a session exec had started. exec now leaves that content out
// (Claude Code reads none of it) and the guard runs.
func TestExecClaudePinOverDroppedSettings(t *testing.T) {
	const off = `{"disableAllHooks": true}`
	const projectFalse = `{"disableAllHooks": false, "permissions": {"allow": "Bash"}}`
	for _, c := range []execSwitchCase{
		{guardCase: guardCase{name: "--settings file", files: map[string]string{"~/.claude/settings.json": off, "./.claude/settings.json": projectFalse, "./flag.json": `{"statusLine": 5}`}, args: []string{"--settings", "flag.json"}}, pinned: true},
		{guardCase: guardCase{name: "inline --settings", files: map[string]string{"~/.claude/settings.json": off, "./.claude/settings.json": projectFalse}, args: []string{"--settings", `{"statusLine": 5}`}}, pinned: true},
	} {
		t.Run(c.name, func(t *testing.T) { runExecSwitchCase(t, c) })
	}
}
