package agenttest

import (
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Claude Code's and Codex's hooks on the events that carry a matcher but
// need more than a short session to fire: a sub-agent, a failed tool, a
// permission request, a compaction, an instructions file. Each event gets
// matchedCases; the host's runs are compared with bundlectl's review and
// `bundlectl hooks run --host` (checkMatcherParity) on the input the host
// gave.

// matchedCases are the matcher groups of one event whose matcher is
// matched against value (the host's, found by trying): a name that
// selects nothing, value itself, its first three letters (a plain name is
// compared whole, so they select nothing), an unanchored regular
// expression for them ("^" and the letters, which selects value), "*",
// one that does not compile ("["), an empty one and none.
func matchedCases(id, value string) []matcherCase {
	return []matcherCase{
		{id + "-nomatch", "nomatch"}, {id + "-value", value}, {id + "-prefix", value[:3]},
		{id + "-regex", "^" + value[:3]}, {id + "-star", "*"}, {id + "-invalid", "["}, {id + "-empty", ""},
		{id + "-none", "-"},
	}
}

// matchedRan is what both hosts ran of the matchedCases of each id: the
// value, the regular expression, "*", the empty matcher and none; never
// the prefix, nor the matcher that does not compile.
func matchedRan(ids ...string) []string {
	var ran []string
	for _, id := range ids {
		ran = append(ran, id+"-empty", id+"-none", id+"-regex", id+"-star", id+"-value")
	}
	slices.Sort(ran)
	return ran
}

// matcherSession is one run of a host with a plugin whose hooks are
// events; prompts run in turn, each after the first continuing the
// session.
type matcherSession struct {
	name    string
	events  map[string][]matcherCase
	script  []Turn
	args    []string
	prompts []string
	// extra are hooks the host runs besides the matchedRan of each event.
	extra []string
	setup func(t *testing.T, a *Agent)
}

func (s matcherSession) eventIDs() []string {
	var ids []string
	for _, cases := range s.events {
		ids = append(ids, cases[0].id[:len(cases[0].id)-len("-nomatch")])
	}
	return ids
}

// TestClaudeHookMatcherMoreEvents: Claude Code 2.1.332 matches the
// matcher of SubagentStart and SubagentStop against the agent's type
// ("general-purpose"), of PostToolUseFailure and PermissionRequest
// against the tool's name, of Setup against the trigger ("init" for
// --init), of PreCompact and PostCompact against the trigger ("manual"
// for /compact) and of InstructionsLoaded against the load reason
// ("session_start" for CLAUDE.md, fired when the session is continued); a
// plain name (or a list of them) is compared whole, anything else is an
// unanchored regular expression, and a hook whose matcher does not
// compile never runs. bundlectl's review and hooks
// run --host claude agree (MatchField, ClaudeMatch).
func TestClaudeHookMatcherMoreEvents(t *testing.T) {
	t.Parallel()
	sessions := []matcherSession{
		{
			name: "subagent",
			events: map[string][]matcherCase{
				"SubagentStart": matchedCases("substart", "general-purpose"),
				"SubagentStop":  matchedCases("substop", "general-purpose"),
			},
			script:  []Turn{Call("Agent", map[string]any{"subagent_type": "general-purpose", "description": "owls", "prompt": "go"}), Say("done")},
			args:    []string{"--allowedTools", "Agent"},
			prompts: []string{"hello"},
		},
		{
			// "Read, Bash" lists two names on this event (not on
			// StopFailure: TestClaudeStopFailureMatcher).
			name: "toolfailure",
			events: map[string][]matcherCase{"PostToolUseFailure": append(matchedCases("failure", "Bash"),
				matcherCase{"failure-list", "Read, Bash"})},
			script:  []Turn{ShellCall(Claude, "exit 3"), Say("done")},
			args:    []string{"--allowedTools", "Bash"},
			prompts: []string{"hello"},
			extra:   []string{"failure-list"},
		},
		{
			// Bash is not allowed: Claude Code asks, and the -p session
			// denies.
			name:    "permission",
			events:  map[string][]matcherCase{"PermissionRequest": matchedCases("permission", "Bash")},
			script:  []Turn{ShellCall(Claude, "touch asked"), Say("done")},
			prompts: []string{"hello"},
		},
		{
			name:    "setup",
			events:  map[string][]matcherCase{"Setup": matchedCases("setup", "init")},
			script:  []Turn{Say("done")},
			args:    []string{"--init"},
			prompts: []string{"hello"},
		},
		{
			// /compact continues the first session. Compaction also
			// fires SubagentStop, with an empty agent type: that event is
			// the subagent session's.
			name: "compact",
			events: map[string][]matcherCase{
				"PreCompact":         matchedCases("precompact", "manual"),
				"PostCompact":        matchedCases("postcompact", "manual"),
				"InstructionsLoaded": matchedCases("instructions", "session_start"),
			},
			script:  []Turn{Say("done")},
			prompts: []string{"hello", "/compact"},
			setup: func(t *testing.T, a *Agent) {
				writeFile(t, a.Workdir, "CLAUDE.md", "Be brief.\n", 0o644)
			},
		},
	}
	for _, s := range sessions {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			rec := t.TempDir()
			a := New(t, Claude, s.script...)
			if s.setup != nil {
				s.setup(t, a)
			}
			src := filepath.Join(a.Workdir, ".bundlectl", "bundles", pluginName)
			writeJSONFile(t, src, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
			writeJSONFile(t, src, "hooks/hooks.json", matcherHooks(rec, s.events))
			ran, inputs := runSession(t, a, rec, append([]string{"--plugin-dir", src}, s.args...), s.prompts)
			want := append(matchedRan(s.eventIDs()...), s.extra...)
			slices.Sort(want)
			if !slices.Equal(ran, want) {
				t.Fatalf("Claude Code ran the hooks %q, want %q (found by trying Claude Code 2.1.332)", ran, want)
			}
			checkMatcherParity(t, Claude, a.Workdir, rec, s.events, want, inputs)
		})
	}
}

