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
//   - The CLIs come from .ci/install-agents.sh (pinned versions, installed
//     outside the repository under AgentsDir). FindCLI skips a test when a
//     CLI is missing, except when CI is set: there it fails, because CI must
//     never pass by skipping.
//
// The package is test support, not part of bundlectl's API.
package agenttest
