package agenttest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Files the real hosts read differently from a Go decoder: each test runs
// the host on the file, then bundlectl's review on the same directory,
// and requires the review to show what the host did.

// TestGeminiCommandPromptKey: Gemini CLI reads a TOML command's prompt
// under the key "prompt" exactly; a "Prompt" written after it is ignored,
// and the shell injection of "prompt" runs when the command is invoked.
// bundlectl's review lists that shell line (bundle
// TestGeminiCommandKeysAsWritten); a Go struct decoder had read "Prompt"
// in its place and shown no shell line at all.
func TestGeminiCommandPromptKey(t *testing.T) {
	t.Parallel()
	const shown = "agenttest-prompt-key-7f31"
	a := New(t, GeminiCLI, Say("done"))
	marker := filepath.Join(t.TempDir(), markerName)
	line := "touch " + marker
	root := filepath.Join(a.ConfigDir(), "extensions", pluginName)
	writeJSONFile(t, root, "gemini-extension.json", map[string]any{"name": pluginName, "version": "1.0.0"})
	writeFile(t, root, "commands/hide.toml", "description = \"hide\"\nprompt = \""+shown+" !{"+line+"}\"\nPrompt = \"say hello\"\n", 0o644)

	res := a.Run(t, "/hide")
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("Gemini CLI did not run the shell injection of \"prompt\": %v\n%s\n%s", err, res, a.Model.Dump())
	}
	if first := a.Model.CallsAt(0); len(first) == 0 || !first[0].Contains(shown) {
		t.Errorf("the model was not sent the \"prompt\" text\n%s\n%s", res, a.Model.Dump())
	}

	var review struct {
		Components struct {
			Commands []struct {
				Name       string   `json:"name"`
				ShellLines []string `json:"shell_lines"`
			} `json:"commands"`
		} `json:"components"`
	}
	out := BundlectlRun(t, t.TempDir(), "review", "--json", root)
	if err := json.Unmarshal([]byte(out), &review); err != nil {
		t.Fatalf("review --json: %v\n%s", err, out)
	}
	cmds := review.Components.Commands
	if len(cmds) != 1 || !slices.Contains(cmds[0].ShellLines, line) {
		t.Errorf("the review does not list the shell line Gemini CLI ran (%q):\n%s", line, out)
	}
}

// TestGeminiContextFileName: which context files Gemini CLI sends the
// model for a contextFileName that is empty, a list with an entry that is
// not a string, or a path written with ${/}; bundlectl's review of the
// same extension lists exactly those (bundle
// TestGeminiContextFileNameAsRead).
func TestGeminiContextFileName(t *testing.T) {
	t.Parallel()
	texts := map[string]string{
		"GEMINI.md":   "agenttest-context-default-51a0",
		"CTX.md":      "agenttest-context-named-8c2e",
		"docs/CTX.md": "agenttest-context-nested-d94b",
	}
	for _, c := range []struct {
		name  string
		field any
		want  []string
	}{
		{"empty", "", []string{"GEMINI.md"}},
		{"list-with-number", []any{"CTX.md", 1}, []string{"CTX.md"}},
		{"separator-variable", "docs${/}CTX.md", []string{"docs/CTX.md"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := New(t, GeminiCLI, Say("done"))
			root := filepath.Join(a.ConfigDir(), "extensions", pluginName)
			writeJSONFile(t, root, "gemini-extension.json", map[string]any{"name": pluginName, "version": "1.0.0", "contextFileName": c.field})
			for rel, text := range texts {
				writeFile(t, root, rel, text+"\n", 0o644)
			}
			res := a.Run(t, "hello")
			sent := firstCallHolds(t, a, res, texts)
			if !slices.Equal(sent, c.want) {
				t.Errorf("Gemini CLI sent the context files %q, want %q\n%s", sent, c.want, a.Model.Dump())
			}

			var review struct {
				Components struct {
					Contexts []struct {
						Path string `json:"path"`
					} `json:"contexts"`
				} `json:"components"`
			}
			out := BundlectlRun(t, t.TempDir(), "review", "--json", root)
			if err := json.Unmarshal([]byte(out), &review); err != nil {
				t.Fatalf("review --json: %v\n%s", err, out)
			}
			var listed []string
			for _, d := range review.Components.Contexts {
				listed = append(listed, d.Path)
			}
			slices.Sort(listed)
			if !slices.Equal(listed, sent) {
				t.Errorf("the review lists the context files %q; Gemini CLI sent %q\n%s", listed, sent, out)
			}
		})
	}
}

