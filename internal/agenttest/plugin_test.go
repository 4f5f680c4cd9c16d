package agenttest

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The plugin every host loads in these tests: a guard hook that blocks the
// shell command creating the marker, a stdio MCP server, and a skill (and,
// for Gemini CLI, a context file). Unique tokens let the tests find each part
// in the recorded model requests.
const (
	pluginName       = "agentguard"
	skillName        = "owl-facts"
	skillDescription = "Facts about owls; agenttest-skill-description-7f3a"
	skillBody        = "agenttest-skill-body-91c2: owls can turn their heads 270 degrees."
	contextText      = "agenttest-context-file-5d10"
	markerName       = "agenttest-marker"
)

// writeFile writes content to dir/rel, creating parents.
func writeFile(t testing.TB, dir, rel, content string, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

func writeJSONFile(t testing.TB, dir, rel string, v any) {
	t.Helper()
	j, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, rel, string(j), 0o644)
}

// pluginGuard is the plugin's hook: it records what it sees under rec and
// blocks (exit 2) only a command that mentions the marker, so the agent may
// still read files with the shell.
func pluginGuard(rec string) string {
	return fmt.Sprintf(`#!/bin/sh
input=$(cat)
printf '%%s' "$input" > %[1]s/hook-stdin.json
env | sort > %[1]s/hook-env.txt
pwd > %[1]s/hook-cwd.txt
printf '%%s\n' "$0" "$@" > %[1]s/hook-argv.txt
case "$input" in
*%[2]s*) echo %[3]q >&2; exit 2 ;;
esac
exit 0
`, rec, markerName, blockReason)
}

// copyFakeMCP puts the fakemcp binary at dir/bin/fakemcp.
func copyFakeMCP(t testing.TB, dir string) {
	t.Helper()
	b, err := os.ReadFile(FakeMCPServer(t))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "bin/fakemcp", string(b), 0o755)
}

func writeSkill(t testing.TB, dir string) {
	writeFile(t, dir, "skills/"+skillName+"/SKILL.md", fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n\n# Owl facts\n\n%s\n", skillName, skillDescription, skillBody), 0o644)
}

// treeState lists every path under root with its mode, size and mtime, to
// show that a host wrote nothing into a plugin directory.
func treeState(t *testing.T, root string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		lines = append(lines, fmt.Sprintf("%s %v %d %d", rel, fi.Mode(), fi.Size(), fi.ModTime().UnixNano()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// makeReadOnly clears every write bit under root. As root this does not stop
// writes (root ignores permission bits); the tree comparison after the run
// is what shows the host wrote nothing.
func makeReadOnly(t *testing.T, root string) {
	t.Helper()
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			fi, _ := os.Lstat(p)
			if fi.Mode()&fs.ModeSymlink == 0 {
				os.Chmod(p, fi.Mode().Perm()&^0o222)
			}
		}
		return nil
	})
	t.Cleanup(func() {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil {
				fi, _ := os.Lstat(p)
				if fi.Mode()&fs.ModeSymlink == 0 {
					os.Chmod(p, fi.Mode().Perm()|0o200)
				}
			}
			return nil
		})
	})
}

// envOf reads an `env | sort` dump into a map.
func envOf(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no environment recorded: %v", err)
	}
	m := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			m[k] = v
		}
	}
	return m
}

// pluginRun is what a plugin test observed.
type pluginRun struct {
	a      *Agent
	res    *Result
	rec    string // hook and MCP records
	root   string // the plugin directory the host loaded
	marker string
}

