package claude

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/harness"
	"github.com/bundlectl/bundlectl/hosts"
	"github.com/bundlectl/bundlectl/inventory"
	"github.com/bundlectl/bundlectl/state"
)

var re = hosts.Reentry{Exe: "/usr/bin/bundlectl", Home: "/h", Workspace: "/w"}

func testBundle(t *testing.T) *hosts.Bundle {
	t.Helper()
	snap := t.TempDir()
	files := map[string]string{
		"skills/owl/SKILL.md":     "---\nname: owl\ndescription: owls\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: ./guard.sh\n---\nbody\n",
		"skills/owl/ref/notes.md": "notes",
		"commands/git/commit.md":  "commit",
		"agents/rev.md":           "---\nname: rev\n---\nreview\n",
		"output-styles/terse.md":  "terse",
		"codex-only/SKILL.md":     "codex",
		"bin/guard.sh":            "#!/bin/sh\n",
	}
	for p, c := range files {
		os.MkdirAll(filepath.Join(snap, filepath.Dir(p)), 0o700)
		os.WriteFile(filepath.Join(snap, p), []byte(c), 0o400)
	}
	inv := &inventory.Inventory{
		Skills:       []inventory.Doc{{Name: "owl", Path: "skills/owl/SKILL.md", Hosts: []string{"claude"}}, {Name: "cx", Path: "codex-only/SKILL.md", Hosts: []string{"codex"}}},
		Commands:     []inventory.Doc{{Name: "git:commit", Path: "commands/git/commit.md", Hosts: []string{"claude"}}},
		Agents:       []inventory.Doc{{Name: "rev", Path: "agents/rev.md"}},
		OutputStyles: []inventory.Doc{{Name: "terse", Path: "output-styles/terse.md", Hosts: []string{"claude"}}},
		Hooks: []inventory.Hook{
			{ID: "aaa", Event: "PreToolUse", Matcher: "Bash", Type: "command", Command: "${CLAUDE_PLUGIN_ROOT}/bin/guard.sh", Shell: true, Hosts: []string{"claude"}, Other: map[string]json.RawMessage{"if": json.RawMessage(`"Bash(rm *)"`)}},
			{ID: "bbb", Event: "PreToolUse", Matcher: "Bash", Type: "command", Command: "./own", TimeoutSec: 5},
			{ID: "ccc", Event: "Stop", Type: "prompt", Prompt: "check it", Hosts: []string{"claude"}},
			{ID: "ddd", Event: "Stop", Type: "command", Command: "./off", Hosts: []string{"claude"}},
			{ID: "eee", Event: "PreToolUse", Type: "command", Command: "./codex", Hosts: []string{"codex"}},
			{ID: "fff", Event: "PreToolUse", Matcher: "Bash", Type: "command", Command: "./guard.sh", Scope: "skill:owl", Hosts: []string{"claude"}},
		},
		MCPServers: []inventory.MCPServer{
			{Name: "fake", Transport: "stdio", Command: "./bin/fake", Hosts: []string{"claude"}},
			{Name: "remote", Transport: "streamable-http", URL: "https://x.test/mcp", Headers: map[string]string{"A": "x"}},
			// Literal in bundlectl's own format: Claude Code would expand it.
			{Name: "dollar", Transport: "streamable-http", URL: "https://y.test/mcp", Headers: map[string]string{"A": "${TOKEN}"}},
			{Name: "gone", Transport: "stdio", Command: "./gone"},
		},
		LSPServers: []inventory.LSPServer{{Name: "go", Command: "gopls", Languages: map[string]string{".go": "go"}, Hosts: []string{"claude"}}},
		Monitors:   []inventory.Monitor{{Name: "m", Command: "tail -f x", Hosts: []string{"claude"}}},
	}
	return hosts.NewBundle(harness.ActiveBundle{Name: "agentguard", Snapshot: snap, Inventory: inv,
		Off: []state.Switch{{Kind: "hook", Name: "ddd"}, {Kind: "mcp", Name: "gone"}}}, "claude")
}

