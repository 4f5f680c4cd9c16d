// Package sources resolves where a bundle comes from and fetches it into
// a fresh directory, trusting nothing it fetches. The caller (install,
// update, sync) validates the result, renames it into a root, and records
// Result.Source in state and the lockfile.
//
// # Source kinds
//
//   - A local directory, copied as it is but for any .git (a checkout's
//     repository, a submodule's .git file: IsGitDirName) (KindDir).
//   - A git repository (KindGit): a local path, a file://, https:// or
//     ssh:// URL, or scp-like user@host:path; Request.Ref names a branch,
//     tag or full commit id (default: the remote's HEAD); the result always
//     records the full commit it resolved to. A local path is a directory
//     unless a ref is given, Kind is KindGit, or it is a bare repository.
//   - <plugin>@<marketplace> (KindMarketplace), the marketplace being a
//     directory or a git repository holding a Claude Code or a Codex
//     catalogue (fields below). Request.Ref applies to a git marketplace.
//   - An archive (KindArchive): .tar.gz, .tgz or .zip, a local path or an
//     https:// URL, always with a sha256 pin (Request.SHA256).
//
// Request.Subdir selects the bundle's directory inside a directory, a
// repository or an archive.
//
// # Marketplace catalogues (the fields read; every other key is ignored,
// as the hosts ignore it)
//
// Keys are read by their exact names, as Claude Code (JSON.parse) and
// Codex (serde) read them: "URL", "Plugins" or "PluginRoot" is another,
// ignored key, never the field (encoding/json alone would match it). A
// UTF-8 byte-order mark before the JSON is skipped in a Claude Code
// catalogue, as Claude Code skips it, and refused in a Codex one, as Codex
// refuses it.
// A key written twice counts with its last value in a Claude Code
// catalogue (JSON.parse); in a Codex one it is refused when Codex refuses
// the file for it (serde: in the top-level object, an entry, an entry's
// policy), as are an entry or policy that is no object and an unknown
// policy.installation (null included), and an entry whose source repeats a key, which
// Codex does not install (checkCodexCatalogue).
//
// Claude Code, <root>/.claude-plugin/marketplace.json: name (required, a
// valid name), owner (required, as Claude Code refuses the marketplace
// without it: an object whose name is a non-empty string, its email if
// any a string: checkClaudeOwner), metadata.pluginRoot (base of bare relative sources, inside
// the marketplace), plugins[] (required). An entry: name, source, strict
// (default true); every other key except the listing-only source, strict,
// category, tags and relevance is manifest material (see strict below).
// Sources: "./path" (relative to the marketplace root; a bare "path" only
// with pluginRoot); {"source":"github","repo":"owner/repo"};
// {"source":"url","url":…}; {"source":"git-subdir","url":… (or
// owner/repo),"path":…}; the three git kinds take optional "ref" (branch
// or tag) and "sha" (full commit id; when both are set the sha is fetched,
// and when a server refuses to serve a commit by id the ref is fetched
// with its history and must reach the sha). "npm" and "pip" are refused:
// bundlectl does not run package managers to fetch a plugin.
//
// Codex, <root>/.agents/plugins/marketplace.json: name, plugins[]; an
// entry: name, source ("./path", {"source":"local","path":"./…"},
// {"source":"url",…}, {"source":"git-subdir",…}, as above),
// policy.installation (NOT_AVAILABLE is refused). Codex entries define no
// components.
//
// When a marketplace has both catalogues, Claude Code's is read first;
// Request.Format chooses one. Two entries with the plugin's name are
// refused rather than one picked.
//
// # Entries that define components (strict)
//
// Claude Code reads a marketplace entry as the plugin's manifest when the
// plugin ships no .claude-plugin/plugin.json (whatever strict says).
// Fetch then writes the entry, without its listing-only keys, to
// .claude-plugin/plugin.json in the fetched tree (Result.Generated says
// so), so the ordinary reader reads it and the content hash covers it.
// When the plugin ships a plugin.json and a strict: false entry defines
// components (commands, agents, skills, hooks, outputStyles, themes),
// Claude Code refuses to load the plugin ("conflicting manifests"); Fetch
// refuses it too, naming both. Claude Code refuses even when the shipped
// plugin.json itself declares no components, and so does Fetch. When a
// strict: true entry adds such components to a shipped plugin.json,
// Claude Code merges the two; Fetch refuses rather than review less than
// would run (mcpServers and lspServers of such an entry are ignored by
// Claude Code, and are not written either).
//
// # Git
//
// Git runs as the system git binary. The project does not add a large Go
// git library without a reason, and the system git is what users'
// marketplaces and the hosts themselves use: the same transports, ssh
// setup, proxies and partial-clone support. It is hardened: a clean
// environment (PATH, a scratch HOME — the real one only for ssh, with
// SSH_AUTH_SOCK — proxy and CA variables, nothing else),
// GIT_CONFIG_NOSYSTEM=1 and GIT_CONFIG_GLOBAL=/dev/null, no prompt
// (GIT_TERMINAL_PROMPT=0, GIT_ASKPASS and SSH_ASKPASS empty, ssh in batch
// mode), and command-line configuration that outranks everything else:
// no hooks (core.hooksPath=/dev/null), no credential helper, no fsmonitor,
// no LFS or other filter, no submodules, no redirects to other hosts,
// fsck of every received object, and only the file, https and ssh
// transports (protocol.allow=never; ext::, git:// and http:// are
// refused). URLs with credentials, a query or a fragment are refused, so
// nothing secret is ever recorded or printed. A scratch bare repository
// fetches the one commit as a partial clone (no history, blobs only for
// the chosen subdirectory, in one request), and files are read as raw
// blobs with git cat-file: nothing is checked out, so no attribute,
// filter or hook of the repository can run. Only the two commands that
// transfer objects may reach the remote (the fetch of the commit, and one
// request for the blobs of the chosen subdirectory), both within the
// transfer bound below: every other git command runs with every transport
// refused, so one that meets an object the server left out cannot fetch
// it on its own (a partial clone's "lazy fetch", outside the bound), and
// objects still missing after the blobs' request are refused by name.
// Each git process runs in its
// own process group, killed with every helper it started when the fetch
// times out (Options.Timeout, default DefaultTimeout); the error names the
// source. When bundlectl dies (even of SIGKILL, Linux) git gets the
// parent-death signal; so that the helpers it started (upload-pack,
// pack-objects, index-pack, remote-https, ssh) die with it, git starts as
// the init of a PID namespace of its own (a user and PID namespace
// without CAP_SYS_ADMIN, mapping only this process's ids, but for an ssh
// remote or a process running as the overflow uid, for which that map
// would change what ssh or git's ownership check decides), whose end the
// kernel ends everything in — an ssh ControlPersist master too — where
// the system lets this process make one (probed once); elsewhere they run
// on until they find git gone (a closed pipe) or their network wait ends,
// but ssh, which git runs through setpriv --pdeathsig KILL where a setpriv
// on PATH knows that option (probed once), and so dies with git.
// A repository whose transfer
// grows beyond four times the total-size limit (plus 64 MiB) is stopped.
//
// # Invariants
//
//   - Fetch writes only inside the caller's parent directory: the result
//     (TempPrefix) and a scratch directory (ScratchPrefix), which is
//     always removed. On any failure nothing is left in the parent.
//     The parent is opened once (or given opened, Options.Parent) and
//     everything is made, written and read back through it by names
//     relative to it, never by its path again; git runs in the scratch
//     directory entered through its descriptor (/proc/self/fd, Linux),
//     on a bare repository named relative to it, with PWD naming that
//     descriptor, so the absolute paths git gives its lock files go
//     through it too. ssh, which may outlive git (a ControlPersist
//     master, where git runs in no PID namespace), starts in / without
//     that descriptor. Every other program
//     git starts keeps it; git waits for each, and on Linux, once git has
//     exited (and before it is reaped), what is left of its process group
//     — a helper that outlived a git killed from outside — is killed.
//     git gets every other descriptor of this process that is not
//     close-on-exec, as any exec does: a caller must mark the ones it
//     inherited (bundlectl's install, update and sync do), or an ssh
//     master that outlives the fetch keeps them open. Where that cannot be done (macOS; Linux without
//     /proc) git is started there by its path only when no other user
//     may write a directory on it (one that is sticky aside), and the
//     fetch is refused (ErrRefused) otherwise.
//   - Every fetched entry, from any kind of source, goes through one
//     writer that refuses: paths that are absolute or leave the tree
//     (".."), names that break the tree rules (bundle.CheckName) or
//     collide under NFC and case folding, a name git takes for a
//     repository's directory (IsGitDirName, as git's own check of a
//     received tree refuses it: its config would run for any git command
//     started there), a directory shaped as a bare repository under any
//     other name (HEAD beside objects and refs: git takes it for one, from
//     it or below it; names compared as git finds them: exactly on Linux,
//     unless the file system finds them under another case there, and
//     under case folding elsewhere: gitNamesFold) or as a linked worktree's
//     git directory (HEAD beside commondir, which names where git finds
//     its objects, refs and config), the same path twice, device
//     files, FIFOs, sockets, and trees over the bundle limits (entries,
//     per-file and total bytes, depth, path length, a name longer than
//     MaxPathNameBytes, which no file system takes; declared sizes are
//     checked before anything is read, actual sizes while writing). A
//     symbolic link is kept only in a directory or repository and only
//     when its target resolves inside the tree to a regular file; an
//     archive may hold no link at all. Files are created O_EXCL below an
//     os.Root: nothing is written outside the result. Modes are
//     normalised: directories 0755, files 0644, or 0755 with any
//     executable bit; setuid, setgid and sticky bits are dropped.
//   - A marketplace entry's path stays inside the marketplace: no "..",
//     no absolute path, no symbolic link on the way (in a directory or in
//     a repository). A marketplace fetched from elsewhere may not point at
//     this machine (file:// entries are refused); the bundle and plugin
//     names pass CheckName.
//   - An archive is copied into the scratch directory while its sha256 is
//     computed, as the file's bytes (a download asks for no content
//     encoding, and undoes none a server labels it with); nothing is parsed before the pin matches, and only the
//     copy is read. Every member is checked, extracted or not. A single
//     top-level directory is unwrapped when it holds a manifest
//     (.claude-plugin, .codex-plugin, plugin.json, plugin.toml,
//     gemini-extension.json); Subdir is looked up at the archive root,
//     then inside such a directory.
//   - Network access happens only for a remote source (https, ssh), and
//     only to the hosts the source and its marketplace entry name, but for
//     an archive download's redirects (at most five, https only, any host:
//     a release asset's CDN), where the sha256 pin decides.
//   - Reading an archive is bounded by the fetch's context and the limits
//     whatever its headers say: tar members and global headers count
//     against the entry limit, the decompressed stream is capped, and a zip's directory records are
//     counted before zip.NewReader builds them.
//   - Resolved records enough to fetch the same bytes again (FetchLocked)
//     and holds no credential; its String is stable and terminal-safe.
package sources
