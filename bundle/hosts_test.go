package bundle

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/internal/testtree"
)

// loadFixture copies testdata/hosts/<rel> to a temporary directory named
// like its last element and loads it as an explicit directory.
func loadFixture(t *testing.T, rel string) *Bundle {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(rel))
	if err := testtree.Copy(filepath.Join("testdata", "hosts", rel), dst); err != nil {
		t.Fatal(err)
	}
	return Load(dst, ScopeDir, Limits{})
}

func hookBy(b *Bundle, pred func(Hook) bool) (Hook, bool) {
	for _, h := range b.Components.Hooks {
		if pred(h) {
			return h, true
		}
	}
	return Hook{}, false
}

func mcpNamed(b *Bundle, name string) (MCPServer, bool) {
	for _, s := range b.Components.MCP {
		if s.Name == name {
			return s, true
		}
	}
	return MCPServer{}, false
}

func docNames(ds []Document) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Name)
	}
	return out
}

// The Claude Code reader reads everything the host would run or load:
// hooks of every type and form, front-matter hooks, "!" lines, MCP and
// LSP servers, monitors, user options, output styles and the executables.
func TestClaudeCodeFull(t *testing.T) {
	b := loadFixture(t, "claude-code/full")
	if b.Rejected() || !b.HasFormat(FormatClaude) {
		t.Fatalf("formats %v:%s", b.Formats, dumpFindings(b))
	}
	for _, f := range b.Report.Findings {
		if f.Severity != Warning {
			t.Errorf("unexpected finding %s", f)
		}
	}
	if h, ok := hookBy(b, func(h Hook) bool { return h.Event == "PreToolUse" && h.Shell }); !ok || h.Command != "${CLAUDE_PLUGIN_ROOT}/scripts/guard.sh" {
		t.Errorf("shell-form guard hook: %+v %v", h, ok)
	}
	if h, ok := hookBy(b, func(h Hook) bool { return h.Type == HookCommand && !h.Shell && len(h.Args) > 0 }); !ok || string(h.Other["if"]) == "" {
		t.Errorf("exec-form hook with its condition: %+v %v", h, ok)
	}
	if h, ok := hookBy(b, func(h Hook) bool { return h.Type == HookHTTP }); !ok || !strings.HasPrefix(h.URL, "https://") {
		t.Errorf("http hook: %+v %v", h, ok)
	}
	for _, typ := range []string{HookPrompt, HookAgent, HookMCPTool} {
		if _, ok := hookBy(b, func(h Hook) bool { return h.Type == typ }); !ok {
			t.Errorf("no %s hook read", typ)
		}
	}
	if _, ok := hookBy(b, func(h Hook) bool { return h.Scope == "skill:lint" }); !ok {
		t.Error("the skill's front-matter hook was not read")
	}
	// Claude Code ignores a plugin agent's front-matter hooks.
	if _, ok := hookBy(b, func(h Hook) bool { return h.Scope == "agent:reviewer" }); ok {
		t.Error("the agent's front-matter hook, which Claude Code ignores for a plugin agent, was read as a hook")
	}
	requireFinding(t, b, Warning, "document.ignored-field", "agents/reviewer.md: hooks")
	for _, name := range []string{"local", "remote", "events", "inline-stdio"} {
		if _, ok := mcpNamed(b, name); !ok {
			t.Errorf("mcp server %q missing", name)
		}
	}
	if len(b.Components.LSP) != 2 || len(b.Components.Monitors) != 2 || len(b.Components.OutputStyles) != 1 {
		t.Errorf("lsp %d monitors %d output styles %d", len(b.Components.LSP), len(b.Components.Monitors), len(b.Components.OutputStyles))
	}
	sensitive := false
	for _, o := range b.UserConfig {
		sensitive = sensitive || o.Key == "api_token" && o.Sensitive
	}
	if len(b.UserConfig) != 5 || !sensitive {
		t.Errorf("user config %+v", b.UserConfig)
	}
	// "commands" lists files and a directory, which replaces commands/.
	if got := docNames(b.Components.Commands); !slices.Contains(got, "deploy") || slices.Contains(got, "ignored-default") {
		t.Errorf("commands %v", got)
	}
	var lines []string
	for _, d := range b.Components.Commands {
		lines = append(lines, d.ShellLines...)
	}
	if !slices.Contains(lines, "git status --short") {
		t.Errorf("shell lines %v", lines)
	}
	if !slices.Contains(b.Executables, "bin/cc-tool") {
		t.Errorf("executables %v", b.Executables)
	}
	for _, v := range []string{"CC_LEVEL", "GITHUB_TOKEN"} {
		if !slices.Contains(b.HostVars, v) {
			t.Errorf("host variable %s not recorded: %v", v, b.HostVars)
		}
	}
	for _, v := range b.HostVars {
		if strings.HasPrefix(v, "CLAUDE_PLUGIN") {
			t.Errorf("a plugin placeholder taken for a host variable: %s", v)
		}
	}
}

