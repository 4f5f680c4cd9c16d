// Package agenttest drives the real agent CLIs — Claude Code (claude), Codex
// (codex) and Gemini CLI (gemini) — offline, for end-to-end tests that assert
// what an agent actually did.
//
// Each run gets a scripted stand-in for the host's model API on 127.0.0.1:0
// (Model) and throw-away HOME, CODEX_HOME and GEMINI_CLI_HOME directories.
// The stand-in answers every model call from a script of turns ("call tool X
// with these arguments", then "say T") and records every request, so that a
// test can check that a tool's result, a hook's block reason or a skill's
// text reached the model.
//
// Invariants:
//   - Nothing leaves the machine: the CLIs are pointed at the stand-in and
//     every update check, telemetry and usage-statistics switch the hosts
//     document is turned off (see Agent.Command).
//   - The answer to a request depends only on the conversation it carries
//     (the number of tool results in it), so retries and side requests
//     (titles, summaries, token counts) cannot shift the script. A request
//     that offers no tools gets FinalText.
//   - Time bounds are hang guards (HangGuard, minutes), never assertions.
//   - Tests run concurrently: every test, and every subtest of a table,
//     starts with t.Parallel(), and TestMain runs defaultParallel of them
//     at once unless go test is given -parallel. Each run has its own
//     stand-in on port 0 and its own temporary HOME, CODEX_HOME, Gemini CLI
//     home and working directory (New), so a test may share nothing
//     mutable with another: no package-level variable it writes, no fixed
//     port or path outside t.TempDir() (a directory of os.MkdirTemp is
//     fine), no os.Setenv, os.Chdir or t.Setenv (which panics in a
//     parallel test). Everything this package exports is safe to call from
//     parallel tests: New, Agent.Run, Agent.Command, NewModel, Bundlectl,
//     BundlectlRun, BundlectlEnv, ReviewWarnings and FakeMCPServer (the two
//     builds happen once, under a sync.Once). A subtest that shares a
//     variable of its parent with its siblings (a recorder, a server, a
//     slice it appends to) stays sequential. The exceptions, which do not
//     call t.Parallel(), are tests whose outcome turns on a short wait of a
//     host's or the proxy's (a server's answer within a host's 1 s or 3 s
//     timeout, a hook racing Node.js's 1 ms timer): go test runs them one
//     at a time before any parallel test goes on past its t.Parallel(), so
//     no other test of this package loads the machine while they run.
//   - The CLIs come from .ci/install-agents.sh (pinned versions, installed
//     outside the repository under AgentsDir). FindCLI skips a test when a
//     CLI is missing, except when CI is set: there it fails, because CI must
//     never pass by skipping.
//
// The package is test support, not part of bundlectl's API.
package agenttest
