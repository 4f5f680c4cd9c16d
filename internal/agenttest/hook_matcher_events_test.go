package agenttest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Claude Code's and Codex's hooks on events that are not about a tool,
// run by the real CLIs and compared with bundlectl's review and with
// `bundlectl hooks run --host` on the input the host gave each event.

// matcherCase is one matcher group of an event: id names the file its hook
// touches; matcher "-" means the group has no matcher.
type matcherCase struct{ id, matcher string }

// matcherEvents are the events one short session fires (SessionStart,
// UserPromptSubmit, Stop, SessionEnd), each with matchers that name
// nothing, the value the host gives, a regular expression, one that does
// not compile ("["), "*" and none.
var matcherEvents = map[string][]matcherCase{
	"SessionStart": {
		{"start-nomatch", "nomatch"}, {"start-startup", "startup"}, {"start-partial", "start"},
		{"start-regex", "^start"}, {"start-star", "*"}, {"start-none", "-"},
	},
	"UserPromptSubmit": {
		{"prompt-nomatch", "nomatch"}, {"prompt-regex", "^x"}, {"prompt-invalid", "["}, {"prompt-star", "*"},
		{"prompt-none", "-"},
	},
	"Stop": {{"stop-nomatch", "nomatch"}, {"stop-regex", "^x"}, {"stop-none", "-"}},
	"SessionEnd": {
		{"end-nomatch", "nomatch"}, {"end-other", "other"}, {"end-exit", "exit"},
		{"end-regex", ".*"}, {"end-none", "-"},
	},
}

// matcherEventsRan is what Claude Code 2.1.332 and Codex 0.171 ran, alike,
// found by trying: every UserPromptSubmit and Stop hook whatever its
// matcher, "[" too; a SessionStart hook whose matcher selects the source
// ("startup": a plain name is compared whole, so "start" does not select
// it, "^start" does) and a SessionEnd hook whose matcher selects the
// reason ("other" in a non-interactive session).
var matcherEventsRan = []string{
	"end-none", "end-other", "end-regex",
	"prompt-invalid", "prompt-nomatch", "prompt-none", "prompt-regex", "prompt-star",
	"start-none", "start-regex", "start-star", "start-startup",
	"stop-nomatch", "stop-none", "stop-regex",
}

// matcherHooks is a hooks/hooks.json whose each hook saves its input as
// rec/<id>.
func matcherHooks(rec string, events map[string][]matcherCase) map[string]any {
	hooks := map[string]any{}
	for event, cases := range events {
		var groups []any
		for _, c := range cases {
			g := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "cat > " + filepath.Join(rec, c.id)}}}
			if c.matcher != "-" {
				g["matcher"] = c.matcher
			}
			groups = append(groups, g)
		}
		hooks[event] = groups
	}
	return map[string]any{"hooks": hooks}
}