// checkPlugin asserts the parts common to every host: the guard blocked the
// marker and its reason reached the model, the plugin's MCP server answered
// and its answer reached the model, and the plugin tree was not written to.
func (p *pluginRun) checkCommon(t *testing.T, before string, blockTurn, mcpTurn int, answer string) {
	t.Helper()
	if _, err := os.Stat(p.marker); err == nil {
		t.Errorf("the plugin's guard did not block the marker command\n%s", p.res)
	}
	if _, err := os.Stat(filepath.Join(p.rec, "hook-stdin.json")); err != nil {
		t.Errorf("the plugin's hook never ran\n%s", p.res)
	}
	if calls := mcpCalls(t, filepath.Join(p.rec, "mcp.jsonl")); len(calls) != 1 {
		t.Errorf("want 1 call of the plugin's MCP tool, got %d\n%s", len(calls), p.res)
	}
	if next := p.a.Model.CallsAt(mcpTurn + 1); len(next) == 0 || !next[len(next)-1].Contains(answer) {
		t.Errorf("the plugin MCP tool's answer did not reach the model\n%s\n%s", p.res, p.a.Model.Dump())
	}
	if next := p.a.Model.CallsAt(blockTurn + 1); len(next) == 0 || !next[len(next)-1].Contains(blockReason) {
		t.Errorf("the plugin guard's reason did not reach the model\n%s\n%s", p.res, p.a.Model.Dump())
	}
	if after := treeState(t, p.root); after != before {
		t.Errorf("the host changed the plugin directory:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// logSeen logs what the plugin's hook and MCP server saw, for the notes.
func (p *pluginRun) logSeen(t *testing.T) {
	t.Helper()
	stdin, _ := os.ReadFile(filepath.Join(p.rec, "hook-stdin.json"))
	cwd, _ := os.ReadFile(filepath.Join(p.rec, "hook-cwd.txt"))
	argv, _ := os.ReadFile(filepath.Join(p.rec, "hook-argv.txt"))
	env, _ := os.ReadFile(filepath.Join(p.rec, "hook-env.txt"))
	t.Logf("plugin root %s\nhook argv: %s\nhook cwd: %s\nhook stdin: %s\nhook env:\n%s", p.root, argv, cwd, stdin, env)
	for _, r := range mcpRecord(t, filepath.Join(p.rec, "mcp.jsonl")) {
		if r["kind"] == "start" {
			t.Logf("mcp start: argv=%v cwd=%v\nenv=%v", r["argv"], r["cwd"], r["env"])
		}
	}
}

func newPluginRun(t *testing.T) *pluginRun {
	tmp := t.TempDir()
	p := &pluginRun{rec: filepath.Join(tmp, "rec"), marker: filepath.Join(tmp, markerName)}
	if err := os.Mkdir(p.rec, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestClaudePluginDir: `claude --plugin-dir DIR` loads a plugin for one
// session from a read-only directory: its skill's text reaches the model, its
// MCP server answers, its hook blocks, and ${CLAUDE_PLUGIN_ROOT} is DIR.
func TestClaudePluginDir(t *testing.T) {
	t.Parallel()
	p := newPluginRun(t)
	p.root = filepath.Join(t.TempDir(), pluginName)
	answer := "agenttest-plugin-mcp-answer-claude"
	writeJSONFile(t, p.root, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0", "description": "agenttest plugin"})
	writeJSONFile(t, p.root, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
		"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/bin/guard.sh"}}}}}})
	writeJSONFile(t, p.root, ".mcp.json", map[string]any{"mcpServers": map[string]any{"fake": map[string]any{
		"command": "${CLAUDE_PLUGIN_ROOT}/bin/fakemcp",
		"args":    []string{"-answer", answer, "-record", filepath.Join(p.rec, "mcp.jsonl")}}}})
	writeFile(t, p.root, "bin/guard.sh", pluginGuard(p.rec), 0o755)
	copyFakeMCP(t, p.root)
	writeSkill(t, p.root)
	makeReadOnly(t, p.root)
	before := treeState(t, p.root)

	mcpTool := "mcp__plugin_" + pluginName + "_fake__lookup"
	p.a = New(t, Claude,
		Call("Skill", map[string]any{"skill": pluginName + ":" + skillName}),
		Call(mcpTool, map[string]any{"query": "owl"}),
		ShellCall(Claude, "touch "+p.marker),
		Say("done"))
	p.a.Args = []string{"--plugin-dir", p.root, "--allowedTools", "Bash,Skill," + mcpTool}
	p.res = p.a.Run(t, "tell me about owls")

	if !firstCallHas(p.a, skillDescription) {
		t.Errorf("the skill's description was not offered to the model\n%s", p.a.Model.Dump())
	}
	if next := p.a.Model.CallsAt(1); len(next) == 0 || !next[len(next)-1].Contains(skillBody) {
		t.Errorf("the skill's body did not reach the model after the Skill call\n%s\n%s", p.res, p.a.Model.Dump())
	}
	p.checkCommon(t, before, 2, 1, answer)
	if got := envOf(t, filepath.Join(p.rec, "hook-env.txt"))["CLAUDE_PLUGIN_ROOT"]; got != p.root {
		t.Errorf("hook saw CLAUDE_PLUGIN_ROOT=%q, want %q", got, p.root)
	}
	for _, r := range mcpRecord(t, filepath.Join(p.rec, "mcp.jsonl")) {
		if r["kind"] == "start" {
			if argv0 := r["argv"].([]any)[0]; argv0 != filepath.Join(p.root, "bin/fakemcp") {
				t.Errorf("MCP server started as %v, want ${CLAUDE_PLUGIN_ROOT} expanded to %s", argv0, p.root)
			}
		}
	}
	p.logSeen(t)
}

