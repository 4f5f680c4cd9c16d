package agenttest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
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
// BeforeModel; a command run alone as a shell string, its args unread,
// its env set;
// no hooks from gemini-extension.json itself — and (2) that bundlectl's
// review lists each hook that ran as the shell command it ran, and shows
// no matcher narrowing a hook that ran whatever its matcher said (bundle
// TestGeminiHookShapes, review TestRenderGeminiIgnoredMatcher).
func TestGeminiHookShapes(t *testing.T) {
	t.Parallel()
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
			group("", map[string]any{"type": "command", "command": "touch " + filepath.Join(rec, "env-$AGENTTEST_HOOK_ENV"), "env": map[string]string{"AGENTTEST_HOOK_ENV": "set"}}),
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
		"env-set", "matcher-none", "matcher-partial", "matcher-spaces", "session-startup", "type-command", "type-plugin",
	}
	if !slices.Equal(ran, want) {
		t.Fatalf("Gemini CLI ran the hooks %q, want %q (found by trying Gemini CLI 0.61)\n%s", ran, want, res)
	}

	var review struct {
		Components struct {
			Hooks []struct {
				Event   string            `json:"event"`
				Matcher string            `json:"matcher"`
				Type    string            `json:"type"`
				Command string            `json:"command"`
				Args    []string          `json:"args"`
				Shell   bool              `json:"shell"`
				Env     map[string]string `json:"env"`
			} `json:"hooks"`
		} `json:"components"`
	}
	out := BundlectlRun(t, t.TempDir(), "review", "--json", root)
	if err := json.Unmarshal([]byte(out), &review); err != nil {
		t.Fatalf("review --json: %v\n%s", err, out)
	}
	for _, id := range ran {
		command, env := touch(id), ""
		if id == "env-set" {
			command, env = "touch "+filepath.Join(rec, "env-$AGENTTEST_HOOK_ENV"), "set"
		}
		listed := false
		for _, h := range review.Components.Hooks {
			listed = listed || h.Type == "command" && h.Shell && len(h.Args) == 0 && h.Command == command && h.Env["AGENTTEST_HOOK_ENV"] == env
		}
		if !listed {
			t.Errorf("Gemini CLI ran %q as a shell command (env AGENTTEST_HOOK_ENV=%q); the review does not list that command hook:\n%s", command, env, out)
		}
	}
	human := BundlectlRun(t, t.TempDir(), "review", root)
	for _, ev := range []string{"BeforeAgent", "AfterAgent", "BeforeModel"} {
		if !strings.Contains(human, `on "`+ev+`", matcher: all (Gemini CLI ignores the matcher "nomatch" on this event)`) {
			t.Errorf("Gemini CLI ran the %s hook whatever its matcher; the review shows the matcher as narrowing it:\n%s", ev, human)
		}
	}
}

