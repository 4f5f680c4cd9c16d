package agenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Gemini CLI's hooks/hooks.json, policies and agents, run by the real CLI
// and compared with bundlectl's review of the same extension: the review
// must show every hook Gemini CLI runs, and never a narrower one.

// TestGeminiHookShapes runs one extension whose hooks/hooks.json holds
// the spellings and shapes a hook can take, each hook touching a file of
// its own, and requires (1) that Gemini CLI 0.61 ran exactly the hooks
// found by trying — events by their exact names; types "command" and
// "plugin" (a "plugin" hook's command runs as a command hook's does),
// never a hook without a type, "Command", "http" or "runtime"; matchers
// trimmed and read as unanchored regular expressions over the tool name,
// exactly over a trigger, and not at all on BeforeAgent, AfterAgent and
// BeforeModel; a command run alone as a shell string, its args unread;
// no hooks from gemini-extension.json itself — and (2) that bundlectl's
// review lists each hook that ran as the shell command it ran, and shows
// no matcher narrowing a hook that ran whatever its matcher said (bundle
// TestGeminiHookShapes, review TestRenderGeminiIgnoredMatcher).
func TestGeminiHookShapes(t *testing.T) {
	rec := t.TempDir()
	a := New(t, GeminiCLI, ShellCall(GeminiCLI, "true"), Say("done"))
	root := filepath.Join(a.ConfigDir(), "extensions", pluginName)
	touch := func(id string) string { return "touch " + filepath.Join(rec, id) }
	cmd := func(id string) map[string]any { return map[string]any{"type": "command", "command": touch(id)} }
	group := func(m string, hs ...map[string]any) map[string]any {
		g := map[string]any{"hooks": hs}
		if m != "-" {
			g["matcher"] = m
		}
		return g
	}
	writeJSONFile(t, root, "gemini-extension.json", map[string]any{"name": pluginName, "version": "1.0.0",
		"hooks": map[string]any{"BeforeTool": []any{group("", cmd("manifest-field"))}}})
	writeJSONFile(t, root, "hooks/hooks.json", map[string]any{"hooks": map[string]any{
		"BeforeTool": []any{
			group("run_shell_command",
				cmd("type-command"),
				map[string]any{"type": "Command", "command": touch("type-Command")},
				map[string]any{"command": touch("type-missing")},
				map[string]any{"type": "plugin", "command": touch("type-plugin")},
				map[string]any{"type": "runtime", "name": "rt", "command": touch("type-runtime")},
				map[string]any{"type": "http", "url": "http://127.0.0.1:9/", "command": touch("type-http")},
			),
			group("shell", cmd("matcher-partial")),
			group("^shell$", cmd("matcher-anchored")),
			group(" run_shell_command ", cmd("matcher-spaces")),
			group("RUN_SHELL_COMMAND", cmd("matcher-case")),
			group("Bash", cmd("matcher-claude")),
			group("-", cmd("matcher-none")),
			group("", map[string]any{"type": "command", "command": touch("args-command"), "args": []string{filepath.Join(rec, "args-arg")}}),
		},
		"beforetool":   []any{group("", cmd("event-lower"))},
		"PreToolUse":   []any{group("", cmd("event-claude"))},
		"BeforeAgent":  []any{group("nomatch", cmd("before-agent-nomatch"))},
		"AfterAgent":   []any{group("nomatch", cmd("after-agent-nomatch"))},
		"BeforeModel":  []any{group("nomatch", cmd("before-model-nomatch"))},
		"SessionStart": []any{group("nomatch", cmd("session-nomatch")), group("startup", cmd("session-startup")), group("start", cmd("session-partial"))},
	}})
	res := a.Run(t, "run it")

	ents, err := os.ReadDir(rec)
	if err != nil {
		t.Fatal(err)
	}
	var ran []string
	for _, e := range ents {
		ran = append(ran, e.Name())
	}
	want := []string{
		"after-agent-nomatch", "args-command", "before-agent-nomatch", "before-model-nomatch",
		"matcher-none", "matcher-partial", "matcher-spaces", "session-startup", "type-command", "type-plugin",
	}
	if !slices.Equal(ran, want) {
		t.Fatalf("Gemini CLI ran the hooks %q, want %q (found by trying Gemini CLI 0.61)\n%s", ran, want, res)
	}

	var review struct {
		Components struct {
			Hooks []struct {
				Event   string   `json:"event"`
				Matcher string   `json:"matcher"`
				Type    string   `json:"type"`
				Command string   `json:"command"`
				Args    []string `json:"args"`
				Shell   bool     `json:"shell"`
			} `json:"hooks"`
		} `json:"components"`
	}
	out := BundlectlRun(t, t.TempDir(), "review", "--json", root)
	if err := json.Unmarshal([]byte(out), &review); err != nil {
		t.Fatalf("review --json: %v\n%s", err, out)
	}
	for _, id := range ran {
		listed := slices.ContainsFunc(review.Components.Hooks, func(h struct {
			Event   string   `json:"event"`
			Matcher string   `json:"matcher"`
			Type    string   `json:"type"`
			Command string   `json:"command"`
			Args    []string `json:"args"`
			Shell   bool     `json:"shell"`
		}) bool {
			return h.Type == "command" && h.Shell && len(h.Args) == 0 && h.Command == touch(id)
		})
		if !listed {
			t.Errorf("Gemini CLI ran %q as a shell command; the review does not list that command hook:\n%s", touch(id), out)
		}
	}
	human := BundlectlRun(t, t.TempDir(), "review", root)
	for _, ev := range []string{"BeforeAgent", "AfterAgent", "BeforeModel"} {
		if !strings.Contains(human, `on "`+ev+`", matcher: all (Gemini CLI ignores the matcher "nomatch" on this event)`) {
			t.Errorf("Gemini CLI ran the %s hook whatever its matcher; the review shows the matcher as narrowing it:\n%s", ev, human)
		}
	}
}