// codexPlugin writes the Codex form of the test plugin into dir: the guard
// hook in hooks/hooks.json (command "${PLUGIN_ROOT}/bin/guard.sh"), an MCP
// server started as ./bin/fakemcp with cwd "." (Codex expands no placeholder
// in a plugin's MCP command; a relative cwd is taken from the plugin root),
// and the skill.
func codexPlugin(t *testing.T, dir, rec, answer string) {
	t.Helper()
	writeJSONFile(t, dir, ".codex-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0", "description": "agenttest plugin"})
	writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
		"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": codexGuardCommand}}}}}})
	writeJSONFile(t, dir, ".mcp.json", map[string]any{"mcpServers": map[string]any{"fake": map[string]any{
		"command": "./bin/fakemcp", "cwd": ".",
		"args": []string{"-answer", answer, "-record", filepath.Join(rec, "mcp.jsonl")}}}})
	writeFile(t, dir, "bin/guard.sh", pluginGuard(rec), 0o755)
	copyFakeMCP(t, dir)
	writeSkill(t, dir)
}

const (
	codexMarketplace  = "agenttest"
	codexPluginID     = pluginName + "@" + codexMarketplace
	codexGuardCommand = "${PLUGIN_ROOT}/bin/guard.sh"
)

// codexPluginTrust is the [hooks.state] key and hash that trust the plugin's
// guard: the key names the plugin and the hook file relative to the plugin
// root; the hash covers the command as written, before ${PLUGIN_ROOT} is
// expanded, so it does not depend on where the plugin sits.
func codexPluginTrust() (key, hash string) {
	return CodexHookKey(codexPluginID+":hooks/hooks.json", "PreToolUse", 0, 0),
		CodexHookHash("PreToolUse", "Bash", codexGuardCommand, CodexHookTimeout)
}

// codexPluginSessionFlags enable the test plugin and trust its guard for
// one session (-c flags), with nothing in the user's config.
func codexPluginSessionFlags() []string {
	key, hash := codexPluginTrust()
	return []string{
		"-c", fmt.Sprintf("plugins={%q={enabled=true}}", codexPluginID),
		"-c", fmt.Sprintf("hooks.state={%q={trusted_hash=%q}}", key, hash),
	}
}

// runCodexCopy puts a read-only copy of the Codex plugin written in src
// into Codex's plugin cache, enables it and trusts its guard with
// codexPluginSessionFlags, and runs the Codex plugin session (call the
// MCP tool, then the marker command the guard blocks) with prompt. It
// returns the copy's state before the run, for checkCommon.
func (p *pluginRun) runCodexCopy(t *testing.T, src, prompt string) (before string) {
	t.Helper()
	p.a = New(t, Codex,
		MCPCall(Codex, "fake", "lookup", map[string]any{"query": "owl"}),
		ShellCall(Codex, "touch "+p.marker),
		Say("done"))
	p.a.Args = append([]string{"-c", "features.plugins=true"}, codexPluginSessionFlags()...)
	p.root = placeCopy(t, filepath.Join(p.a.ConfigDir(), "plugins", "cache"), src)
	makeReadOnly(t, p.root)
	before = treeState(t, p.root)
	p.res = p.a.Run(t, prompt)
	return before
}

