// Package harness is the runtime an agent embeds. Load returns an
// immutable Registry of the bundles that are active now; the Registry
// serves their skills, commands and agents, and runs their tools, hooks
// and stdio MCP servers from the verified snapshots. Below it, the
// process-execution and hook layer (Run, Exec, FireChain) knows nothing of
// trust state.
//
// Invariants of the registry (docs/harness.md):
//
//   - Only active bundles load: enabled, trusted for their current
//     content and capability hashes, valid, applicable, not blocked, not
//     shadowed. An unusable state file fails Load: nothing is active.
//   - Every boundary — each spawn, each Content call, each Catalog —
//     re-checks authority: the state file is re-read when its identity
//     (inode, size, mtime, ctime) changed, and the bundle must still be
//     enabled and trusted for the same receipt and generation. Integrity
//     is re-checked through inotify over every directory of the source and
//     the snapshot: the kernel queues an event before the modifying call
//     returns, so a synchronous drain at check time sees every change that
//     finished before it; any event, a lost event or a queue overflow
//     means a full re-hash of both before anything runs. Without inotify
//     every check is a full re-hash.
//   - A failure is an *AuthorityError matching one sentinel (ErrDisabled,
//     ErrRevoked, ErrStale, ErrDrifted, ErrTampered, ErrNotActive) and
//     lifecycle.ErrRefused, naming the bundle, the reason and the fix;
//     nothing runs.
//   - Skill, command and agent content is read from the snapshot at load
//     and served from memory.
//   - "./" commands resolve inside the snapshot; PLUGIN_ROOT is the
//     snapshot, PLUGIN_DATA is $BUNDLECTL_HOME/data/<bundle-id> (0700,
//     kept across updates). Tools and hooks run in the workspace; stdio
//     MCP servers in their cwd, default the snapshot.
//   - While a tool or stdio server runs, its bundle's authority is
//     re-checked every PollInterval (200 ms); a disable, revoke, new
//     generation or tamper cancels it and kills its process group.
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
//   - Every child runs in its own process group. On every way out — exit,
//     timeout, cancellation — the whole group is SIGKILLed before the
//     leader is reaped (on Linux waitid(WNOWAIT) keeps the group id
//     reserved, so the kill cannot reach a recycled pid). Output pipes
//     therefore reach EOF when Run returns; a process that escaped the
//     group (setsid) is not waited for beyond DrainGrace.
//   - On Linux a child is SIGKILLed if bundlectl dies (Pdeathsig; the
//     starting goroutine stays locked to its OS thread until the child is
//     reaped, because the signal is tied to that thread). Grandchildren
//     are not covered when bundlectl itself is SIGKILLed.
//   - stdout and stderr are read separately to EOF; at most MaxOutput
//     bytes of each are kept (DefaultMaxOutput, 1 MiB), the rest is read
//     and discarded, so a flooding child neither blocks nor exhausts
//     memory.
//   - Timeouts: DefaultToolTimeout 30 s, DefaultHookTimeout 60 s, at most
//     MaxTimeout 600 s; a larger Spec.Timeout is refused, not clamped.
//   - Run's error means nothing ran (*SpecError, *StartError, a done
//     context). A child that started always gives a Result; a timeout or a
//     cancellation is a Result with TimedOut or Canceled, and Result.Err
//     turns it into an *ExitError that wraps context.DeadlineExceeded or
//     context.Canceled.
//   - Exec supervises a long-lived child with stdio passed through rather
//     than replacing bundlectl, so that cancelling its context (a revoked
//     trust) still kills the whole group; it forwards SIGINT, SIGTERM,
//     SIGHUP and SIGQUIT to the group.
//   - Tool input is validated before spawning: one JSON value, no
//     duplicate keys, at most MaxInputBytes, matching the params schema.
//     Schemas are compiled offline; every URL reference is refused.
//     Errors name instance paths and never repeat input values.
//
// Invariants of the hook layer (docs/hooks.md is the full contract):
//
//   - A hook gets Claude Code's hook input on stdin: the caller's event
//     object with unknown fields kept, hook_event_name set to the event
//     fired, and tool_input replaced by the latest updatedInput of an
//     earlier hook in the chain.
//   - A matcher is an RE2 expression anchored to the whole tool name;
//     "" and "*" match all; events without a tool ignore it.
//   - Matching hooks run serially in the order given and the chain stops
//     at the first block (exit 2, decision "block", permissionDecision
//     "deny") or "continue": false. Any other failure — another exit
//     status, a timeout, malformed output, a start error — is reported in
//     Outcome.Errors and does not block.
//   - More than MaxHookChain matching hooks, or nesting deeper than
//     MaxHookChain (HookDepthEnv), refuses the chain before anything runs;
//     a refused or canceled chain is a blocked Outcome, never a silent
//     proceed.
//   - ParseHookOutput never panics (FuzzHookOutput).
package harness
