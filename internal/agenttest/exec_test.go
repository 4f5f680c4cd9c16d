package agenttest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// End-to-end tests of `bundlectl exec -- <agent>` with the real CLIs: a
// plugin in the host's own format (guard hook, MCP server, skill) sits in a
// workspace root, is reviewed, trusted and enabled with the real bundlectl,
// and the agent is started through bundlectl exec and driven by the model
// stand-in. Every assertion is about what happened: files that exist or do
// not, what the MCP server and the hook recorded, what reached the model.

const (
	strangerName = "stranger"
	// strangerSkill is the description of the untrusted bundle's skill: it
	// must never reach the model.
	strangerSkill = "agenttest-untrusted-skill-3b7e"
	// servedBy prefixes the MCP answer: the server answers with its own path,
	// so the test sees where it ran from.
	servedBy = "agenttest-served-by:"
)

// execFixture is a workspace with the plugin installed, a bundlectl home,
// and where the plugin's hook and server record what they saw.
type execFixture struct {
	host     Host
	home     string // BUNDLECTL_HOME
	ws       string // the workspace (the agent's working directory)
	src      string // the plugin's source directory in the workspace root
	rec      string
	marker   string
	tamper   string // file the tampered guard would create
	stranger string
}

func newExecFixture(t testing.TB, a *Agent) *execFixture {
	t.Helper()
	tmp := t.TempDir()
	f := &execFixture{
		host:   a.Host,
		home:   filepath.Join(tmp, "bundlectl-home"),
		ws:     a.Workdir,
		rec:    filepath.Join(tmp, "rec"),
		marker: filepath.Join(tmp, markerName),
		tamper: filepath.Join(tmp, "tampered-guard-ran"),
	}
	t.Cleanup(func() { Writable(f.home) })
	for _, d := range []string{f.home, f.rec} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	roots := filepath.Join(f.ws, ".bundlectl", "bundles")
	f.src = filepath.Join(roots, pluginName)
	f.stranger = filepath.Join(roots, strangerName)
	switch a.Host {
	case Claude:
		writeJSONFile(t, f.src, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0", "description": "agenttest plugin"})
		writeJSONFile(t, f.src, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
			"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/bin/guard.sh"}}}}}})
		writeJSONFile(t, f.src, ".mcp.json", map[string]any{"mcpServers": map[string]any{"fake": map[string]any{
			"command": "${CLAUDE_PLUGIN_ROOT}/bin/serve"}}})
		writeJSONFile(t, f.stranger, ".claude-plugin/plugin.json", map[string]any{"name": strangerName, "version": "1.0.0"})
	case Codex:
		writeJSONFile(t, f.src, ".codex-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0", "description": "agenttest plugin"})
		writeJSONFile(t, f.src, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
			"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": "${PLUGIN_ROOT}/bin/guard.sh"}}}}}})
		writeJSONFile(t, f.src, ".mcp.json", map[string]any{"mcpServers": map[string]any{"fake": map[string]any{
			"command": "./bin/serve", "cwd": "."}}})
		writeJSONFile(t, f.stranger, ".codex-plugin/plugin.json", map[string]any{"name": strangerName, "version": "1.0.0"})
	case GeminiCLI:
		writeJSONFile(t, f.src, "gemini-extension.json", map[string]any{
			"name": pluginName, "version": "1.0.0", "contextFileName": "GEMINI.md",
			"mcpServers": map[string]any{"fake": map[string]any{"command": "${extensionPath}${/}bin${/}serve"}},
		})
		writeFile(t, f.src, "GEMINI.md", "# agentguard\n\n"+contextText+"\n", 0o644)
		writeJSONFile(t, f.src, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"BeforeTool": []any{map[string]any{
			"matcher": "run_shell_command", "hooks": []any{map[string]any{"type": "command", "command": "${extensionPath}/bin/guard.sh"}}}}}})
		writeJSONFile(t, f.stranger, "gemini-extension.json", map[string]any{"name": strangerName, "version": "1.0.0"})
	}
	writeFile(t, f.src, "bin/guard.sh", pluginGuard(f.rec), 0o755)
	writeFile(t, f.src, "bin/serve", serveScript(f.rec, servedBy), 0o755)
	copyFakeMCP(t, f.src)
	writeSkill(t, f.src)
	writeFile(t, f.stranger, "skills/stranger-skill/SKILL.md", "---\nname: stranger-skill\ndescription: "+strangerSkill+"\n---\n\nnever loaded\n", 0o644)
	return f
}