// runSession runs a with args on each prompt in turn, each after the
// first with --continue (Claude Code), and returns every hook that ran and
// the input each was given last.
func runSession(t *testing.T, a *Agent, rec string, args, prompts []string) ([]string, map[string][]byte) {
	t.Helper()
	all := map[string][]byte{}
	for i, p := range prompts {
		a.Args = args
		if i > 0 {
			a.Args = append(append([]string(nil), args...), "--continue")
		}
		res := a.Run(t, p)
		if res.Exit != 0 {
			t.Fatalf("%s exited %d on %q\n%s", a.Host, res.Exit, p, res)
		}
		_, inputs := takeRan(t, rec)
		t.Logf("%q ran %q", p, slices.Sorted(maps.Keys(inputs)))
		maps.Copy(all, inputs)
	}
	return slices.Sorted(maps.Keys(all)), all
}

// codexMatchedSessions are the Codex sessions of
// TestCodexHookMatcherMoreEvents and TestExecCodexMatchedEvents: a
// sub-agent spawned (multi_agent_v2's collaboration tools), and one
// compaction (the stand-in's first answer reports more tokens than the
// limit).
func codexMatchedSessions() []matcherSession {
	spawn := &ToolCall{Name: "spawn_agent", Namespace: "collaboration", Args: map[string]any{"message": "go", "task_name": "owl", "fork_turns": "none"}}
	return []matcherSession{
		{
			name: "subagent",
			events: map[string][]matcherCase{
				"SubagentStart": matchedCases("substart", "default"),
				"SubagentStop":  matchedCases("substop", "default"),
			},
			script:  []Turn{{Tool: spawn}, {Tool: &ToolCall{Name: "wait_agent", Namespace: "collaboration", Args: map[string]any{"timeout_ms": 10000}}}, Say("done")},
			args:    []string{"-c", "features.multi_agent_v2=true"},
			prompts: []string{"hello"},
		},
		{
			name: "compact",
			events: map[string][]matcherCase{
				"PreCompact":  matchedCases("precompact", "auto"),
				"PostCompact": matchedCases("postcompact", "auto"),
			},
			script:  []Turn{ShellCall(Codex, "true"), Say("done")},
			args:    []string{"-c", "model_auto_compact_token_limit=500"},
			prompts: []string{"hello"},
			setup:   func(t *testing.T, a *Agent) { a.Model.FirstTokens = 1000 },
		},
	}
}