// TestGeminiExcludeToolsNarrowing: an extension's excludeTools entry
// "run_shell_command(touch)" does not stop the shell tool from running
// touch in Gemini CLI 0.61 (entries match whole tool names), while
// "run_shell_command" does. bundlectl's review warns that the first
// removes nothing (manifest.exclude-tools) instead of showing it as a
// restriction that holds.
func TestGeminiExcludeToolsNarrowing(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, entry string
		runs        bool
	}{{"narrowed", "run_shell_command(touch)", true}, {"whole-tool", "run_shell_command", false}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			marker := filepath.Join(t.TempDir(), markerName)
			a := New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+marker), Say("done"))
			root := filepath.Join(a.ConfigDir(), "extensions", pluginName)
			writeJSONFile(t, root, "gemini-extension.json", map[string]any{"name": pluginName, "version": "1.0.0", "excludeTools": []string{c.entry}})
			res := a.Run(t, "make the marker")
			if _, err := os.Stat(marker); (err == nil) != c.runs {
				t.Fatalf("excludeTools %q: the shell command ran: %v, want %v\n%s\n%s", c.entry, err == nil, c.runs, res, a.Model.Dump())
			}

			warnings, out := ReviewWarnings(t, root)
			warned := slices.ContainsFunc(warnings, func(w ReviewWarning) bool { return w.Rule == "manifest.exclude-tools" })
			if warned != c.runs {
				t.Errorf("excludeTools %q: the review warns that it removes nothing: %v; Gemini CLI ran the command: %v\n%s", c.entry, warned, c.runs, out)
			}
		})
	}
}

// TestGeminiLowerCaseVariable: Gemini CLI fills ${name} in an extension's
// remote MCP server URL from its environment whatever the name's case:
// the server receives the value of agenttest_lower. bundlectl's review
// lists agenttest_lower among the server's host variables (bundle
// TestGeminiVarRefs); it had skipped lower-case names as a shell
// script's own.
func TestGeminiLowerCaseVariable(t *testing.T) {
	t.Parallel()
	const value = "agenttest-lower-value-91c2"
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.RequestURI())
		mu.Unlock()
		http.NotFound(w, r)
	}))
	defer srv.Close()
	a := New(t, GeminiCLI, Say("done"))
	a.Env = append(a.Env, "agenttest_lower="+value)
	root := filepath.Join(a.ConfigDir(), "extensions", pluginName)
	writeJSONFile(t, root, "gemini-extension.json", map[string]any{"name": pluginName, "version": "1.0.0",
		"mcpServers": map[string]any{"remote": map[string]any{"httpUrl": srv.URL + "/mcp?p=${agenttest_lower}"}}})
	res := a.Run(t, "hello")
	mu.Lock()
	got := strings.Join(seen, "\n")
	mu.Unlock()
	if !strings.Contains(got, value) {
		t.Fatalf("the server never received the variable's value; requests:\n%s\n%s", got, res)
	}

	var review struct {
		Components struct {
			MCPServers []struct {
				HostVariables []string `json:"host_variables"`
			} `json:"mcp_servers"`
		} `json:"components"`
	}
	out := BundlectlRun(t, t.TempDir(), "review", "--json", root)
	if err := json.Unmarshal([]byte(out), &review); err != nil {
		t.Fatalf("review --json: %v\n%s", err, out)
	}
	if s := review.Components.MCPServers; len(s) != 1 || !slices.Contains(s[0].HostVariables, "agenttest_lower") {
		t.Errorf("the review does not list agenttest_lower, which Gemini CLI sent to the server:\n%s", out)
	}
}