func TestClaudeCodeManifestlessAndMinimal(t *testing.T) {
	b := loadFixture(t, "claude-code/manifestless")
	if !b.Valid() || b.Format != FormatClaude || len(b.Components.Commands) == 0 || len(b.Components.Skills) == 0 || len(b.Components.MCP) == 0 {
		t.Fatalf("manifest-less plugin: formats %v components %+v%s", b.Formats, b.Components, dumpFindings(b))
	}
	b = loadFixture(t, "claude-code/minimal")
	if !b.Valid() || len(b.Components.Commands) != 1 {
		t.Fatalf("minimal plugin:%s", dumpFindings(b))
	}
}

// A plugin carrying Claude Code and Codex manifests over shared files is
// read through both: the shared skill and server are one component each,
// loaded by both hosts.
func TestClaudeAndCodexUnion(t *testing.T) {
	b := loadFixture(t, "claude-code/claude-and-codex")
	if b.Rejected() || !b.HasFormat(FormatClaude) || !b.HasFormat(FormatCodex) {
		t.Fatalf("formats %v:%s", b.Formats, dumpFindings(b))
	}
	if len(b.Components.Skills) != 1 || !slices.Equal(b.Components.Skills[0].Hosts, []Host{HostClaude, HostCodex}) {
		t.Errorf("shared skill: %+v", b.Components.Skills)
	}
	if s, ok := mcpNamed(b, "notes"); !ok || len(s.Hosts) != 2 {
		t.Errorf("shared server: %+v", b.Components.MCP)
	}
	if got := docNames(b.Components.Commands); len(got) != 1 || got[0] != "only-claude" {
		t.Errorf("commands %v", got)
	}
}

func TestCodexFull(t *testing.T) {
	b := loadFixture(t, "codex/full")
	if !b.Valid() || b.Format != FormatCodex {
		t.Fatalf("formats %v:%s", b.Formats, dumpFindings(b))
	}
	if len(b.Components.Apps) != 2 || len(b.Components.Skills) != 1 || len(b.Components.Hooks) < 4 {
		t.Errorf("apps %d skills %d hooks %d", len(b.Components.Apps), len(b.Components.Skills), len(b.Components.Hooks))
	}
	s, ok := mcpNamed(b, "tracker")
	if !ok || s.EnvFrom["TRACKER_TOKEN"] != "TRACKER_TOKEN" || s.Cwd != "./server" {
		t.Errorf("tracker server (env_vars, relative cwd): %+v", s)
	}
	if r, ok := mcpNamed(b, "tracker-remote"); !ok || r.BearerTokenEnvVar == "" && len(r.EnvHeaders) == 0 {
		t.Errorf("remote server credentials by name: %+v", r)
	}
	if !slices.Contains(b.Executables, "skills/triage/scripts/triage.py") {
		t.Errorf("a skill's script is not among the executables: %v", b.Executables)
	}
}

func TestGeminiFull(t *testing.T) {
	b := loadFixture(t, "gemini-cli/full")
	if !b.Valid() || b.Format != FormatGemini {
		t.Fatalf("formats %v:%s", b.Formats, dumpFindings(b))
	}
	if got := docNames(b.Components.Commands); !slices.Contains(got, "gcs:sync") || !slices.Contains(got, "deploy") {
		t.Errorf("commands %v (subdirectories namespace with \":\")", got)
	}
	var lines []string
	for _, d := range b.Components.Commands {
		lines = append(lines, d.ShellLines...)
	}
	if len(lines) == 0 {
		t.Error("no !{…} shell injection recorded")
	}
	if s, ok := mcpNamed(b, "local"); !ok || !s.Trust {
		t.Errorf("trusted local server: %+v", s)
	}
	if s, ok := mcpNamed(b, "remote-http"); !ok || s.Transport != TransportStreamableHTTP {
		t.Errorf("httpUrl server: %+v", s)
	}
	if s, ok := mcpNamed(b, "remote-sse"); !ok || s.Transport != TransportSSE {
		t.Errorf("url server: %+v", s)
	}
	if len(b.Components.Policies) != 1 || len(b.ExcludeTools) == 0 || len(b.Components.Contexts) != 2 || len(b.UserConfig) != 2 {
		t.Errorf("policies %d exclude %v contexts %d settings %d", len(b.Components.Policies), b.ExcludeTools, len(b.Components.Contexts), len(b.UserConfig))
	}
	if h, ok := hookBy(b, func(h Hook) bool { return h.Event == "BeforeTool" }); !ok || h.TimeoutSec != 5 {
		t.Errorf("BeforeTool hook (timeout in milliseconds): %+v", h)
	}
}