// TestCodexPlugin: Codex has no --plugin-dir; a plugin placed in
// $CODEX_HOME/plugins/cache/<marketplace>/<plugin>/<version>/ and enabled in
// config loads without any install step. Each case says where the plugin
// sits and how it is enabled and trusted.
func TestCodexPlugin(t *testing.T) {
	t.Parallel()
	key, hash := codexPluginTrust()
	userConfig := fmt.Sprintf("[plugins.%q]\nenabled = true\n\n[hooks.state.%q]\ntrusted_hash = %q\n", codexPluginID, key, hash)
	sessionFlags := codexPluginSessionFlags()
	cases := []struct {
		name string
		// place puts the plugin (written in src) under the cache; it returns
		// the plugin root Codex should see.
		place          func(t *testing.T, cache, src string) string
		config         string
		args           []string
		loads, guarded bool
	}{
		{name: "copy-user-config", place: placeCopy, config: userConfig, loads: true, guarded: true},
		{name: "symlinked-marketplace-session-flags", place: placeMarketplaceLink, args: sessionFlags, loads: true, guarded: true},
		{name: "symlinked-plugin", place: placePluginLink, config: userConfig, loads: true, guarded: true},
		{name: "symlinked-version-not-loaded", place: placeVersionLink, config: userConfig, loads: false},
		{name: "untrusted-hook-skipped", place: placeCopy, config: fmt.Sprintf("[plugins.%q]\nenabled = true\n", codexPluginID), loads: true, guarded: false},
		{name: "quoted-key-flag-not-enabled", place: placeCopy, args: []string{"-c", fmt.Sprintf("plugins.%q.enabled=true", codexPluginID)}, loads: false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := newPluginRun(t)
			answer := "agenttest-plugin-mcp-answer-codex"
			src := filepath.Join(t.TempDir(), "src", pluginName)
			codexPlugin(t, src, p.rec, answer)
			p.a = New(t, Codex,
				MCPCall(Codex, "fake", "lookup", map[string]any{"query": "owl"}),
				ShellCall(Codex, "touch "+p.marker),
				Say("done"))
			p.a.CodexConfig = c.config
			p.a.Args = append([]string{"-c", "features.plugins=true"}, c.args...)
			cache := filepath.Join(p.a.ConfigDir(), "plugins", "cache")
			p.root = c.place(t, cache, src)
			real, err := filepath.EvalSymlinks(src)
			if err != nil {
				t.Fatal(err)
			}
			makeReadOnly(t, real)
			before := treeState(t, real)
			p.res = p.a.Run(t, "tell me about owls, use $"+pluginName+":"+skillName)

			offered := firstCallHas(p.a, skillDescription)
			mcp := len(mcpCalls(t, filepath.Join(p.rec, "mcp.jsonl")))
			if !c.loads {
				if offered || mcp != 0 {
					t.Fatalf("plugin loaded (skill offered %v, %d MCP calls), want not loaded\n%s", offered, mcp, p.res)
				}
				return
			}
			if !offered {
				t.Errorf("the skill's description was not offered to the model\n%s", p.a.Model.Dump())
			}
			if !firstCallHas(p.a, skillBody) {
				t.Errorf("the skill named in the prompt was not injected into the first request\n%s", p.a.Model.Dump())
			}
			if !c.guarded {
				if _, err := os.Stat(p.marker); err != nil {
					t.Errorf("untrusted plugin hook: the marker command should have run\n%s", p.res)
				}
				if _, err := os.Stat(filepath.Join(p.rec, "hook-stdin.json")); err == nil {
					t.Errorf("an untrusted plugin hook ran")
				}
				return
			}
			p.checkCommon(t, before, 1, 0, answer)
			env := envOf(t, filepath.Join(p.rec, "hook-env.txt"))
			for _, k := range []string{"PLUGIN_ROOT", "CLAUDE_PLUGIN_ROOT"} {
				if env[k] != p.root {
					t.Errorf("hook saw %s=%q, want %q", k, env[k], p.root)
				}
			}
			for _, r := range mcpRecord(t, filepath.Join(p.rec, "mcp.jsonl")) {
				if r["kind"] == "start" && r["cwd"] != real {
					t.Errorf("MCP server ran in %v, want the plugin root %s", r["cwd"], real)
				}
			}
			p.logSeen(t)
		})
	}
}

func versionDir(cache string) string {
	return filepath.Join(cache, codexMarketplace, pluginName, "1.0.0")
}

// placeCopy moves the plugin into the cache as a real directory; the test
// then watches that directory.
func placeCopy(t *testing.T, cache, src string) string {
	dst := versionDir(cache)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(src, dst); err != nil {
		t.Fatal(err)
	}
	// Leave a symlink at src so the caller's read-only and tree checks
	// follow the moved plugin.
	if err := os.Symlink(dst, src); err != nil {
		t.Fatal(err)
	}
	return dst
}