// serveScript starts fakemcp from the directory the script runs in and
// answers with the script's own path.
func serveScript(rec, prefix string) string {
	return fmt.Sprintf("#!/bin/sh\nexec \"$(dirname \"$0\")/fakemcp\" -tool lookup -answer \"%s$0\" -record %s/mcp.jsonl\n", prefix, rec)
}

// newTrustedFixture is newExecFixture with marker as the file the guarded
// command would create, and the plugin reviewed, trusted and enabled.
func newTrustedFixture(t testing.TB, a *Agent, marker string) *execFixture {
	t.Helper()
	f := newExecFixture(t, a)
	f.marker = marker
	f.trust(t)
	return f
}

// trust reviews, trusts and enables the plugin through the CLI.
func (f *execFixture) trust(t testing.TB) {
	t.Helper()
	trustBundle(t, f.home, f.ws, pluginName)
}

// launcher starts the agent through bundlectl exec.
func (f *execFixture) launcher(t testing.TB) []string {
	return execLauncher(t, f.home, f.ws)
}

// snapshot returns the directory the plugin's snapshot is in.
func (f *execFixture) snapshot(t *testing.T) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(f.home, "store", "*", "bin", "guard.sh"))
	if len(m) != 1 {
		t.Fatalf("want one snapshot holding bin/guard.sh, got %v", m)
	}
	return filepath.Dir(filepath.Dir(m[0]))
}

// script is the session every host runs: read the skill, call the MCP
// tool, run the marker command the guard must block, end. Codex reads the
// skill from the prompt ($plugin:skill) instead of a tool call.
func execScript(h Host, marker string) (turns []Turn, skillTurn, mcpTurn, shellTurn int) {
	skillTurn, mcpTurn, shellTurn = 0, 1, 2
	switch h {
	case Claude:
		turns = append(turns, Call("Skill", map[string]any{"skill": pluginName + ":" + skillName}))
		turns = append(turns, MCPCall(h, "plugin_"+pluginName+"_fake", "lookup", map[string]any{"query": "owl"}))
	case Codex:
		skillTurn, mcpTurn, shellTurn = -1, 0, 1
		turns = append(turns, MCPCall(h, "fake", "lookup", map[string]any{"query": "owl"}))
	case GeminiCLI:
		turns = append(turns, Call("activate_skill", map[string]any{"name": skillName}))
		turns = append(turns, MCPCall(h, "fake", "lookup", map[string]any{"query": "owl"}))
	}
	turns = append(turns, ShellCall(h, "touch "+marker), Say("done"))
	return
}

func execPrompt(h Host) string {
	if h == Codex {
		return "tell me about owls, use $" + pluginName + ":" + skillName
	}
	return "tell me about owls"
}

func allowExecTools(a *Agent) {
	switch a.Host {
	case Claude:
		a.Args = append(a.Args, "--allowedTools", "Bash,Skill,mcp__plugin_"+pluginName+"_fake__lookup")
	case Codex:
		// Agent.Command turns the plugins feature off for the tests that
		// load none; the last -c wins.
		a.Args = append(a.Args, "-c", "features.plugins=true")
	}
}

// execSession is execScript's session for one host, ready to start
// through bundlectl exec: the fixture's plugin reviewed, trusted and
// enabled, its tools allowed.
type execSession struct {
	a                             *Agent
	f                             *execFixture
	skillTurn, mcpTurn, shellTurn int
}

func newExecSession(t *testing.T, h Host) *execSession {
	t.Helper()
	marker := filepath.Join(t.TempDir(), markerName)
	turns, skillTurn, mcpTurn, shellTurn := execScript(h, marker)
	a := New(t, h, turns...)
	f := newTrustedFixture(t, a, marker)
	allowExecTools(a)
	a.Launcher = f.launcher(t)
	return &execSession{a: a, f: f, skillTurn: skillTurn, mcpTurn: mcpTurn, shellTurn: shellTurn}
}