// TestView: the view holds the host's content as in the snapshot, and
// every process is a bundlectl command; switched-off and other hosts'
// components are left out; what cannot load is noted.
func TestView(t *testing.T) {
	b := testBundle(t)
	v, err := Host{}.View(b, re)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".claude-plugin/plugin.json", ".lsp.json", ".mcp.json", "agents/rev.md", "commands/git/commit.md", "hooks/hooks.json", "output-styles/terse.md", "skills/owl/SKILL.md", "skills/owl/ref/notes.md"}
	if got := strings.Join(v.Paths(), " "); got != strings.Join(want, " ") {
		t.Errorf("paths:\n%s\nwant\n%s", got, strings.Join(want, " "))
	}
	hooks, _ := v.File("hooks/hooks.json")
	var hj struct {
		Hooks map[string][]struct {
			Matcher string           `json:"matcher"`
			Hooks   []map[string]any `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(hooks, &hj); err != nil {
		t.Fatal(err)
	}
	pre := hj.Hooks["PreToolUse"]
	if len(pre) != 1 || len(pre[0].Hooks) != 2 || pre[0].Matcher != "Bash" {
		t.Fatalf("PreToolUse: %s", hooks)
	}
	h0 := pre[0].Hooks[0]
	if h0["command"] != "/usr/bin/bundlectl" || strings.Join(toStrings(h0["args"]), " ") != "--home /h --workspace /w hooks exec agentguard aaa" || h0["if"] != "Bash(rm *)" {
		t.Errorf("hook rewritten as %v", h0)
	}
	if pre[0].Hooks[1]["timeout"] != float64(35) {
		t.Errorf("bundlectl's own hook timeout: %v", pre[0].Hooks[1])
	}
	stop := hj.Hooks["Stop"]
	if len(stop) != 1 || len(stop[0].Hooks) != 1 || stop[0].Hooks[0]["type"] != "prompt" {
		t.Errorf("Stop (the prompt hook kept, the switched-off one gone): %s", hooks)
	}
	skill, _ := v.File("skills/owl/SKILL.md")
	if !strings.Contains(string(skill), "command: /usr/bin/bundlectl") || !strings.Contains(string(skill), "- fff") || strings.Contains(string(skill), "./guard.sh") || !strings.HasSuffix(string(skill), "---\nbody\n") {
		t.Errorf("skill front matter:\n%s", skill)
	}
	mcp, _ := v.File(".mcp.json")
	if s := string(mcp); !strings.Contains(s, `"mcp",`) || !strings.Contains(s, "https://x.test/mcp") || strings.Contains(s, "gone") || strings.Contains(s, "y.test") || strings.Contains(s, "./bin/fake") {
		t.Errorf(".mcp.json:\n%s", mcp)
	}
	lsp, _ := v.File(".lsp.json")
	if s := string(lsp); !strings.Contains(s, `"lsp",`) || !strings.Contains(s, `".go": "go"`) || strings.Contains(s, "gopls") {
		t.Errorf(".lsp.json:\n%s", lsp)
	}
	if notes := strings.Join(b.Notes, "\n"); !strings.Contains(notes, `monitor "m"`) {
		t.Errorf("notes:\n%s", notes)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, e := range v.([]any) {
		out = append(out, e.(string))
	}
	return out
}

func TestLaunch(t *testing.T) {
	l, err := Host{}.Launch(nil, []hosts.BuiltView{{Dir: "/v/a"}, {Dir: "/v/b"}}, []string{"claude", "hello", "--allowedTools", "Bash"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(l.Argv, " "); got != "claude --plugin-dir=/v/a --plugin-dir=/v/b hello --allowedTools Bash" || l.Cleanup != nil {
		t.Errorf("argv = %s", got)
	}
}