// Hostile host manifests: a path that leaves the plugin, a literal
// credential, bidirectional text — each an error naming the field, never
// echoing the value.
func TestHostileHostFixtures(t *testing.T) {
	for rel, rule := range map[string]string{
		"claude-code/hostile-dotdot-path":   "manifest.path-escape",
		"claude-code/hostile-absolute-path": "manifest.path-escape",
		"claude-code/hostile-literal-token": "secret.token",
		"claude-code/hostile-bidi-command":  "text.bidi",
		"codex/hostile-paths":               "manifest.path-escape",
		"codex/hostile-literal-token":       "secret.header",
		"gemini-cli/hostile-context-escape": "manifest.path-escape",
		"gemini-cli/hostile-literal-token":  "secret.token",
	} {
		t.Run(rel, func(t *testing.T) {
			b := loadFixture(t, rel)
			if !b.Rejected() {
				t.Fatalf("not rejected:%s", dumpFindings(b))
			}
			found := false
			for _, f := range b.Report.Findings {
				found = found || f.Rule == rule && f.Severity == Error
				for _, secret := range []string{"sk-", "ghp_", "AKIA"} {
					if strings.Contains(f.Path+f.Message, secret) {
						t.Errorf("finding echoes a credential: %s", f)
					}
				}
			}
			if !found {
				t.Fatalf("no %s error:%s", rule, dumpFindings(b))
			}
		})
	}
	// A name the host refuses but that is no danger is not an error.
	if b := loadFixture(t, "gemini-cli/hostile-bad-name"); b.Rejected() {
		t.Errorf("an unusual name rejected the bundle:%s", dumpFindings(b))
	}
}

// A symbolic link in a host's manifest path that leaves the plugin is
// never followed.
func TestClaudeSymlinkOutIsNotFollowed(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "hostile-symlink-out")
	if err := testtree.Copy(filepath.Join("testdata", "hosts", "claude-code", "hostile-symlink-out"), dst); err != nil {
		t.Fatal(err)
	}
	must(t, os.MkdirAll(filepath.Join(dst, "commands"), 0o755))
	must(t, os.Symlink("/etc", filepath.Join(dst, "commands", "etc")))
	must(t, os.Symlink("/etc/passwd", filepath.Join(dst, "commands", "passwd.md")))
	b := Load(dst, ScopeDir, Limits{})
	for _, d := range b.Components.Commands {
		if strings.Contains(d.Path, "passwd") || strings.Contains(d.Path, "etc") {
			t.Fatalf("a link out of the plugin became a command: %+v", d)
		}
	}
	if b.Valid() {
		t.Fatalf("links out of the plugin raised no finding:%s", dumpFindings(b))
	}
}

// writeTree writes files (path → content) below a new directory named name
// and loads it as an explicit directory.
func writeTree(t *testing.T, name string, files map[string]string) *Bundle {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return Load(dir, ScopeDir, Limits{})
}

// Claude Code loads every Markdown file of its commands directory, a
// README.md or an upper-case ".MD" too, and a directory holding a
// SKILL.md as one skill-mode command; the review must list exactly those,
// with the shell lines they run.
func TestClaudeCommandsAsTheHostLoadsThem(t *testing.T) {
	b := writeTree(t, "cmds", map[string]string{
		".claude-plugin/plugin.json": `{"name": "cmds"}`,
		"commands/README.md":         "Run !`./scripts/setup.sh` first.\n",
		"commands/Deploy.MD":         "---\ndescription: deploy\n---\nDeploy.\n",
		"commands/ops/SKILL.md":      "---\ndescription: ops\n---\n```!\nmake ops\n```\n",
		"commands/ops/notes.md":      "not a command: the directory is one skill-mode command\n",
		"commands/ops/deep/x.md":     "not a command either\n",
	})
	got := docNames(b.Components.Commands)
	slices.Sort(got)
	want := []string{"Deploy", "README", "ops"}
	if !slices.Equal(got, want) {
		t.Fatalf("commands %v, want %v; findings:\n%v", got, want, b.Report.Findings)
	}
	lines := map[string][]string{}
	for _, d := range b.Components.Commands {
		lines[d.Name] = d.ShellLines
	}
	if !slices.Equal(lines["README"], []string{"./scripts/setup.sh"}) || !slices.Equal(lines["ops"], []string{"make ops"}) {
		t.Errorf("shell lines %v", lines)
	}
}