// placeMarketplaceLink makes cache/<marketplace> a symlink to a directory
// outside CODEX_HOME holding <plugin>/<version>/.
func placeMarketplaceLink(t *testing.T, cache, src string) string {
	outside := filepath.Join(t.TempDir(), "view")
	if err := os.MkdirAll(filepath.Join(outside, pluginName), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(src, filepath.Join(outside, pluginName, "1.0.0")); err != nil {
		t.Fatal(err)
	}
	os.Symlink(filepath.Join(outside, pluginName, "1.0.0"), src)
	os.MkdirAll(cache, 0o755)
	if err := os.Symlink(outside, filepath.Join(cache, codexMarketplace)); err != nil {
		t.Fatal(err)
	}
	return versionDir(cache)
}

// placePluginLink makes cache/<marketplace>/<plugin> a symlink to a
// directory holding <version>/.
func placePluginLink(t *testing.T, cache, src string) string {
	outside := filepath.Join(t.TempDir(), "view")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(src, filepath.Join(outside, "1.0.0")); err != nil {
		t.Fatal(err)
	}
	os.Symlink(filepath.Join(outside, "1.0.0"), src)
	os.MkdirAll(filepath.Join(cache, codexMarketplace), 0o755)
	if err := os.Symlink(outside, filepath.Join(cache, codexMarketplace, pluginName)); err != nil {
		t.Fatal(err)
	}
	return versionDir(cache)
}

// placeVersionLink makes the version folder itself a symlink: Codex lists
// versions with readdir and keeps only real directories, so it finds none.
func placeVersionLink(t *testing.T, cache, src string) string {
	dst := versionDir(cache)
	os.MkdirAll(filepath.Dir(dst), 0o755)
	if err := os.Symlink(src, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

// geminiExtension writes the Gemini CLI form of the test plugin into dir: a
// context file, the guard in hooks/hooks.json and the MCP server both through
// ${extensionPath}, and the skill.
func geminiExtension(t *testing.T, dir, rec, answer string) {
	t.Helper()
	writeJSONFile(t, dir, "gemini-extension.json", map[string]any{
		"name": pluginName, "version": "1.0.0", "contextFileName": "GEMINI.md",
		"mcpServers": map[string]any{"fake": map[string]any{
			"command": "${extensionPath}${/}bin${/}fakemcp",
			"args":    []string{"-answer", answer, "-record", filepath.Join(rec, "mcp.jsonl"), "-tool", "lookup"}}},
	})
	writeFile(t, dir, "GEMINI.md", "# agentguard\n\n"+contextText+"\n", 0o644)
	writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"BeforeTool": []any{map[string]any{
		"matcher": "run_shell_command", "hooks": []any{map[string]any{"type": "command", "command": "${extensionPath}/bin/guard.sh"}}}}}})
	writeFile(t, dir, "bin/guard.sh", pluginGuard(rec), 0o755)
	copyFakeMCP(t, dir)
	writeSkill(t, dir)
}