// runFromSnapshot runs the session and checks that what the agent got is
// the reviewed snapshot's: the skill's body (checkSkill), the MCP
// server's answer (checkMCP) and the guard's block (checkGuard).
func (s *execSession) runFromSnapshot(t *testing.T) *Result {
	t.Helper()
	res := s.a.Run(t, execPrompt(s.a.Host))
	s.f.checkSkill(t, s.a, res, s.skillTurn, skillBody)
	s.f.checkMCP(t, s.a, res, s.mcpTurn)
	s.f.checkGuard(t, s.a, res, s.shellTurn)
	return res
}

// lastAt returns the last request of a turn ("" when none came).
func lastAt(a *Agent, turn int) (Request, bool) {
	rs := a.Model.CallsAt(turn)
	if len(rs) == 0 {
		return Request{}, false
	}
	return rs[len(rs)-1], true
}

// firstCallHolds returns, sorted, the names in texts (name → a text
// unique to it) whose text the first main-loop model call holds: what the
// host offered or sent the model at the start. It fails the test when the
// host made no model call, so an empty answer means none was held.
func firstCallHolds(t *testing.T, a *Agent, res *Result, texts map[string]string) []string {
	t.Helper()
	first := a.Model.CallsAt(0)
	if len(first) == 0 {
		t.Fatalf("no model call\n%s", res)
	}
	held := []string{}
	for name, text := range texts {
		if first[0].Contains(text) {
			held = append(held, name)
		}
	}
	slices.Sort(held)
	return held
}

// firstCallHas reports whether the first main-loop model call holds
// every one of texts (false when the host made no model call).
func firstCallHas(a *Agent, texts ...string) bool {
	first := a.Model.CallsAt(0)
	if len(first) == 0 {
		return false
	}
	for _, s := range texts {
		if !first[0].Contains(s) {
			return false
		}
	}
	return true
}

// trustBundle reviews, trusts and enables the bundle name in home and
// workspace ws through the CLI, as a user would before bundlectl exec.
func trustBundle(t testing.TB, home, ws, name string) {
	t.Helper()
	out := BundlectlRun(t, home, "--workspace", ws, "review", "--json", name)
	var rv struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal([]byte(out), &rv); err != nil || rv.Token == "" {
		t.Fatalf("review --json: %v\n%s", err, out)
	}
	BundlectlRun(t, home, "--workspace", ws, "trust", name, rv.Token)
	BundlectlRun(t, home, "--workspace", ws, "enable", name)
}

// execLauncher starts the agent through bundlectl exec with home and
// workspace ws.
func execLauncher(t testing.TB, home, ws string) []string {
	return []string{Bundlectl(t), "--home", home, "--workspace", ws, "exec", "--"}
}

// checkSkill asserts the skill's description was offered and its body (the
// reviewed one) reached the model, and that the untrusted bundle's skill
// never did.
func (f *execFixture) checkSkill(t *testing.T, a *Agent, res *Result, skillTurn int, body string) {
	t.Helper()
	first, ok := lastAt(a, 0)
	if !ok || !first.Contains(skillDescription) {
		t.Errorf("the skill's description was not offered to the model\n%s\n%s", res, a.Model.Dump())
	}
	at := skillTurn + 1
	if skillTurn < 0 {
		at = 0 // Codex injects the skill named in the prompt into the first request
	}
	if r, ok := lastAt(a, at); !ok || !r.Contains(body) {
		t.Errorf("the skill's body %q did not reach the model\n%s\n%s", body, res, a.Model.Dump())
	}
	for _, r := range a.Model.Requests() {
		if r.Contains(strangerSkill) {
			t.Errorf("the untrusted bundle's skill reached the model")
		}
	}
}

// checkMCP asserts the MCP tool was called once and that its answer, which
// names the server's path, came from the snapshot and reached the model.
func (f *execFixture) checkMCP(t *testing.T, a *Agent, res *Result, mcpTurn int) {
	t.Helper()
	if calls := mcpCalls(t, filepath.Join(f.rec, "mcp.jsonl")); len(calls) != 1 {
		t.Errorf("want 1 call of the plugin's MCP tool, got %d\n%s\n%s", len(calls), res, a.Model.Dump())
	}
	want := servedBy + filepath.Join(f.home, "store") + string(filepath.Separator)
	if r, ok := lastAt(a, mcpTurn+1); !ok || !r.Contains(want) {
		t.Errorf("the MCP answer from the snapshot (%s…) did not reach the model\n%s\n%s", want, res, a.Model.Dump())
	}
}

