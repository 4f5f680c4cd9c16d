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
// Invariants: those of package hosts (hosts/doc.go) hold for every view
// this package builds; what the host cannot be given from a view is named
// at launch (docs/hosts.md), never dropped silently.
package claude