// Gemini CLI connects to a server with httpUrl and starts nothing, so an
// env beside it reaches no process and the host loads the server: it must
// be reviewed (warning), not skipped. A command there still skips it.
func TestHostRemoteServerWithEnvIsKept(t *testing.T) {
	b := loadFiles(t, files{
		"gemini-extension.json": `{"name": "ext", "version": "1.0.0", "mcpServers": {
			"remote": {"httpUrl": "https://mcp.example.com/mcp", "env": {"REGION": "${REGION}"}},
			"both": {"httpUrl": "https://mcp.example.com/mcp", "command": "node"}}}`,
	})
	requireFinding(t, b, Warning, "mcp.server-field", "mcpServers.remote.env")
	requireFinding(t, b, Skip, "mcp.server-field", "mcpServers.both")
	if len(b.Components.MCP) != 1 || b.Components.MCP[0].Name != "remote" {
		t.Fatalf("want the server remote alone, got %+v", b.Components.MCP)
	}
}

// Claude Code and Gemini CLI load an MCP server whose "timeout" is past
// 600000 ms (internal/agenttest TestHostsMCPTimeouts): it must be
// reviewed with a warning, not skipped, and keep the host's value; past
// 2147483647 ms Gemini CLI starts it and gives up at once, which the
// warning says.
func TestMCPTimeoutPastLimit(t *testing.T) {
	b := loadFiles(t, files{
		".claude-plugin/plugin.json": `{"name": "p", "version": "1.0.0"}`,
		".mcp.json":                  `{"mcpServers": {"slow": {"command": "node", "args": ["s.js"], "timeout": 86400000}}}`,
	})
	f := requireFinding(t, b, Warning, "manifest.timeout", "mcpServers.slow.timeout")
	if !strings.Contains(f.Message, "Claude Code waits up to 86400000 ms") {
		t.Errorf("message %q", f.Message)
	}
	var kept bool
	for _, s := range b.Components.MCP { // Codex reads the same file and no "timeout"
		kept = kept || slices.Contains(s.Hosts, HostClaude) && s.TimeoutSec == MaxTimeoutSec && string(s.Other["timeout"]) == "86400000"
	}
	if !kept {
		t.Fatalf("want the server slow for Claude Code with the host's timeout kept, got %+v", b.Components.MCP)
	}
	c := loadFiles(t, files{
		".claude-plugin/plugin.json": `{"name": "p", "version": "1.0.0"}`,
		".mcp.json":                  `{"mcpServers": {"huge": {"command": "node", "timeout": 9007199254740993}, "half": {"command": "node", "timeout": 1500.5}}}`,
	})
	requireFinding(t, c, Skip, "manifest.timeout", "mcpServers.huge.timeout")
	requireFinding(t, c, Skip, "manifest.timeout", "mcpServers.half.timeout")
	for _, s := range c.Components.MCP {
		if slices.Contains(s.Hosts, HostClaude) {
			t.Errorf("Claude Code starts no server %q", s.Name)
		}
	}
	g := loadFiles(t, files{
		"gemini-extension.json": `{"name": "ext", "version": "1.0.0", "mcpServers": {
			"slow": {"command": "node", "timeout": 601000},
			"never": {"command": "node", "timeout": 2147483648},
			"bad": {"command": "node", "timeout": 0}}}`,
	})
	requireFinding(t, g, Warning, "manifest.timeout", "mcpServers.slow.timeout")
	if f := requireFinding(t, g, Warning, "manifest.timeout", "mcpServers.never.timeout"); !strings.Contains(f.Message, "gives up on it at once") {
		t.Errorf("message %q", f.Message)
	}
	requireFinding(t, g, Skip, "manifest.timeout", "mcpServers.bad.timeout")
	if len(g.Components.MCP) != 2 {
		t.Fatalf("want the servers slow and never, got %+v", g.Components.MCP)
	}
}
