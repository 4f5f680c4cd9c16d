// Package codex is bundlectl's host adapter for Codex (codex).
//
// Door: Codex has no per-session plugin directory. It loads a plugin from
// $CODEX_HOME/plugins/cache/<marketplace>/<plugin>/<version>/ when config
// enables "<plugin>@<marketplace>", and runs a plugin's hook only when its
// trusted_hash is recorded under hooks.state. For one session bundlectl
// makes cache/bundlectl-<session> a symbolic link to a session directory
// holding one link per view (each view holds the real version directory
// "local"), and passes -c flags that turn the plugins feature on, enable
// exactly those plugins and trust exactly their hooks; Codex merges -c
// tables over the user's config.toml, so the user's own plugins and hook
// trust stay as they are. The link is removed when Codex exits (or, after
// a crash, by the next launch); nothing else in CODEX_HOME is written.
//
// The user's own plugins (FindOwnPlugins) are named at launch (one a
// project file enables that an interactive session reads only once the
// user trusts the folder in Codex's dialog, with that condition; none
// where a subcommand such as codex login starts no session; with
// --remote, which runs the session under the app server's configuration,
// only with the condition that the server reads this one); an
// exclusive launch disables each in the same -c plugins table, which
// outranks every configuration file but /etc/codex/managed_config.toml,
// and refuses to start when that file enables one. A launch whose views
// /etc/codex/managed_config.toml or /etc/codex/requirements.toml would
// keep from loading, or whose hooks they would keep from running
// (ManagedFeatureOff, RequirementsOff), is refused; so are the user's own
// -c plugins… arguments that would replace exec's plugins table, set a
// view's entry or, under --exclusive, enable a plugin of the user's own
// (PluginArgError, a usage error).
//
// Setup and list read the layers a session started in the workspace
// reads, and for a --worktree session the project files as committed at
// HEAD (worktreeHooksOff), which such a session reads instead of the
// working copy's.
//
// Invariants: those of package hosts (hosts/doc.go) hold for every view
// this package builds; what the host cannot be given from a view is named
// at launch (docs/hosts.md), never dropped silently.
package codex