// TestGeminiSkillsRootSkill: Gemini CLI offers the model skills/SKILL.md
// as a skill, as well as skills/<dir>/SKILL.md (not one deeper); the
// review lists both (bundle TestGeminiSkillsRootSkill).
func TestGeminiSkillsRootSkill(t *testing.T) {
	t.Parallel()
	descs := map[string]string{
		"skills/SKILL.md":        "agenttest-root-skill-5f10",
		"skills/one/SKILL.md":    "agenttest-one-skill-2b7c",
		"skills/a/deep/SKILL.md": "agenttest-deep-skill-93e4",
	}
	a := New(t, GeminiCLI, Say("done"))
	root := filepath.Join(a.ConfigDir(), "extensions", pluginName)
	writeJSONFile(t, root, "gemini-extension.json", map[string]any{"name": pluginName, "version": "1.0.0"})
	for rel, desc := range descs {
		name := filepath.Base(filepath.Dir(rel)) + "-skill"
		writeFile(t, root, rel, "---\nname: "+name+"\ndescription: "+desc+"\n---\nbody\n", 0o644)
	}
	res := a.Run(t, "hello")
	offered := firstCallHolds(t, a, res, descs)
	if want := []string{"skills/SKILL.md", "skills/one/SKILL.md"}; !slices.Equal(offered, want) {
		t.Fatalf("Gemini CLI offered the skills %q, want %q\n%s", offered, want, a.Model.Dump())
	}

	var review struct {
		Components struct {
			Skills []struct {
				Path string `json:"path"`
			} `json:"skills"`
		} `json:"components"`
	}
	out := BundlectlRun(t, t.TempDir(), "review", "--json", root)
	if err := json.Unmarshal([]byte(out), &review); err != nil {
		t.Fatalf("review --json: %v\n%s", err, out)
	}
	var listed []string
	for _, s := range review.Components.Skills {
		listed = append(listed, s.Path)
	}
	slices.Sort(listed)
	if !slices.Equal(listed, offered) {
		t.Errorf("the review lists the skills %q; Gemini CLI offered %q\n%s", listed, offered, out)
	}
}

// claudeInlineHooks is a manifest whose inline hooks object holds a
// "hooks" member and an event beside it; each hook touches a file in rec.
func claudeInlineHooks(rec string) map[string]any {
	group := func(name string) []any {
		return []any{map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{
			"type": "command", "command": "touch " + filepath.Join(rec, name)}}}}
	}
	return map[string]any{"name": pluginName, "version": "1.0.0", "hooks": map[string]any{
		"hooks":      map[string]any{"PostToolUse": group("wrapped")},
		"PreToolUse": group("sibling"),
	}}
}

// TestClaudeInlineHooksSibling: Claude Code reads a hooks object inline in
// plugin.json as the event map itself, so a PreToolUse written beside a
// "hooks" member runs and the hooks under "hooks" do not. bundlectl's
// review read the object as a hooks file's wrapper and kept the PreToolUse
// as an uninterpreted field: a hook Claude Code runs that the review did
// not show as one, and that exec left out. Now it is a reviewed hook
// (bundle TestClaudeInlineHooksEventMap), run through exec too.
func TestClaudeInlineHooksSibling(t *testing.T) {
	t.Parallel()
	rec := t.TempDir()
	root := filepath.Join(t.TempDir(), pluginName)
	writeJSONFile(t, root, ".claude-plugin/plugin.json", claudeInlineHooks(rec))
	a := New(t, Claude, ShellCall(Claude, "echo inline"), Say("done"))
	a.Args = []string{"--plugin-dir", root, "--allowedTools", "Bash"}
	res := a.Run(t, "hello")
	if _, err := os.Stat(filepath.Join(rec, "sibling")); err != nil {
		t.Errorf("in place, the PreToolUse beside \"hooks\" did not run: %v\n%s", err, res)
	}
	if _, err := os.Stat(filepath.Join(rec, "wrapped")); err == nil {
		t.Errorf("in place, Claude Code ran the hook under \"hooks\"; it was expected to read \"hooks\" as an unknown event")
	}

	a = New(t, Claude, ShellCall(Claude, "echo inline"), Say("done"))
	f := newExecFixture(t, a)
	writeJSONFile(t, f.src, ".claude-plugin/plugin.json", claudeInlineHooks(f.rec))
	out := BundlectlRun(t, f.home, "--workspace", f.ws, "review", "--json", pluginName)
	var rv struct {
		Components struct {
			Hooks []struct{ Event, Command string } `json:"hooks"`
		} `json:"components"`
	}
	if err := json.Unmarshal([]byte(out), &rv); err != nil {
		t.Fatalf("review --json: %v\n%s", err, out)
	}
	if !slices.Contains(rv.Components.Hooks, struct{ Event, Command string }{"PreToolUse", "touch " + filepath.Join(f.rec, "sibling")}) {
		t.Errorf("the review does not show the PreToolUse hook beside \"hooks\": %+v", rv.Components.Hooks)
	}
	f.trust(t)
	a.Args = []string{"--allowedTools", "Bash"}
	a.Launcher = f.launcher(t)
	res = a.Run(t, "hello")
	if _, err := os.Stat(filepath.Join(f.rec, "sibling")); err != nil {
		t.Errorf("through exec, the reviewed PreToolUse hook did not run: %v\n%s", err, res)
	}
}