// checkGuard asserts the guard ran from the snapshot and blocked the marker
// command, and that its reason reached the model.
func (f *execFixture) checkGuard(t *testing.T, a *Agent, res *Result, shellTurn int) {
	t.Helper()
	f.checkBlockedFromSnapshot(t, a, res)
	if r, ok := lastAt(a, shellTurn+1); !ok || !r.Contains(blockReason) {
		t.Errorf("the guard's reason did not reach the model\n%s\n%s", res, a.Model.Dump())
	}
}

// checkBlockedFromSnapshot asserts the marker command did not run and the
// guard hook ran from the snapshot.
func (f *execFixture) checkBlockedFromSnapshot(t *testing.T, a *Agent, res *Result) {
	t.Helper()
	if _, err := os.Stat(f.marker); err == nil {
		t.Errorf("the guarded command ran: the marker exists\n%s\n%s", res, a.Model.Dump())
	}
	argv, err := os.ReadFile(filepath.Join(f.rec, "hook-argv.txt"))
	if err != nil {
		t.Errorf("the guard hook never ran\n%s", res)
	} else if !strings.HasPrefix(string(argv), filepath.Join(f.home, "store")+string(filepath.Separator)) {
		t.Errorf("the guard ran as %q, not from the snapshot", argv)
	}
}

// checkLeftovers asserts that the session left nothing behind: no session
// directory, and nothing in the host's own configuration (Codex: no link
// in its plugin cache; Gemini CLI: no extension in the user's directory).
func (f *execFixture) checkLeftovers(t *testing.T, a *Agent) {
	t.Helper()
	if ents, _ := os.ReadDir(filepath.Join(f.home, "views", "sessions")); len(ents) > 0 {
		t.Errorf("a session directory is left: %v", ents)
	}
	switch a.Host {
	case Codex:
		ents, _ := os.ReadDir(filepath.Join(a.ConfigDir(), "plugins", "cache"))
		for _, e := range ents {
			t.Errorf("codex's plugin cache still holds %s", e.Name())
		}
	case GeminiCLI:
		if ents, _ := os.ReadDir(filepath.Join(a.ConfigDir(), "extensions")); len(ents) > 0 {
			t.Errorf("the user's gemini extensions directory was written: %v", ents)
		}
	}
}

// TestExec: for each host, a plugin in the host's format loads through
// bundlectl exec from its reviewed snapshot: the skill's text reaches the
// model, the MCP server that answers is the snapshot's, the guard hook
// (run from the snapshot through bundlectl) blocks the marker command and
// its reason reaches the model; an untrusted bundle in the same root is not
// loaded, and stderr says so with the command that fixes it.
func TestExec(t *testing.T) {
	t.Parallel()
	for _, h := range hosts {
		t.Run(string(h), func(t *testing.T) {
			t.Parallel()
			s := newExecSession(t, h)
			a, f := s.a, s.f
			res := s.runFromSnapshot(t)
			if h == GeminiCLI {
				if r, ok := lastAt(a, 0); !ok || !r.Contains(contextText) {
					t.Errorf("the extension's context file did not reach the model\n%s", a.Model.Dump())
				}
			}
			f.checkLeftovers(t, a)
			want := fmt.Sprintf("bundlectl: bundle %q is not loaded: untrusted", strangerName)
			if !strings.Contains(res.Stderr, want) || !strings.Contains(res.Stderr, "review "+strangerName) {
				t.Errorf("stderr does not say that %q is not loaded and how to fix it:\n%s", strangerName, res.Stderr)
			}
			t.Logf("%s", res)
		})
	}
}