// TestGeminiPolicyRules runs Gemini CLI 0.61 with an extension's policy
// file and checks the review against what it applied: an extension's
// allow rule never lets a tool run without confirmation (while the same
// rule in the user's own policies does), so it grants nothing; a deny
// rule holds, even in yolo mode, unless Gemini CLI drops it — a rule for
// yolo mode, a file in a subdirectory, a decision not in lower case, a
// rule without a priority, a file with a rule without a toolName, a rule
// whose pattern nests a repetition (its isSafeRegExp, which takes the ?
// of (?: for one) or that JavaScript cannot compile ((?i)); a priority
// written 100.0 is a whole number to it. The review warns (policy.ignored) exactly
// where Gemini CLI left the rule out, so a dropped deny is not shown as a
// protection that holds (bundle corpus case gemini-policy-ignored).
func TestGeminiPolicyRules(t *testing.T) {
	t.Parallel()
	const (
		allow = "[[rule]]\ntoolName = \"run_shell_command\"\ndecision = \"allow\"\npriority = 100\n"
		deny  = "[[rule]]\ntoolName = \"run_shell_command\"\ndecision = \"deny\"\npriority = 100\n"
	)
	for _, c := range []struct {
		name    string
		yolo    bool // else Gemini CLI runs in its default approval mode
		user    bool // the file is the user's own policy, not the extension's
		rel     string
		toml    string
		ran     bool
		ignored bool
	}{
		{"user-allow", false, true, "policies/p.toml", allow, true, false},
		{"allow", false, false, "policies/p.toml", allow, false, true},
		{"allow-every-tool", false, false, "policies/p.toml", "[[rule]]\ntoolName = \"*\"\ndecision = \"allow\"\npriority = 999\n", false, true},
		{"deny", true, false, "policies/p.toml", deny, false, false},
		{"deny-command-prefix", true, false, "policies/p.toml", "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"touch\"\ndecision = \"deny\"\npriority = 100\n", false, false},
		{"deny-yolo-mode", true, false, "policies/p.toml", deny + "modes = [\"yolo\"]\n", true, true},
		{"deny-subdirectory", true, false, "policies/sub/p.toml", deny, true, true},
		{"deny-upper-case", true, false, "policies/p.toml", "[[rule]]\ntoolName = \"run_shell_command\"\ndecision = \"DENY\"\npriority = 100\n", true, true},
		{"deny-no-priority", true, false, "policies/p.toml", "[[rule]]\ntoolName = \"run_shell_command\"\ndecision = \"deny\"\n", true, true},
		{"deny-float-priority", true, false, "policies/p.toml", "[[rule]]\ntoolName = \"run_shell_command\"\ndecision = \"deny\"\npriority = 100.0\n", false, false},
		{"deny-beside-rule-without-tool", true, false, "policies/p.toml", deny + "\n[[rule]]\nmcpName = \"files\"\ndecision = \"deny\"\npriority = 100\n", true, true},
		{"deny-args-pattern", true, false, "policies/p.toml", deny + "argsPattern = \"touch +\"\n", false, false},
		{"deny-nested-repetition", true, false, "policies/p.toml", deny + "argsPattern = \"(touch +)+\"\n", true, true},
		{"deny-inline-flag", true, false, "policies/p.toml", deny + "argsPattern = \"(?i)TOUCH\"\n", true, true},
		{"deny-repeated-group", true, false, "policies/p.toml", deny + "argsPattern = \"(?:touch)+\"\n", true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			marker := filepath.Join(t.TempDir(), markerName)
			a := New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+marker), Say("done"))
			if !c.yolo {
				// Agent.Command asks for yolo mode; this puts Gemini CLI
				// back in its default mode, where the shell tool needs
				// confirmation, which -p mode cannot give.
				a.Launcher = []string{"/bin/sh", "-c", `for x; do shift; [ "$x" = yolo ] && x=default; set -- "$@" "$x"; done; exec "$@"`, "sh"}
			}
			root := filepath.Join(a.ConfigDir(), "extensions", pluginName)
			writeJSONFile(t, root, "gemini-extension.json", map[string]any{"name": pluginName, "version": "1.0.0"})
			dir := root
			if c.user {
				dir = a.ConfigDir()
			}
			writeFile(t, dir, c.rel, c.toml, 0o644)
			res := a.Run(t, "make the marker")
			if _, err := os.Stat(marker); (err == nil) != c.ran {
				t.Fatalf("the shell command ran: %v, want %v (found by trying Gemini CLI 0.61)\n%s", err == nil, c.ran, res)
			}
			if c.user {
				return
			}
			warnings, out := ReviewWarnings(t, root)
			warned := false
			for _, w := range warnings {
				warned = warned || w.Rule == "policy.ignored" && strings.HasPrefix(w.Path, c.rel)
			}
			if warned != c.ignored {
				t.Errorf("the review warns that Gemini CLI leaves the rule out: %v, want %v (the command ran: %v)\n%s", warned, c.ignored, c.ran, out)
			}
		})
	}
}