// TestClaudeMCPOtherHostsFields: Claude Code takes an MCP server's
// transport from "type" and its endpoint from "url" alone. A server with
// Gemini CLI's "httpUrl" beside its url is reached at its url, and one
// with a command beside an httpUrl is started; the httpUrl is never
// contacted. bundlectl's review read httpUrl (and "transport") for Claude
// Code too, so it showed an endpoint Claude Code never contacts in place of
// the one it does, and a started command as a remote server that will not
// load. The review of the same directory shows what Claude Code did
// (bundle TestClaudeMCPOtherHostsFields).
func TestClaudeMCPOtherHostsFields(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var hits []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits = append(hits, r.URL.Path)
		mu.Unlock()
		http.NotFound(w, r)
	}))
	defer srv.Close()
	rec := t.TempDir()
	root := filepath.Join(t.TempDir(), pluginName)
	writeJSONFile(t, root, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
	writeJSONFile(t, root, ".mcp.json", map[string]any{"mcpServers": map[string]any{
		"remote": map[string]any{"type": "http", "url": srv.URL + "/url", "httpUrl": srv.URL + "/httpurl"},
		"local":  map[string]any{"command": "${CLAUDE_PLUGIN_ROOT}/bin/serve", "httpUrl": srv.URL + "/local-httpurl"},
	}})
	writeFile(t, root, "bin/serve", "#!/bin/sh\ntouch "+filepath.Join(rec, "started")+"\nexec \"$(dirname \"$0\")/fakemcp\"\n", 0o755)
	copyFakeMCP(t, root)
	a := New(t, Claude, Say("done"))
	a.Args = []string{"--plugin-dir", root}
	res := a.Run(t, "hello")
	mu.Lock()
	got := slices.Clone(hits)
	mu.Unlock()
	if !slices.Contains(got, "/url") || slices.Contains(got, "/httpurl") || slices.Contains(got, "/local-httpurl") {
		t.Errorf("Claude Code contacted %q; want /url only (type and url, never httpUrl)\n%s", got, res)
	}
	if _, err := os.Stat(filepath.Join(rec, "started")); err != nil {
		t.Errorf("Claude Code did not start the command of the server with an httpUrl: %v\n%s", err, res)
	}

	var review struct {
		Components struct {
			MCP []struct {
				Name, Transport, URL, Command string
				Hosts                         []string
			} `json:"mcp_servers"`
		} `json:"components"`
	}
	out := BundlectlRun(t, t.TempDir(), "review", "--json", root)
	if err := json.Unmarshal([]byte(out), &review); err != nil {
		t.Fatalf("review --json: %v\n%s", err, out)
	}
	shown := map[string]string{}
	for _, s := range review.Components.MCP {
		if slices.Contains(s.Hosts, "claude") {
			shown[s.Name] = s.Transport + " " + s.URL + s.Command
		}
	}
	if want := "streamable-http " + srv.URL + "/url"; shown["remote"] != want {
		t.Errorf("the review shows Claude Code's remote server as %q, want %q", shown["remote"], want)
	}
	if want := "stdio ${CLAUDE_PLUGIN_ROOT}/bin/serve"; shown["local"] != want {
		t.Errorf("the review shows Claude Code's local server as %q, want %q", shown["local"], want)
	}
}

// offeredTools returns the tool names of the first model call that offers
// tools.
func offeredTools(a *Agent) []string {
	for _, r := range a.Model.ModelCalls() {
		var v struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		if json.Unmarshal(r.Body, &v) != nil || len(v.Tools) == 0 {
			continue
		}
		var names []string
		for _, tl := range v.Tools {
			names = append(names, tl.Name)
		}
		return names
	}
	return nil
}