// TestExecDrift: after the plugin was trusted its source is edited (skill
// text, MCP answer, and a guard that no longer blocks). The agent still
// gets the reviewed snapshot — original skill text, the snapshot's server,
// the blocking guard — and stderr says an update is pending review.
func TestExecDrift(t *testing.T) {
	t.Parallel()
	for _, h := range hosts {
		t.Run(string(h), func(t *testing.T) {
			t.Parallel()
			s := newExecSession(t, h)
			a, f := s.a, s.f
			edited := "agenttest-EDITED-after-trust"
			writeFile(t, f.src, "skills/"+skillName+"/SKILL.md", fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n\n%s\n", skillName, skillDescription, edited), 0o644)
			writeFile(t, f.src, "bin/serve", serveScript(f.rec, edited), 0o755)
			writeFile(t, f.src, "bin/guard.sh", "#!/bin/sh\ntouch "+f.tamper+"\nexit 0\n", 0o755)
			res := s.runFromSnapshot(t)
			for _, r := range a.Model.Requests() {
				if r.Contains(edited) {
					t.Errorf("the edit made after trust reached the model\n%s", a.Model.Dump())
					break
				}
			}
			if _, err := os.Stat(f.tamper); err == nil {
				t.Errorf("the edited guard ran")
			}
			if !strings.Contains(res.Stderr, fmt.Sprintf("bundlectl: bundle %q: update pending review", pluginName)) || !strings.Contains(res.Stderr, "reviewed snapshot is what loads") {
				t.Errorf("stderr does not say the update is pending review and the snapshot loads:\n%s", res.Stderr)
			}
		})
	}
}

// TestExecTamper: during the session the snapshot's guard is replaced
// (by a shell command the model runs, which the intact guard lets
// through). The next guarded command is blocked — bundlectl's check of the
// snapshot fails, so the guard cannot run and the event is blocked — and
// the replaced guard never runs.
func TestExecTamper(t *testing.T) {
	t.Parallel()
	for _, h := range hosts {
		t.Run(string(h), func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			marker := filepath.Join(tmp, markerName)
			tamperScript := filepath.Join(tmp, "evil-guard")
			a := New(t, h)
			f := newTrustedFixture(t, a, marker)
			snap := f.snapshot(t)
			writeFile(t, tmp, "evil-guard", "#!/bin/sh\ntouch "+f.tamper+"\nexit 0\n", 0o755)
			guard := filepath.Join(snap, "bin", "guard.sh")
			tamper := fmt.Sprintf("chmod u+w %s && cat %s > %s", guard, tamperScript, guard)
			a.Model.Script = []Turn{ShellCall(h, tamper), ShellCall(h, "touch "+marker), Say("done")}
			allowExecTools(a)
			a.Launcher = f.launcher(t)
			res := a.Run(t, "tamper, then make the marker")

			if b, err := os.ReadFile(guard); err != nil || !strings.Contains(string(b), f.tamper) {
				t.Fatalf("the tamper command did not replace the snapshot's guard (%v)\n%s\n%s", err, res, a.Model.Dump())
			}
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("the guarded command ran after the snapshot was tampered with\n%s\n%s", res, a.Model.Dump())
			}
			if _, err := os.Stat(f.tamper); err == nil {
				t.Errorf("the tampered guard ran")
			}
			if r, ok := lastAt(a, 2); !ok || !r.Contains("cannot run, so the event is blocked") || !r.Contains(pluginName) {
				t.Errorf("the block reason naming the bundle did not reach the model\n%s\n%s", res, a.Model.Dump())
			}
			// The reason's last line, the hint, reaches the model too:
			// the host passes on a reason of several lines whole.
			if r, ok := lastAt(a, 2); !ok || !r.Contains("bundlectl: hint: bundlectl ") || !r.Contains(" review "+pluginName) {
				t.Errorf("the block reason's hint line did not reach the model\n%s\n%s", res, a.Model.Dump())
			}
		})
	}
}

// TestExecCodexClaudePlugin: a plugin with only a Claude Code manifest is
// one Codex loads too (TestCodexLoadsOtherHostsManifest), so bundlectl exec
// -- codex loads its reviewed skill, MCP server and guard hook from the
// snapshot, through bundlectl, as for a Codex plugin; and does not say it
// has nothing Codex loads.
func TestExecCodexClaudePlugin(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), markerName)
	turns, skillTurn, mcpTurn, shellTurn := execScript(Codex, marker)
	a := New(t, Codex, turns...)
	claudeForm := *a
	claudeForm.Host = Claude // the fixture's plugin in Claude Code's format
	f := newExecFixture(t, &claudeForm)
	f.host, f.marker = Codex, marker
	f.trust(t)
	allowExecTools(a)
	a.Launcher = f.launcher(t)
	s := &execSession{a: a, f: f, skillTurn: skillTurn, mcpTurn: mcpTurn, shellTurn: shellTurn}
	res := s.runFromSnapshot(t)
	f.checkLeftovers(t, a)
	if strings.Contains(res.Stderr, "has nothing codex loads") {
		t.Errorf("stderr says the plugin has nothing codex loads:\n%s", res.Stderr)
	}
	t.Logf("%s", res)
}
