// Package harness runs what an active bundle declares: tools, hooks and
// stdio MCP servers. This file covers the process-execution and hook layer,
// which knows nothing of trust state; the registry layer above it verifies
// authority and the snapshot, freezes a Spec, and calls Run, Exec or
// FireChain.
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