// takeRan lists the hooks that saved their input under rec, then empties
// rec.
func takeRan(t *testing.T, rec string) (ran []string, inputs map[string][]byte) {
	t.Helper()
	ents, err := os.ReadDir(rec)
	if err != nil {
		t.Fatal(err)
	}
	inputs = map[string][]byte{}
	for _, e := range ents {
		p := filepath.Join(rec, e.Name())
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		ran = append(ran, e.Name())
		inputs[e.Name()] = b
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	return ran, inputs
}

// checkMatcherParity compares bundlectl with what the host ran: (1) the
// review shows a matcher as narrowing exactly the hooks the host did not
// run every time — "matcher: all (… ignore the matcher …)" where the hook
// that names nothing ran — and (2) `bundlectl hooks run <event> --host`,
// given the input the host gave each event, runs the same hooks.
// events and want are the hooks the plugin in ws's bundle root has and
// those the host ran.
func checkMatcherParity(t *testing.T, h Host, ws, rec string, events map[string][]matcherCase, want []string, inputs map[string][]byte) {
	home := filepath.Join(t.TempDir(), "bundlectl-home")
	t.Cleanup(func() { Writable(home) })
	human := BundlectlRun(t, home, "--workspace", ws, "review", pluginName)
	for event, cases := range events {
		ignored := slices.Contains(want, cases[0].id) // the "nomatch" hook ran
		for _, c := range cases {
			// A matcher that does not compile, on an event the host
			// matches, is a hook validation skips (it never runs).
			if c.matcher == "-" || c.matcher == "*" || c.matcher == "" || c.matcher == "[" && !ignored {
				continue
			}
			all := fmt.Sprintf(`on %q, matcher: all (`, event)
			narrow := fmt.Sprintf(`on %q, matcher %q`, event, c.matcher)
			switch {
			case ignored && !strings.Contains(human, all):
				t.Errorf("%s ran every %s hook whatever its matcher; the review shows %q as narrowing one:\n%s", h, event, c.matcher, human)
			case !ignored && !strings.Contains(human, narrow):
				t.Errorf("%s selected %s hooks by their matcher; the review does not show the matcher %q:\n%s", h, event, c.matcher, human)
			}
		}
	}

	trustBundle(t, home, ws, pluginName)
	var ran []string
	for event, cases := range events {
		// Any complete input of the event: a hook the host did not wait
		// for (StopFailure ends the session) may have saved only part of
		// its input when the host exited, as its file is made before cat
		// writes.
		var input []byte
		for _, c := range cases {
			var ev struct {
				Name string `json:"hook_event_name"`
			}
			if b, ok := inputs[c.id]; ok && json.Unmarshal(b, &ev) == nil && ev.Name == event {
				input = b
			}
		}
		if input == nil {
			t.Fatalf("%s ran no %s hook, so there is no input to give bundlectl", h, event)
		}
		ctx, cancel := context.WithTimeout(context.Background(), HangGuard)
		cmd := exec.CommandContext(ctx, Bundlectl(t), "--home", home, "--workspace", ws, "hooks", "run", event, "--host", string(h))
		cmd.Env = append(os.Environ(), "BUNDLECTL_HOME="+home)
		cmd.Stdin = bytes.NewReader(input)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stdout, err := cmd.Output()
		cancel()
		if err != nil {
			t.Fatalf("bundlectl hooks run %s --host %s: %v\n%s%s", event, h, err, stdout, stderr.Bytes())
		}
		got, _ := takeRan(t, rec)
		ran = append(ran, got...)
	}
	slices.Sort(ran)
	if !slices.Equal(ran, want) {
		t.Errorf("bundlectl hooks run --host %s ran %q; %s ran %q", h, ran, h, want)
	}
}

// TestClaudeHookMatcherEvents runs a Claude Code plugin (--plugin-dir)
// with hooks on SessionStart, UserPromptSubmit, Stop and SessionEnd and
// requires that Claude Code ran exactly matcherEventsRan, that the review
// shows the matchers of UserPromptSubmit and Stop as ignored and the
// others as narrowing, and that hooks run --host claude runs the same
// hooks (review TestMatcherTextHosts, script
// hooks_claude_codex_event_matchers).
func TestClaudeHookMatcherEvents(t *testing.T) {
	t.Parallel()
	rec := t.TempDir()
	a := New(t, Claude, Say("done"))
	src := filepath.Join(a.Workdir, ".bundlectl", "bundles", pluginName)
	writeJSONFile(t, src, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
	writeJSONFile(t, src, "hooks/hooks.json", matcherHooks(rec, matcherEvents))
	a.Args = []string{"--plugin-dir", src}
	res := a.Run(t, "hello")
	ran, inputs := takeRan(t, rec)
	if !slices.Equal(ran, matcherEventsRan) {
		t.Fatalf("Claude Code ran the hooks %q, want %q (found by trying Claude Code 2.1.332)\n%s", ran, matcherEventsRan, res)
	}
	checkMatcherParity(t, Claude, a.Workdir, rec, matcherEvents, matcherEventsRan, inputs)
}

// TestCodexHookMatcherEvents is TestClaudeHookMatcherEvents for a Codex
// plugin (placed in the plugin cache, hook trust bypassed): Codex 0.171
// ran the same hooks as Claude Code.
func TestCodexHookMatcherEvents(t *testing.T) {
	t.Parallel()
	rec := t.TempDir()
	a := New(t, Codex, Say("done"))
	root := versionDir(filepath.Join(a.ConfigDir(), "plugins", "cache"))
	writeJSONFile(t, root, ".codex-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
	writeJSONFile(t, root, "hooks/hooks.json", matcherHooks(rec, matcherEvents))
	a.CodexConfig = fmt.Sprintf("[plugins.%q]\nenabled = true\n", codexPluginID)
	a.Args = []string{"-c", "features.plugins=true", "--dangerously-bypass-hook-trust"}
	res := a.Run(t, "hello")
	ran, inputs := takeRan(t, rec)
	if !slices.Equal(ran, matcherEventsRan) {
		t.Fatalf("Codex ran the hooks %q, want %q (found by trying Codex 0.171)\n%s", ran, matcherEventsRan, res)
	}
	src := filepath.Join(a.Workdir, ".bundlectl", "bundles", pluginName)
	writeJSONFile(t, src, ".codex-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
	writeJSONFile(t, src, "hooks/hooks.json", matcherHooks(rec, matcherEvents))
	checkMatcherParity(t, Codex, a.Workdir, rec, matcherEvents, matcherEventsRan, inputs)
}

// TestClaudePromptExpansionMatcher: Claude Code 2.1.332 matches a
// UserPromptExpansion hook's matcher against the command's name
// (<plugin>:<command>): for /agentguard:hello it ran the hook for
// "agentguard:hello" and the one without a matcher, not those for
// "nomatch" or "hello". bundlectl's hooks run ignored the matcher on this
// event and ran all four, so a guard for one command blocked every
// expansion; now it runs the same two, and the review shows the matchers
// (script hooks_claude_codex_event_matchers).
func TestClaudePromptExpansionMatcher(t *testing.T) {
	t.Parallel()
	rec := t.TempDir()
	events := map[string][]matcherCase{"UserPromptExpansion": {
		{"expand-nomatch", "nomatch"}, {"expand-bare", "hello"}, {"expand-full", pluginName + ":hello"}, {"expand-none", "-"},
	}}
	want := []string{"expand-full", "expand-none"}
	a := New(t, Claude, Say("done"))
	src := filepath.Join(a.Workdir, ".bundlectl", "bundles", pluginName)
	writeJSONFile(t, src, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
	writeFile(t, src, "commands/hello.md", "---\ndescription: says hello\n---\nSay hello\n", 0o644)
	writeJSONFile(t, src, "hooks/hooks.json", matcherHooks(rec, events))
	a.Args = []string{"--plugin-dir", src}
	res := a.Run(t, "/"+pluginName+":hello")
	ran, inputs := takeRan(t, rec)
	if !slices.Equal(ran, want) {
		t.Fatalf("Claude Code ran the hooks %q, want %q (found by trying Claude Code 2.1.332)\n%s", ran, want, res)
	}
	checkMatcherParity(t, Claude, a.Workdir, rec, events, want, inputs)
}

// TestExecCodexIgnoredMatcher: Codex drops the matcher of a
// UserPromptSubmit or Stop hook before it hashes the hook for trust, so
// the trust hash `bundlectl exec -- codex` recorded over the matcher was
// one Codex never computed: such a hook — a guard, with "*" or any other
// matcher — did not run ("hook: Stop Failed"), and the prompt went on
// unguarded. The Codex view now writes no matcher there; every hook runs
// through exec, as Codex runs it installed (TestCodexHookMatcherEvents).
func TestExecCodexIgnoredMatcher(t *testing.T) {
	t.Parallel()
	a := New(t, Codex, Say("done"))
	f := newExecFixture(t, a)
	events := map[string][]matcherCase{
		"UserPromptSubmit": {{"prompt-nomatch", "nomatch"}, {"prompt-invalid", "["}, {"prompt-star", "*"}},
		"Stop":             {{"stop-nomatch", "nomatch"}, {"stop-star", "*"}, {"stop-none", "-"}},
	}
	rec := t.TempDir() // f.rec is the plugin's MCP server's too
	writeJSONFile(t, f.src, "hooks/hooks.json", matcherHooks(rec, events))
	f.trust(t)
	a.Launcher = f.launcher(t)
	a.Args = append(a.Args, "-c", "features.plugins=true")
	res := a.Run(t, "hello")
	ran, _ := takeRan(t, rec)
	want := []string{"prompt-invalid", "prompt-nomatch", "prompt-star", "stop-nomatch", "stop-none", "stop-star"}
	if !slices.Equal(ran, want) {
		t.Fatalf("through bundlectl exec, Codex ran the hooks %q, want %q\n%s", ran, want, res)
	}
}
