// Package harness is the runtime an agent embeds. Load returns an
// immutable Registry of the bundles that are active now; the Registry
// serves their skills, commands and agents, and runs their tools, hooks
// and stdio MCP servers from the verified snapshots. Below it, the
// process-execution and hook layer (Run, Exec, FireChain) knows nothing of
// trust state.
//
// Invariants of the registry (docs/harness.md):
//
//   - Load reads the state file (its current decisions, not the audit
//     trails) and lists the roots; it never walks or parses a source.
//     Only active bundles load: enabled, trusted, with a receipt whose
//     inventory hashes to its capability hash and is of this schema,
//     applicable, not blocked, not shadowed. What runs comes from that
//     inventory and the snapshot at $BUNDLECTL_HOME/store/<content hash>.
//     An unusable state file fails Load: nothing is active.
//   - A HooksOnly registry decodes at load only each inventory's summary
//     (schema, hooks, when, inactive); the whole inventory is parsed
//     strictly as part of the check before anything of that bundle runs,
//     and a bundle whose inventory does not parse is refused.
//   - Every boundary — each spawn, each Content call, each Catalog —
//     re-checks authority: the state file is re-read when its identity
//     (inode, size, mtime, ctime) changed, and the bundle must still be
//     enabled and trusted for the same receipt and generation, in its
//     root and not shadowed. It re-checks the integrity of that bundle's
//     snapshot only: a long-lived registry through inotify on every
//     directory and file of the snapshot plus the inodes of its
//     ancestors, a one-shot one (NoWatch) by a walk compared with the
//     fingerprint record of its last full verification; anything else is
//     a full re-hash before anything runs. Checks of different bundles
//     run concurrently: one bundle's re-hash holds up only the uses of
//     that bundle, whose checks run one at a time (the registry's lock
//     covers the state view only, and is never held with a bundle's).
//   - A failure is an *AuthorityError matching one sentinel (ErrDisabled,
//     ErrRevoked, ErrStale, ErrRemoved, ErrShadowed, ErrSwitchedOff,
//     ErrTampered, ErrNotActive; ErrReceiptUnusable also matches
//     ErrNotActive) and lifecycle.ErrRefused, naming the bundle, the
//     reason and the fix; nothing runs. A guard that cannot
//     run blocks its event (never fails open): that includes a bundle whose
//     receipt cannot be used (it blocks every blocking event: which it
//     guards is unknown) and one whose directory is gone, or whose name a
//     bundle that is not active took, while the state still trusts and
//     enables it (Inactive.Blocks). Only the user's own choices — disable,
//     revoke, uninstall, a switch, shadowing by a bundle they trusted and
//     enabled — stop a guard without blocking.
//   - Skill, command and agent content is read from the snapshot at each
//     call, after the check, and counts only if no change event arrived
//     between the check and the check after the read — whatever checks
//     of the same bundle other goroutines made meanwhile (no check
//     consumes an event another needs: the watcher counts them).
//   - Load refuses options it could not honour (an unknown Host, a
//     timeout over MaxTimeout); a Registry Load did not make blocks every
//     event. What Active, Bundles, Catalog and Inactive return is a copy:
//     changing it changes nothing the registry runs or blocks.
//   - A process gets only the options its receipt's inventory declares:
//     the stored value, else the declared default; a Gemini CLI setting
//     also under its envVar. A value is passed as Claude Code passes it,
//     JavaScript's String(): a list joined with ",", a number as
//     String(Number(text)) (internal/optvalue).
//   - A shell-form hook (a host's command string) runs as its host runs
//     it: Claude Code /bin/sh -c, Codex the user's login shell -c, Gemini
//     CLI bash -c (the host the registry serves, else the first that
//     declares it). When that shell is missing, an event a hook can block
//     is blocked, never let through.
//   - "./" commands resolve inside the snapshot; PLUGIN_ROOT is the
//     snapshot, PLUGIN_DATA is $BUNDLECTL_HOME/data/<bundle-id> (0700,
//     kept across updates). Tools and hooks run in the workspace; stdio
//     MCP servers in their cwd, default the snapshot.
//   - While a tool, hook or stdio server runs, its bundle's authority and
//     its own switch are re-checked every PollInterval (200 ms); a
//     disable, revoke, switch, new generation or tamper cancels it and
//     kills its process group.
//
// Invariants of the execution layer:
//
//   - A child is started from a Spec whose Argv[0] is an absolute path,
//     with Argv passed to execve as is: never a shell, never a PATH search
//     at spawn time (LookPath searches absolute PATH entries only, when
//     the caller resolves a bare name). Caller input reaches the child on
//     stdin only.
//   - The environment is exactly Spec.Env; nil means empty, never the
//     parent's. BuildEnv makes it from nothing: allowlisted host variables,
//     the reviewed env, env_from copies, then PLUGIN_ROOT and PLUGIN_DATA.
//     DeniedEnvName is the single denylist of loader- and
//     interpreter-steering names, shared with validation.
//   - Every child leads its own session and process group (setsid: no
//     controlling terminal, and no descendant can join bundlectl's own
//     group). On every way out — exit, timeout, cancellation — the whole
//     group is SIGKILLed before the leader is reaped (on Linux
//     waitid(WNOWAIT) keeps the group id reserved, so the kill cannot
//     reach a recycled pid). A process that escaped the group and the
//     containment level is not waited for beyond DrainGrace.
//   - On Linux a child is SIGKILLed if bundlectl dies (Pdeathsig; the
//     starting goroutine stays locked to its OS thread until the child is
//     reaped, because the signal is tied to that thread).
//   - Children start through syscall.ForkExec and are waited for by pid,
//     not through os/exec: the first os.StartProcess of a process probes
//     pidfd support by forking a throwaway child, 0.2 ms of a one-shot
//     run or hook call, and a pid is as safe here — the leader cannot be
//     reaped by anyone but its reaper (the subreaper sweep skips
//     registered children). The environment keeps the last entry of a
//     name given twice, as os/exec did.
//   - A child gets Stdio as its descriptors 0-2 — and, as with any exec,
//     every descriptor of this process not marked close-on-exec. Go opens
//     none such; an embedding program that inherited or made one must
//     mark it (the bundlectl commands that run bundle code mark every
//     descriptor above 2 close-on-exec first).
//   - Containment beyond the group: Containment reports the level in
//     force, for bundlectl to print. It is decided once per process: the
//     first child starts at the strongest level the caller's credentials
//     may get, and only if the kernel refuses that start does a probe (a
//     clone into the namespaces that execs nothing, a third of a spawn)
//     pick the level; Containment probes if no child has started yet. A
//     caller with CAP_SYS_ADMIN (root) gets the PID namespace; another
//     user but the overflow uid (internal/overflowid) the user and PID
//     namespace where unprivileged user namespaces are allowed
//     (user.max_user_namespaces > 0, no
//     kernel.apparmor_restrict_unprivileged_userns or seccomp policy
//     against them); otherwise Linux gives the subreaper, and other
//     systems the process group. Once decided the level never weakens:
//     a later start the kernel refuses with ENOSPC (the namespace limit
//     reached meanwhile) is a *StartError, nothing runs, and its Hint is
//     a command that lists the user namespaces. Before the first child,
//     a probe the kernel refuses with ENOSPC where the namespace limits
//     are above zero (namespaces used up, not turned off) still decides
//     the namespace level, and the start fails the same way: another
//     process of the user cannot choose the subreaper for this one.
//   - ContainPIDNamespace (CLONE_NEWPID) and ContainUserPIDNamespace
//     (CLONE_NEWUSER|CLONE_NEWPID, mapping only the caller's uid and gid)
//     make the child the init of a new PID namespace: when it exits or is
//     killed the kernel kills every process in the namespace, setsid and
//     double-forked ones included, before the child can be reaped; a
//     SIGKILLed bundlectl's Pdeathsig kills the init and so all of them.
//     Not covered: the child sees itself as pid 1 and getppid() as 0,
//     while /proc (not remounted) shows the outer namespace, so /proc/$$
//     is the wrong process; as init it ignores every signal it has no
//     handler for, even SIGTERM from outside (only SIGKILL is forced); it
//     reaps the orphans of its own descendants, so a long-lived server
//     that does not leaves zombies in its namespace until it exits. In a
//     user namespace, unmapped ids (root's files) show as the overflow id
//     65534 and setuid binaries (sudo, ping) gain no privileges: ssh
//     refuses a ~/.ssh/config root owns there. The namespace is kept for
//     that (only it holds descendants when bundlectl is SIGKILLed).
//   - ContainSubreaper (PR_SET_CHILD_SUBREAPER) re-parents orphaned
//     descendants to bundlectl; when a call ends, every adopted orphan is
//     killed and reaped with everything below it, however deep (found
//     through /proc and signalled through pidfds, so a reused pid is
//     never hit; 1024 a round, the rest in the next; where pidfds are
//     missing (Linux before 5.3) or refused (a seccomp policy), one level
//     a round), round after round while processes forked during a round
//     are orphaned in turn (at most 64 rounds), except orphans still in the
//     group of a call that is running and processes in bundlectl's own
//     group (an embedding program's children; one it started in a group
//     of its own is taken for an orphan). A setsid orphan of a running
//     long-lived server dies when any other call ends; while Exec runs,
//     adopted orphans that exit are reaped on SIGCHLD. Not covered:
//     descendants of a SIGKILLed bundlectl (only the direct child dies),
//     and a descendant that forks faster than the sweep kills.
//   - ContainProcessGroup (the last resort): a setsid descendant survives
//     its call, and every descendant survives a SIGKILLed bundlectl. No
//     level covers a process started on a child's behalf by something
//     outside its tree (systemd-run, at, cron, a container engine, a
//     process it ptraces).
//   - stdout and stderr are read separately to EOF; at most MaxOutput
//     bytes of each are kept (DefaultMaxOutput, 1 MiB), the rest is read
//     and discarded, so a flooding child neither blocks nor exhausts
//     memory.
//   - Timeouts: DefaultToolTimeout 30 s, DefaultHookTimeout 60 s, at most
//     MaxTimeout 600 s; a larger Spec.Timeout is refused, not clamped. A
//     host hook whose own timeout is longer (HookWaitsPastLimit) runs with
//     MaxTimeout, and timing out then blocks a guard's event, as its host
//     would still be waiting for its answer. A guard that cannot start
//     (*StartError) blocks its event.
//   - Run's error means nothing ran (*SpecError, *StartError, a done
//     context). A child that started always gives a Result; a timeout or a
//     cancellation is a Result with TimedOut or Canceled, and Result.Err
//     turns it into an *ExitError that wraps context.DeadlineExceeded or
//     context.Canceled.
//   - Exec supervises a long-lived child with stdio passed through rather
//     than replacing bundlectl, so that cancelling its context (a revoked
//     trust) still kills the whole group; it forwards SIGINT, SIGTERM,
//     SIGHUP and SIGQUIT to its group (less one this process was started
//     ignoring, which the child then ignores too), and SIGKILLs the group
//     (and so its namespace) SignalGrace (5 s) later if the child still runs:
//     bundlectl does not die of a signal it forwards, and an init ignores
//     one it has no handler for. It subscribes to them before the child
//     starts, so there is no moment when one of them ends bundlectl while
//     the child runs.
//   - ExecFiltered is Exec with ProxyMCP between the client and a server
//     under an MCPPolicy — a tool filter and a per-call timeout, both from
//     the review by MCPPolicyOf (with neither it is Exec, a straight copy):
//     tool lists lose the tools the filter refuses, page by page; a
//     tools/call of one is answered by the proxy with a JSON-RPC error
//     and never reaches the server. It fails closed: a client message it
//     cannot read (not UTF-8 JSON, over MaxMCPMessage, a call without a
//     readable tool name) is answered with an error and not forwarded; a
//     server line it cannot read is dropped unless it cannot name a tool.
//     A line over MaxMCPMessage is scanned as it passes, never held, for
//     its top-level id wherever it is, and whoever waits for an answer to
//     it gets an error under that id — the client for a request or a
//     server reply, the server for its own request or a client reply — so
//     no call waits for a message the proxy dropped. A client line is read
//     so as the proxy reads the same line within the limit: the same id,
//     the same request or reply, none when it is not UTF-8. A line
//     within the limit nested deeper than encoding/json reads (10000
//     levels), which the proxy cannot judge, is not relayed and is
//     answered so too, from the same scan. A batch,
//     the client's or the server's, is read message by message so. The
//     scan keeps at most 16 MiB of ids a line (what a line within the
//     limit holds: any id such a line has is answered under) of at most
//     4096 messages (a server reply whose id it did not keep, past them
//     or past those bytes, ends no call: the call runs to its timeout,
//     the reviewed one when there is one, else the host's, and a notice
//     says so); a client batch's requests past that get no answer, and a
//     notice counts them (requests with an id only: no notification or
//     reply), the others each theirs. No error goes under id null: a
//     client line or message with no id the proxy can read (not UTF-8
//     JSON, an id null) is reported on stderr alone (unanswered). A
//     batch refused for a filtered call is answered for its requests
//     only: a reply in it is under the server's id, which a request of
//     the client's may share.
//     Neither its ids nor a long line's buffer are held once the next
//     line is read.
//     Every such error ends with the hint line "bundlectl: hint:
//     bundlectl mcp --help" (limitError), the help that names the limits.
//     The proxy's own errors carry an id as its line wrote it (not
//     escaped as json.Marshal would, six bytes for a "<") and are written
//     from the scan's id, never built whole; no line is copied to be
//     written; and a notice shows at most 256 bytes of an id.
//     Member names are matched in any letter case and every duplicate is
//     checked, so no lenient reader sees what the proxy did not. A server
//     batch within the limit reaches the client one message object a
//     line, each settled as one alone, as the one over it is answered a
//     line each: no host reads a batch, so an answer relayed in one would
//     stop its call's timer while the host waits on to its own timeout.
//   - ServeMCP (and ExecFiltered and ProxyMCP given MCPPolicy.CallTimeout)
//     times each tool call by the server's reviewed per-call timeout
//     (MCPCallTimeoutOf; none reviewed, none timed): a tools/call request
//     the server has not answered within it is answered by the proxy with
//     a JSON-RPC error (-32001) under its id, the server is sent
//     notifications/cancelled for it, and its late answer is dropped, so
//     each host gets the reviewed wait whatever its config entry says.
//     One timer per outstanding call, counting its running time from its
//     forwarding: notifications/progress do not extend it, as no host
//     extends its own per-call wait for them; for Codex only (its
//     initialize's clientInfo.name; no pause for any other client, as no
//     other host pauses its own), while an elicitation/create request of
//     the server (a strict one: jsonrpc "2.0", no member repeated,
//     params an object, an id Codex reads, as Codex's serde reads one)
//     is open (relayed to the client, not yet answered or
//     cancelled by the server) every timed call of the server is paused
//     and resumes with the time it had left, so time spent running adds
//     up across elicitations and a call never runs longer than the
//     timeout; no pause outlives a client line the proxy does not forward
//     (a reply in it ends its elicitation, the server getting an error; an
//     unreadable line, or a reply under id null, ends every pause, over
//     MaxMCPMessage too), nor
//     a client error with no id (how Codex answers a message it cannot
//     read), forwarded or not; a message with a member named "method" in
//     any letter case is a request there as everywhere in the proxy,
//     never a reply; other requests are not timed.
//     Open elicitations held are bounded (maxOpenElicitations).
//   - A proxy that times calls forwards every client request under an id
//     of its own (1, 2, 3 …, never reused in a session; every member
//     named id in any letter case, no other byte of the request changed)
//     and puts the client's id, as written, back on the server's answer;
//     a client's notifications/cancelled gets the proxy's id of the
//     request it names, or is not forwarded when it names none the proxy
//     awaits (mcpids.go). A server reply is relayed only as the answer
//     to a request the proxy awaits, so the client never gets two
//     answers under one id, nor a late answer (to a call the proxy
//     answered, or one the client cancelled) for a later request under
//     the same id; a reply under id null answers none the proxy sent and
//     is dropped with a notice (relayed before Codex's initialize answer,
//     it kept Codex from starting the server), as a proxy that only
//     filters tools, and settles nothing, drops one whose last id is
//     null (nullIDReply). A reply settles a request only with exactly one member
//     named exactly id (what JSON.parse and serde read), and only of the
//     strict shape {"jsonrpc":"2.0","id","result"|"error"} with nothing
//     else, all every host reads as an answer; any other is dropped and
//     its call stays timed. An over-long reply ends the call its relay
//     would (msgScanner.reply), with the proxy's error. The server's own
//     requests, the client's replies to them and notifications keep
//     their ids and bytes. It refuses (-32600) a request whose id it
//     could not put back: not a string or a number, longer than 4 KiB,
//     a message with both a method and a result or an error, or a
//     notifications/cancelled with an id (its requestId unmapped). The
//     client's other requests awaited at once are bounded
//     (maxTrackedIDs): past it the oldest is answered with an error and
//     cancelled at the server. So are the calls it times at once, paused
//     or not: past the bound a call is not sent, and the client gets an
//     error for it.
//   - Tool input is validated before spawning: one JSON value, no
//     duplicate keys, at most MaxInputBytes, matching the params schema.
//     Schemas are compiled offline; every URL reference is refused.
//     Errors name instance paths and never repeat input values.
//
// Invariants of the hook layer (docs/hooks.md is the full contract):
//
//   - A hook gets Claude Code's hook input on stdin: the caller's event
//     object, its keys in the caller's order and unknown fields as
//     written, hook_event_name set to the event fired (where the hosts
//     put it, when the input lacks it), and tool_input replaced by the
//     latest updatedInput of an earlier hook in the chain (where the
//     hosts put it, after tool_name, when the input lacks it), written as
//     the hosts write it ("&", "<" and ">" not escaped). An event built
//     from HookEvent's fields, read from no input, is written in Claude
//     Code's order with the fields the hosts write whatever their value
//     at their zero value (writtenAtZero). The fields
//     bundlectl reads (cwd, tool_name, hook_event_name, ...) are read by
//     exact key, as the hosts read them. Under a Gemini CLI "sequential"
//     group the next hook is given the earlier answer spread over its
//     input as JavaScript spreads it, written as JSON.stringify writes
//     it. A rewrite runs the chain again on the new input; a permission
//     "ask" from any round stands unless a later one blocks.
//   - A matcher is an RE2 expression anchored to the whole tool name;
//     "" and "*" match all; events without a tool ignore it.
//   - Matching hooks run serially in the order given and the chain stops
//     at the first block (exit 2, decision "block", permissionDecision
//     "deny"; decision "deny" on an event only Gemini CLI fires) or
//     "continue": false. Exit 2 on an event the host lets no hook block
//     (Claude Code's, bundlectl's own contract's and Codex's
//     non-blocking events, bundle.Exit2Blocks) is a failure instead, and
//     the chain goes on. Any other failure — another exit status, a
//     timeout, malformed output, a start error — is reported in
//     Outcome.Errors and does not block. On an event only Gemini CLI
//     fires, a hook's answer is read as Gemini CLI reads it, whatever its
//     exit status but 2, a signal's read as 0 (geminiExitAnswer): stdout,
//     or stderr when stdout is empty, trimmed as JavaScript trims (a byte
//     order mark too), a JSON string there decoded once more; when that
//     output was cut at the output cap, a guard's event is blocked
//     (AnswerCut).
//   - On Gemini CLI's BeforeToolSelection nothing blocks or stops the
//     chain: every hook runs, their toolConfig answers merge as Gemini CLI
//     merges them (MergeToolConfigs), and a guard that cannot run, an
//     answer Gemini CLI would misread, or a refused chain offers no tools.
//     Gemini CLI's other answers (BeforeTool tool_input, which replaces
//     the arguments whole and is judged again, and which, when not an
//     object after another hook's rewrite, blocks: Gemini CLI would run
//     the model's arguments the rewriter did not let through, so hooks
//     exec blocks any such answer; BeforeTool decision "ask", unless a
//     hook blocks; BeforeModel/AfterModel llm_request and
//     llm_response; AfterTool tailToolCallRequest; AfterAgent clearContext)
//     are relayed as Gemini CLI merges several hooks' answers.
//   - On Gemini CLI's BeforeModel and AfterModel a hook's block or stop
//     does not end the chain (Outcome.addModelAnswer): Gemini CLI runs
//     every hook and merges their answers, and on AfterModel its block
//     still uses the chunk judged, so a later hook's stop must be
//     relayed. A guard of AfterModel that cannot run, a refused chain or
//     a cut answer is answered "continue": false, exit 0
//     (StopsOnFailedGuard), not a block. So is one of PreCompact under
//     --host codex, where Codex takes exit 2 as a failed hook and
//     compacts, but stops on "continue": false (StopsOnFailedGuardIn),
//     under the chain (FireEvent sets Outcome.Host to Options.Host, which
//     WriteOutcome answers for) and ExecHook alike; ExecHook takes the
//     event by the host's name of it (a bundlectl-own PreCompact hook is
//     Gemini CLI's PreCompress, where nothing blocks).
//   - Under --host gemini, on SessionStart, SessionEnd, Notification and
//     PreCompress (RunnableHook.geminiShared), answers are read as Gemini
//     CLI 0.61 reads them there (geminiSharedAnswer, addGeminiShared):
//     whatever the exit status, 2 included; nothing blocks or stops the
//     chain; only additionalContext and systemMessage are kept. Where
//     Gemini CLI reads the answer, hookSpecificOutput.hookEventName is not
//     checked, as Gemini CLI never reads it.
//   - Under --host codex, on an event Codex lets no hook block
//     (RunnableHook.codexUnblockable), a JSON answer with a field Codex's
//     schema there lacks ("decision", "reason", …) is a reported failure
//     and the chain goes on, and "continue": false is dropped on the
//     events where Codex ignores it (codexStatelessAnswer); on every event
//     a hookEventName naming another Codex event counts, as Codex never
//     compares it (HookResult.codexAnswer).
//   - More than MaxHookChain matching hooks, or nesting deeper than
//     MaxHookChain (HookDepthEnv), refuses the chain before anything runs;
//     a refused or canceled chain is a blocked Outcome, never a silent
//     proceed.
//   - ParseHookOutput never panics (FuzzHookOutput), and reads a JSON
//     answer's fields as the hosts' parsers do (exactKeys): names with
//     their letter case, a name given twice with its last value.
//
// Invariants of the hook commands (hookexec.go, hookrun.go; bundlectl
// hooks exec and hooks run are thin callers of these):
//
//   - ExecHookLine and HookRun decide every answer a hook line writes and
//     its exit status; a caller only reads stdin, resolves its roots
//     (HookRun.Roots, Home) and prints a returned *HookExit's Err with its
//     Hint. No answer fails
//     open: where a hook cannot run, or which guards apply cannot be told,
//     an event a hook can block is blocked (exit 2), one where a block
//     would not hold under the host is stopped ("continue": false,
//     StopsOnFailedGuardIn) and BeforeToolSelection offers no tools
//     (WithholdsTools), exit 0 in both. Such an event proceeds only
//     after a change the user made (AuthorityChange), with a
//     systemMessage naming the command that undoes it; on any other
//     event bundlectl's own failure is reported (exit 1).
//   - A hook line is answered for the event its input names, else the
//     line's (HookLine.Event). A line whose input names another event is
//     not run (Claude Code's Stop line on SubagentStop excepted), and the
//     refusal fails closed for the event the input names.
//   - A hooks run line naming an event its host does not fire is refused
//     before anything loads (HookRun.CheckLine): no guard would run.
//   - Unless its caller names the workspace, hooks run answers in the one
//     the registry chooses from the event's cwd (Options.WorkspaceFrom),
//     else from the current directory, which the event's cwd makes
//     unneeded (it may be gone); every fix names that workspace whenever
//     the user's shell is not in it (HookRun.Answer).
//   - Of the cwd's ancestors the nearest trusted workspace wins; when none
//     is one and the cwd lies in a linked git worktree (codex --worktree
//     under $CODEX_HOME/worktrees, git worktree add ../feature), the main
//     checkout's counterpart of the cwd and its ancestors up to the
//     checkout are asked next, before any .bundlectl directory, so the
//     worktree's committed, untrusted .bundlectl never hides the
//     checkout's guards (chooseWorkspace, linkedWorktreeMain). git's own
//     files are read directly, bounded, never through a link at their last
//     component, and no git process runs; the step is reached only when
//     the ancestor search found nothing, so a planted .git file can only
//     add a trusted workspace's guards, and the common case reads nothing
//     more.
//   - At SessionStart under a host, and only then (a tool call's hot path
//     reads no host settings), hooks run adds a systemMessage when the
//     host's hook lines an earlier setup wrote leave events out
//     (HookRun.SetupCheck, hosts.SetupStale: harness cannot import
//     hosts).
//   - Every reason written is escaped line by line, and ends with its fix
//     on a line of its own (WithHint), as the caller's Fix prints it.
package harness