// TestGeminiAgentTools runs an extension's sub-agent in Gemini CLI 0.61
// (invoke_agent) and compares the tools its model requests offered with
// the review's: the review must never show fewer. A front server sends
// the sub-agent's requests (those carrying its system prompt) to a model
// stand-in of their own, which calls the shell tool and then
// complete_task. No tools key is every tool, the shell included, as the
// review says; "tools: [read_file]" is read_file alone (complete_task is
// Gemini CLI's own way out of every sub-agent).
func TestGeminiAgentTools(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, tools string
		shellRuns   bool
	}{
		{"none-listed", "", true},
		{"read-file", "tools:\n  - read_file\n", false},
		{"every", "tools:\n  - \"*\"\n", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			const prompt = "agenttest-subagent-prompt-3c1d"
			marker := filepath.Join(t.TempDir(), markerName)
			a := New(t, GeminiCLI, Call("invoke_agent", map[string]any{"agent_name": "helper", "prompt": "go"}), Say("done"))
			sub := NewModel(t, Gemini, ShellCall(GeminiCLI, "touch "+marker), Call("complete_task", map[string]any{"result": "ok"}))
			mainURL, _ := url.Parse(a.Model.URL)
			subURL, _ := url.Parse(sub.URL)
			toMain, toSub := httputil.NewSingleHostReverseProxy(mainURL), httputil.NewSingleHostReverseProxy(subURL)
			front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(body))
				if bytes.Contains(body, []byte(prompt)) {
					toSub.ServeHTTP(w, r)
					return
				}
				toMain.ServeHTTP(w, r)
			}))
			defer front.Close()
			a.Env = append(a.Env, "GOOGLE_GEMINI_BASE_URL="+front.URL) // the last value wins
			root := filepath.Join(a.ConfigDir(), "extensions", pluginName)
			writeJSONFile(t, root, "gemini-extension.json", map[string]any{"name": pluginName, "version": "1.0.0"})
			writeFile(t, root, "agents/helper.md", "---\nname: helper\ndescription: helps\n"+c.tools+"---\n"+prompt+"\n", 0o644)
			res := a.Run(t, "delegate")

			calls := sub.ModelCalls()
			if len(calls) == 0 {
				t.Fatalf("the sub-agent never reached its model\n%s\n%s", res, a.Model.Dump())
			}
			var in struct {
				Tools []struct {
					Functions []struct {
						Name string `json:"name"`
					} `json:"functionDeclarations"`
				} `json:"tools"`
			}
			if err := json.Unmarshal(calls[0].Body, &in); err != nil {
				t.Fatal(err)
			}
			var offered []string
			for _, tl := range in.Tools {
				for _, f := range tl.Functions {
					if f.Name != "complete_task" {
						offered = append(offered, f.Name)
					}
				}
			}
			if _, err := os.Stat(marker); (err == nil) != c.shellRuns {
				t.Fatalf("the sub-agent's shell command ran: %v, want %v (offered %q)\n%s", err == nil, c.shellRuns, offered, res)
			}

			var review struct {
				Components struct {
					Agents []struct {
						Name   string `json:"name"`
						Grants struct {
							Tools []string `json:"tools"`
						} `json:"grants"`
					} `json:"agents"`
				} `json:"components"`
			}
			out := BundlectlRun(t, t.TempDir(), "review", "--json", root)
			if err := json.Unmarshal([]byte(out), &review); err != nil {
				t.Fatalf("review --json: %v\n%s", err, out)
			}
			if len(review.Components.Agents) != 1 {
				t.Fatalf("the review lists %d agents, want the one Gemini CLI ran\n%s", len(review.Components.Agents), out)
			}
			listed := review.Components.Agents[0].Grants.Tools
			if len(listed) == 0 || slices.Contains(listed, "*") {
				return // the review says every tool of the session
			}
			for _, name := range offered {
				if !slices.Contains(listed, name) {
					t.Errorf("Gemini CLI offered the sub-agent %q; the review lists only %q\n%s", name, listed, out)
				}
			}
		})
	}
}