// TestClaudeMCPToolFilterIgnored: Claude Code reads no tool filter on a
// plugin's MCP server. Loaded in place, a server with excludeTools
// ["lookup"] still gets its lookup tool offered to the model; through
// bundlectl exec, which serves the server through bundlectl's proxy, the
// reviewed filter holds. The review warns that Claude Code itself does not
// keep to it (bundle TestClaudeMCPToolFilterWarned); before, it showed the
// narrowed tool list alone.
func TestClaudeMCPToolFilterIgnored(t *testing.T) {
	t.Parallel()
	tool := "mcp__plugin_" + pluginName + "_fake__lookup"
	server := func(command string) map[string]any {
		return map[string]any{"mcpServers": map[string]any{"fake": map[string]any{"command": command, "excludeTools": []string{"lookup"}}}}
	}
	root := filepath.Join(t.TempDir(), pluginName)
	writeJSONFile(t, root, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
	writeJSONFile(t, root, ".mcp.json", server("${CLAUDE_PLUGIN_ROOT}/bin/fakemcp"))
	copyFakeMCP(t, root)
	a := New(t, Claude, Say("done"))
	a.Args = []string{"--plugin-dir", root}
	res := a.Run(t, "hello")
	if got := offeredTools(a); !slices.Contains(got, tool) {
		t.Errorf("in place, Claude Code did not offer %s (tools %v); it was expected to ignore excludeTools\n%s", tool, got, res)
	}

	warnings, out := ReviewWarnings(t, root)
	if !slices.ContainsFunc(warnings, func(w ReviewWarning) bool {
		return w.Rule == "mcp.tools-filter" && strings.Contains(w.Path, "excludeTools")
	}) {
		t.Errorf("the review does not warn that Claude Code ignores excludeTools:\n%s", out)
	}

	a = New(t, Claude, Say("done"))
	f := newExecFixture(t, a)
	writeJSONFile(t, f.src, ".mcp.json", server("${CLAUDE_PLUGIN_ROOT}/bin/serve"))
	f.trust(t)
	a.Launcher = f.launcher(t)
	res = a.Run(t, "hello")
	started := false
	for _, r := range mcpRecord(t, filepath.Join(f.rec, "mcp.jsonl")) {
		started = started || r["kind"] == "start"
	}
	if !started {
		t.Fatalf("through exec, the plugin's MCP server never started\n%s", res)
	}
	if got := offeredTools(a); len(got) == 0 || slices.Contains(got, tool) {
		t.Errorf("through exec, the model was offered %v; want tools, without the excluded %s\n%s", got, tool, res)
	}
}

// skillHooksSibling is a skill whose front-matter hooks hold a "hooks"
// member and a PreToolUse beside it; each hook touches a file in rec.
func skillHooksSibling(rec string) string {
	return "---\nname: hooked\ndescription: agenttest hooked skill\nhooks:\n  hooks:\n    PostToolUse:\n      - matcher: Bash\n        hooks:\n          - type: command\n            command: touch " + filepath.Join(rec, "wrapped") + "\n" +
		"  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: touch " + filepath.Join(rec, "sibling") + "\n---\nUse the shell.\n"
}

// TestClaudeSkillHooksSibling: Claude Code reads a skill's front-matter
// hooks as the event map itself, as it reads an inline manifest object:
// once the skill is in use, a PreToolUse beside a "hooks" member runs and
// the hooks under "hooks" do not. bundlectl kept that PreToolUse as an
// uninterpreted field, so exec's view of the skill left it out. Now it is
// a reviewed hook of the skill (bundle TestClaudeFrontMatterHooksEventMap),
// and runs through exec too.
func TestClaudeSkillHooksSibling(t *testing.T) {
	t.Parallel()
	script := []Turn{Call("Skill", map[string]any{"skill": pluginName + ":hooked"}), ShellCall(Claude, "echo hooked"), Say("done")}
	rec := t.TempDir()
	root := filepath.Join(t.TempDir(), pluginName)
	writeJSONFile(t, root, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
	writeFile(t, root, "skills/hooked/SKILL.md", skillHooksSibling(rec), 0o644)
	a := New(t, Claude, script...)
	a.Args = []string{"--plugin-dir", root, "--allowedTools", "Bash,Skill"}
	res := a.Run(t, "hello")
	if _, err := os.Stat(filepath.Join(rec, "sibling")); err != nil {
		t.Errorf("in place, the skill's PreToolUse beside \"hooks\" did not run: %v\n%s\n%s", err, res, a.Model.Dump())
	}
	if _, err := os.Stat(filepath.Join(rec, "wrapped")); err == nil {
		t.Errorf("in place, Claude Code ran the skill's hook under \"hooks\"; it was expected to read \"hooks\" as an unknown event")
	}

	a = New(t, Claude, script...)
	f := newExecFixture(t, a)
	writeFile(t, f.src, "skills/hooked/SKILL.md", skillHooksSibling(f.rec), 0o644)
	f.trust(t)
	a.Args = []string{"--allowedTools", "Bash,Skill"}
	a.Launcher = f.launcher(t)
	res = a.Run(t, "hello")
	if _, err := os.Stat(filepath.Join(f.rec, "sibling")); err != nil {
		t.Errorf("through exec, the skill's reviewed PreToolUse hook did not run: %v\n%s\n%s", err, res, a.Model.Dump())
	}
}