// TestCodexHookMatcherMoreEvents: Codex 0.171 matches the matcher of
// SubagentStart and SubagentStop against the agent's type ("default")
// and of PreCompact and PostCompact against the trigger ("auto"), as
// Claude Code does, and skips a group whose matcher does not compile
// ("invalid matcher" warning); bundlectl's review and hooks run --host
// codex agree. PermissionRequest cannot be fired offline: codex exec
// answers every approval itself (approval "never").
func TestCodexHookMatcherMoreEvents(t *testing.T) {
	t.Parallel()
	for _, s := range codexMatchedSessions() {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			rec := t.TempDir()
			a := New(t, Codex, s.script...)
			if s.setup != nil {
				s.setup(t, a)
			}
			root := versionDir(filepath.Join(a.ConfigDir(), "plugins", "cache"))
			writeJSONFile(t, root, ".codex-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
			writeJSONFile(t, root, "hooks/hooks.json", matcherHooks(rec, s.events))
			a.CodexConfig = fmt.Sprintf("[plugins.%q]\nenabled = true\n", codexPluginID)
			args := append([]string{"-c", "features.plugins=true", "--dangerously-bypass-hook-trust"}, s.args...)
			ran, inputs := runSession(t, a, rec, args, s.prompts)
			want := matchedRan(s.eventIDs()...)
			if !slices.Equal(ran, want) {
				t.Fatalf("Codex ran the hooks %q, want %q (found by trying Codex 0.171)", ran, want)
			}
			src := filepath.Join(a.Workdir, ".bundlectl", "bundles", pluginName)
			writeJSONFile(t, src, ".codex-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
			writeJSONFile(t, src, "hooks/hooks.json", matcherHooks(rec, s.events))
			checkMatcherParity(t, Codex, a.Workdir, rec, s.events, want, inputs)
		})
	}
}

// TestExecCodexMatchedEvents: through `bundlectl exec -- codex`, whose
// view records each hook's trust hash over its matcher, Codex runs the
// same SubagentStart, SubagentStop, PreCompact and PostCompact hooks as
// it runs installed (TestCodexHookMatcherMoreEvents): a hash Codex does
// not compute would leave a guard silently unrun.
func TestExecCodexMatchedEvents(t *testing.T) {
	t.Parallel()
	for _, s := range codexMatchedSessions() {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			a := New(t, Codex, s.script...)
			if s.setup != nil {
				s.setup(t, a)
			}
			f := newExecFixture(t, a)
			rec := t.TempDir() // f.rec is the plugin's MCP server's too
			writeJSONFile(t, f.src, "hooks/hooks.json", matcherHooks(rec, s.events))
			f.trust(t)
			a.Launcher = f.launcher(t)
			ran, _ := runSession(t, a, rec, append(append(a.Args, "-c", "features.plugins=true"), s.args...), s.prompts)
			want := matchedRan(s.eventIDs()...)
			if !slices.Equal(ran, want) {
				t.Fatalf("through bundlectl exec, Codex ran the hooks %q, want %q", ran, want)
			}
		})
	}
}

// TestClaudeStopFailureMatcher: when the model API refuses a request (400,
// invalid_request_error), Claude Code 2.1.332 ends the turn and fires
// StopFailure, matching its hooks' matchers against the error's kind
// ("invalid_request"). StopFailure is not one of the events whose
// matchers may list names with commas and spaces: there a matcher of
// letters, digits, "_" and "|" is a list of names, and
// "invalid_request, server_error" is an unanchored regular expression,
// which selects nothing.
func TestClaudeStopFailureMatcher(t *testing.T) {
	t.Parallel()
	refuse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/messages") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"type":"error","error":{"type":"invalid_request_error","message":"agenttest: refused"}}`)
			return
		}
		fmt.Fprint(w, "{}")
	}))
	t.Cleanup(refuse.Close)
	events := map[string][]matcherCase{"StopFailure": append(matchedCases("stopfailure", "unknown"),
		matcherCase{"stopfailure-list", "unknown, server_error"}, matcherCase{"stopfailure-pipe", "unknown|server_error"})}
	want := append(matchedRan("stopfailure"), "stopfailure-pipe")
	slices.Sort(want)
	rec := t.TempDir()
	a := New(t, Claude, Say("done"))
	a.Env = append(a.Env, "ANTHROPIC_BASE_URL="+refuse.URL)
	src := filepath.Join(a.Workdir, ".bundlectl", "bundles", pluginName)
	writeJSONFile(t, src, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
	writeJSONFile(t, src, "hooks/hooks.json", matcherHooks(rec, events))
	a.Args = []string{"--plugin-dir", src}
	res := a.Run(t, "hello")
	ran, inputs := takeRan(t, rec)
	if !slices.Equal(ran, want) {
		t.Fatalf("Claude Code ran the hooks %q, want %q (found by trying Claude Code 2.1.332)\n%s\n%q", ran, want, res, inputs)
	}
	checkMatcherParity(t, Claude, a.Workdir, rec, events, want, inputs)
}