// TestGeminiExtension: Gemini CLI loads extensions only from
// $GEMINI_CLI_HOME/.gemini/extensions/<dir>/, as a directory, a symlink to
// one, or a link record (.gemini-extension-install.json {"type":"link"})
// naming a directory elsewhere; a session can have its own GEMINI_CLI_HOME.
func TestGeminiExtension(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		place func(t *testing.T, extensions, src string) string // returns ${extensionPath}
	}{
		{"directory", func(t *testing.T, extensions, src string) string {
			dst := filepath.Join(extensions, pluginName)
			if err := os.Rename(src, dst); err != nil {
				t.Fatal(err)
			}
			os.Symlink(dst, src)
			return dst
		}},
		{"symlink", func(t *testing.T, extensions, src string) string {
			dst := filepath.Join(extensions, pluginName)
			if err := os.Symlink(src, dst); err != nil {
				t.Fatal(err)
			}
			return dst
		}},
		{"link-record", func(t *testing.T, extensions, src string) string {
			writeJSONFile(t, filepath.Join(extensions, pluginName), ".gemini-extension-install.json", map[string]any{"source": src, "type": "link"})
			return src
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := newPluginRun(t)
			answer := "agenttest-plugin-mcp-answer-gemini"
			src := filepath.Join(t.TempDir(), "src", pluginName)
			geminiExtension(t, src, p.rec, answer)
			p.a = New(t, GeminiCLI,
				Call("activate_skill", map[string]any{"name": skillName}),
				MCPCall(GeminiCLI, "fake", "lookup", map[string]any{"query": "owl"}),
				ShellCall(GeminiCLI, "touch "+p.marker),
				Say("done"))
			extensions := filepath.Join(p.a.ConfigDir(), "extensions")
			if err := os.MkdirAll(extensions, 0o755); err != nil {
				t.Fatal(err)
			}
			p.root = c.place(t, extensions, src)
			real, err := filepath.EvalSymlinks(src)
			if err != nil {
				t.Fatal(err)
			}
			makeReadOnly(t, real)
			before := treeState(t, real)
			p.res = p.a.Run(t, "tell me about owls")

			if !firstCallHas(p.a, contextText) {
				t.Errorf("the extension's context file did not reach the first request\n%s\n%s", p.res, p.a.Model.Dump())
			}
			if !firstCallHas(p.a, skillDescription) {
				t.Errorf("the skill's description was not offered to the model\n%s", p.a.Model.Dump())
			}
			if next := p.a.Model.CallsAt(1); len(next) == 0 || !next[len(next)-1].Contains(skillBody) {
				t.Errorf("the skill's body did not reach the model after activate_skill\n%s\n%s", p.res, p.a.Model.Dump())
			}
			extensionPath := p.root
			p.root = real
			p.checkCommon(t, before, 2, 1, answer)
			for _, r := range mcpRecord(t, filepath.Join(p.rec, "mcp.jsonl")) {
				if r["kind"] == "start" {
					if argv0 := r["argv"].([]any)[0]; argv0 != filepath.Join(extensionPath, "bin", "fakemcp") {
						t.Errorf("MCP server started as %v, want ${extensionPath} = %s", argv0, extensionPath)
					}
				}
			}
			if argv, _ := os.ReadFile(filepath.Join(p.rec, "hook-argv.txt")); !strings.HasPrefix(string(argv), filepath.Join(extensionPath, "bin", "guard.sh")) {
				t.Errorf("hook ran as %q, want ${extensionPath} = %s", argv, extensionPath)
			}
			p.logSeen(t)
		})
	}
}

// TestCodexLoadsOtherHostsManifest: Codex 0.169 loads a plugin that has no
// .codex-plugin/plugin.json through .claude-plugin/plugin.json or
// .cursor-plugin/plugin.json, with its own field meanings and default
// files: the skills (a SKILL.md nested below a skill's own too), the
// .mcp.json servers and the hooks/hooks.json hooks (trusted as a Codex
// plugin's are). bundlectl's Codex reader reads such a manifest the same
// way (bundle.TestCodexReadsOtherHostsManifest).
func TestCodexLoadsOtherHostsManifest(t *testing.T) {
	t.Parallel()
	const nested = "agenttest-nested-skill-6633"
	for _, manifest := range []string{".claude-plugin/plugin.json", ".cursor-plugin/plugin.json"} {
		t.Run(filepath.Dir(manifest), func(t *testing.T) {
			p := newPluginRun(t)
			answer := "agenttest-plugin-mcp-answer-codex"
			src := filepath.Join(t.TempDir(), "src", pluginName)
			codexPlugin(t, src, p.rec, answer)
			if err := os.Rename(filepath.Join(src, ".codex-plugin"), filepath.Join(src, filepath.Dir(manifest))); err != nil {
				t.Fatal(err)
			}
			writeFile(t, src, "skills/"+skillName+"/nested/inner/SKILL.md", "---\nname: inner-skill\ndescription: "+nested+"\n---\nx\n", 0o644)
			before := p.runCodexCopy(t, src, "tell me about owls, use $"+pluginName+":"+skillName)

			if !firstCallHas(p.a, skillDescription, skillBody) {
				t.Errorf("the skill was not offered and injected\n%s", p.a.Model.Dump())
			}
			if !firstCallHas(p.a, nested) {
				t.Errorf("the SKILL.md nested below the skill was not offered\n%s", p.a.Model.Dump())
			}
			p.checkCommon(t, before, 1, 0, answer)
		})
	}
}
