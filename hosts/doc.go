// Package hosts starts real agent CLIs with exactly the bundles active for
// a workspace (bundlectl exec), and wires bundlectl into their own
// configuration for sessions not started through it (bundlectl setup).
//
// Like database/sql and its drivers, the core calls one interface, Host,
// and each agent has its own package that registers itself: hosts/claude,
// hosts/codex, hosts/gemini. The core never names a host; docs/hosts.md
// says what each one loads and how.
//
// Invariants:
//
//   - What a host loads for a bundle comes from a host view under
//     $BUNDLECTL_HOME/views/<token>/<host>/<name>/, derived from the
//     receipt's inventory and the snapshot only (never the source), after
//     the registry checked the bundle's authority and snapshot. Skills,
//     commands, agents, output styles and context files are copied from the
//     snapshot (a link inside it as the file it names, never as a link or
//     a hard link); hooks (command, http), stdio MCP servers and language
//     servers become bundlectl commands — `hooks exec <bundle> <id>`,
//     `mcp <bundle> <server>`, `lsp <bundle> <server>` — carrying the
//     bundlectl binary, --home and --workspace as absolute paths, so the
//     reviewed original runs from the snapshot after a fresh check.
//   - A view's directory name is a digest of its exact content, so two
//     launches that need different content never share a directory, and a
//     running session's view is never replaced under it. Views are
//     owner-only and read-only (directories 0500, files 0400 or 0500);
//     every launch compares the view on disk with the view it derives
//     (kind, mode, size, bytes, single link, nothing more or less) and
//     rebuilds it — in a temporary directory renamed into place, under a
//     lock — when anything differs.
//   - Only the components meant for the host load: those its own manifest
//     declared and bundlectl's own; a component switched off never does.
//     Whatever a host cannot load, or bundlectl cannot put behind its
//     checks, is named in a notice, never dropped silently.
//   - A view that holds configured option values (a remote MCP server's
//     URL or header that references a user option the receipt declares,
//     View.HoldValues) is built in the session directory, never in the
//     shared views directory, and removed with the session; such a value
//     is never put in the host's environment, printed, or put where the
//     host would expand it again.
//   - A bundle whose snapshot fails its check at launch loads its hooks
//     alone (from the receipt), so each blocks the event it guards rather
//     than vanish: a guard never fails open. An unusable state file stops
//     the launch.
//   - A host whose own settings (or arguments) would keep a view's hooks
//     from running is not started, and one whose guards would run is:
//     each host's settings layers are read in its own precedence, one
//     model that exec, setup and list share, with the layers exec's own
//     arguments replace or exclude judged as the host will see them.
//     Claude Code's disableAllHooks (the last source that sets a
//     boolean decides) or managed allowManagedHooksOnly, --bare or safe
//     mode (also when set in the "env" of a settings file it applies),
//     or an enabledPlugins entry turning a view off (its user file being
//     cowork_settings.json under CLAUDE_CODE_USE_COWORK_PLUGINS), or a
//     managed disableSideloadFlags (no --plugin-dir loads); a Claude
//     Code session whose settings turn hooks back on over an earlier
//     true gets "disableAllHooks": false pinned in its own --settings,
//     as the host drops a settings file it finds invalid, and the true
//     would hold again; Gemini CLI's hooksConfig; a Codex
//     managed_config.toml turning plugins or hooks off (otherwise Codex
//     gets features.hooks=true); a Gemini CLI -e list gets the views it
//     leaves out added. A view has hooks when it holds a hooks file or
//     a document whose front matter has hooks (BuiltView.Hooks). The
//     refusal (HooksOffError) says what sets it — a pattern that matches
//     the line of the file, the indexes of the argument, the variable —
//     so that its hint leads to the fix as printed. Setup refuses the
//     same switches in the settings files a session started in its
//     workspace reads, in the host's own precedence, each file parsed as
//     the host parses it (a byte order mark, comments; a file the host
//     ignores counts for nothing, and never hides a later one), writing nothing
//     (HooksGate, SetupHooksOffError): its lines would never run there. A
//     switch the host reads only once it trusts the workspace counts as
//     read; one that holds in some sessions only (a Codex profile's, or
//     the user's where the workspace's settings undo it) does not stop
//     setup, which says it (HooksOffWhen, SetupCaveats). list reads the
//     same layers for the workspace it lists (CheckSetups).
//   - The user's own plugins (installed with the agent itself, never
//     reviewed) are named in a notice when they load beside the views.
//     With Options.Exclusive they are kept out by arguments, environment
//     or the session directory alone; what a session cannot override (a
//     managed policy, the user's own argument) stops the launch
//     (NotExclusiveError, ArgumentError), never a silent load.
//   - The user's own configuration is not written by exec: Claude Code
//     takes --plugin-dir; Codex gets -c flags (merged over config.toml) and
//     one link in its plugin cache, removed when it exits; Gemini CLI gets
//     a session GEMINI_CLI_HOME that links the user's own. Setup writes the
//     user's files atomically, only when they change, keeps the previous
//     content, and undoes exactly. It (and --undo) checks every file it
//     would write before it writes any, so a refusal leaves all as they
//     were (planSetup, planUndo), and each again just before its own
//     write (applySetup, applyUndo); --undo undoes the files of setups run
//     with its own $HOME only (SetupFile.Home), naming the others; --undo writes its record without a
//     file before it removes that file's backup; the backup of a file new
//     to the record is the file without this home's setup's entries (it
//     may hold them already; another home's are kept, holdsLinesOf), and --undo never removes or replaces a symbolic link found
//     where setup created a file (UndoResult.LinkKept), nor reads it, so
//     that one to no regular file is kept too. It never writes a file the user made
//     read-only, one in a directory made read-only or not the user's to
//     write, or one with other hard links (ReadOnlyError,
//     ReadOnlyDirError, HardLinksError), nor one that changed since it read it (on Linux
//     checked by exchanging the names: replaceChecked); a temporary file
//     of a setup killed before its rename is removed by the next only when
//     setup can prove it made it and its writer is gone: its name carries
//     a tag keyed with this home's own key (pendingKey, pendingTag), chosen
//     before the O_EXCL create, so no repository, user file or other home
//     has it and an empty file so named is setup's, and the lock file
//     beside it, which the writer holds locked for its lifetime, is not
//     locked (a pid may be another namespace's); a file without that tag
//     is never removed, opened or written through, whatever it holds or
//     is; one whose writer is gone is removed only when it is empty, the
//     very file its writer created, or exactly what it read (the device,
//     inode and digest its lock file notes: pendingRemovable), and any
//     other (a host's write an exchange handed to a killed setup, a file
//     keepReplaced could not rename) is kept under a kept name and named
//     (leftover). A key that is not a regular file of 32 bytes (read without
//     waiting, so a named pipe never holds the setup lock) stops setup
//     and --undo (PendingKeyError), and so does a record that is not a
//     regular file (RecordError). Setup's own record and backup
//     temporaries are removed under the setup lock, which their writers
//     hold. It reads a JSON file as its host does
//     (JSONSyntax: Gemini CLI's with comments) and writes back every byte
//     outside its own entries; each comment is kept, in its order, or the
//     edit is refused (CommentError).
//   - Whether hook lines setup wrote are current is read from setup's
//     record and the one configuration file, nothing more (CheckSetup):
//     hooks run asks it at every SessionStart through SetupStale, which
//     harness.HookRun.SetupCheck takes as a function value, as harness
//     cannot import hosts. Lines of setup's count only when they run
//     that home (--home; StaleSetup.OtherHome when all run another's). A file of setup's lines in which bundlectl
//     finds none is called gone only when bundlectl reads it as the host
//     does: one the host reads and bundlectl cannot (UnreadableConfig:
//     UTF-16, values nested past 10000, a key written twice) is
//     unreadable, whether the lines are
//     there untold; one the host does not parse (ConfigParse) names its
//     line (or, written in an encoding the host does not decode,
//     EncodingError, the command that rewrites it), setup (which refuses
//     it) being no fix; one no one can read
//     now (a directory, a link in a loop or to nothing) is gone, with why.
package hosts
