// Package gemini is bundlectl's host adapter for Gemini CLI (gemini).
//
// Door: Gemini CLI loads extensions only from <home>/.gemini/extensions/,
// where <home> is $GEMINI_CLI_HOME or the user's home; -e only selects
// among installed ones. For one session bundlectl starts gemini with
// GEMINI_CLI_HOME set to a session directory whose .gemini/ links every
// entry of the user's own .gemini/ (settings, credentials, trusted
// folders, history) except extensions/, which is a fresh directory
// linking the user's own extensions and one view per active bundle; the
// session home links the user's .agents (skills Gemini CLI reads) and
// .env (which Gemini CLI loads when no folder up from the working
// directory has one) too. The
// user's extension enablement is copied in with the views' names removed,
// so a same-named extension the user once disabled cannot silently keep a
// bundle's guards out. Nothing in the user's .gemini/ is written; the
// session directory is removed when gemini exits.
//
// The user's own extensions, which bundlectl never reviewed, are named at
// launch when Gemini CLI will load them (own.go reads them, the -e list and
// the enablement rules as Gemini CLI does); with --exclusive none is
// linked, and a -e naming one is refused. A -e list always gets the views
// added: Gemini CLI loads what it names and nothing else.
//
// A launch whose guards Gemini CLI would not run is refused before it
// starts: hooks off in any settings layer Gemini CLI reads (a system file
// it skips as insecure counts as absent; the workspace's may not be read
// in a folder it may not trust, folder trust read as Gemini CLI may read
// it: a string "false" on or off, as a file failing its schema elsewhere
// keeps the true string; null, or a security that is no object, on), no bash in its PATH (it runs hooks with
// bash -c), or a container sandbox (argument, environment, settings, or
// the .env it loads — none in a folder it surely does not trust, where it
// loads only the API keys from one, nor a variable advanced.excludedEnvVars
// surely keeps out of a project's file, while a SANDBOX it may keep out
// lets nothing through), which sees no extension. What takes
// a view's MCP servers away or replaces them — a folder it may not trust
// (a .env it loads that sets GEMINI_RESTRICTED_MODE=true included, which
// setup refuses, naming each line that sets it: no settings hook runs there),
// a settings mcpServers entry of the same name, mcp.excluded or
// mcp.allowed, another loaded extension declaring the same server name —
// is named at launch: a server is no guard.
//
// Invariants: those of package hosts (hosts/doc.go) hold for every view
// this package builds; what the host cannot be given from a view is named
// at launch (docs/hosts.md), never dropped silently.
package gemini
