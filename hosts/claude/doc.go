// Package claude is bundlectl's host adapter for Claude Code (claude).
//
// Door: Claude Code loads a plugin for one session from a directory given
// with --plugin-dir. A view is such a plugin directory: the manifest
// .claude-plugin/plugin.json (named after the bundle), skills, commands,
// agents and output styles copied from the snapshot, and hooks/hooks.json,
// .mcp.json and .lsp.json whose every process is a bundlectl command
// (hooks exec, mcp, lsp). Nothing of the user's own Claude Code
// configuration is touched; the launch adds one --plugin-dir=<view> per
// bundle before the user's own arguments and replaces bundlectl with
// claude.
//
// The user's own plugins (installed with Claude Code, adopted from its
// skills folder, or named in the user's arguments) are named at launch;
// under --exclusive one --settings argument turns each off for the
// session (carrying the user's own --settings, in a session file), and
// what no session setting can turn off is refused (own.go says what the
// real CLI loads, and in which precedence).
//
// Whether hooks run is read from one model of the settings sources a
// session reads and how their switches combine (switches.go), which exec,
// setup and list share: exec refuses exactly when a view's hooks would
// not run, and when a later source turns hooks back on over an earlier
// true, the one --settings argument of the launch also pins
// "disableAllHooks": false, so that a settings file Claude Code drops as
// invalid cannot bring the true back. Each file is read as Claude Code
// reads it (readSettings): one it ignores whole (a comment, a trailing
// comma, no JSON object, UTF-32 behind its mark, UTF-16 starting with a
// NUL, UTF-16 or UTF-32 behind a UTF-8 mark) counts for nothing, an
// empty one is {}, and a
// user, project, local or --settings file it drops for its schema counts
// for nothing too, as far as tables tried with the real CLI tell (the
// top-level keys' types and nulls, and a few keys' values deeper in,
// hooks and marketplaces among them: schema.go; it errs toward "read", as a file taken for dropped that
// Claude Code reads would be a fail-open for exec). Setup
// refuses a user settings file so dropped: its lines would never run.
// One bundlectl cannot read exec refuses, while setup and list name a
// switch that holds first; a file Claude Code reads that encoding/json
// cannot decode (UTF-16 after a little-endian mark, a number beyond
// float64, nesting deeper than 10000) is such a file, never one Claude Code ignores.
//
// Invariants: those of package hosts (hosts/doc.go) hold for every view
// this package builds; what the host cannot be given from a view is named
// at launch (docs/hosts.md), never dropped silently.
package claude
