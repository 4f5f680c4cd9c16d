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
			{Name: "fake", Transport: "stdio", Command: "./bin/fake", Hosts: []string{"claude"}, TimeoutSec: 45},
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
	if h0["command"] != "/usr/bin/bundlectl" || strings.Join(toStrings(h0["args"]), " ") != "--home /h --workspace /w hooks exec --host claude --event PreToolUse agentguard aaa" || h0["if"] != "Bash(rm *)" {
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
	// The reviewed timeout, which Claude Code reads as its wait for each
	// call (TestClaudeMCPTimeoutPerCall), as is.
	if s := string(mcp); !strings.Contains(s, `"timeout": 45000`) {
		t.Errorf(".mcp.json has not the reviewed timeout of the stdio server:\n%s", mcp)
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

// remoteBundle is a bundle with one remote server whose URL and header
// take user options, holding options (nil: none configured).
func remoteBundle(options map[string]string, defaultKey json.RawMessage) *hosts.Bundle {
	inv := &inventory.Inventory{
		UserConfig: []inventory.UserOption{
			{Key: "api_key", Sensitive: true, Required: true, Hosts: []string{"claude"}},
			{Key: "org", Default: defaultKey, Hosts: []string{"claude"}},
			// Declared for another host: never filled in a Claude view.
			{Key: "other", Hosts: []string{"gemini"}},
		},
		MCPServers: []inventory.MCPServer{{Name: "svc", Transport: "streamable-http", Hosts: []string{"claude"},
			URL:     "https://svc.test/${user_config.org}/mcp",
			Headers: map[string]string{"X-Api-Key": "k=${user_config.api_key}", "X-Other": "${user_config.other} ${user_config.undeclared} ${HOME}"}}},
	}
	return hosts.NewBundle(harness.ActiveBundle{Name: "svcb", Inventory: inv, Options: options}, "claude")
}

func remoteEntry(t *testing.T, v *hosts.View) map[string]any {
	t.Helper()
	data, ok := v.File(".mcp.json")
	if !ok {
		return nil
	}
	var m struct {
		MCPServers map[string]map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m.MCPServers["svc"]
}

// TestViewRemoteOptions: a remote server's URL and headers get the
// configured values of the options the plugin declares for Claude Code
// (the reviewed default when none is configured), and the view is marked
// as holding values (built for the session only); references to options it
// does not declare for Claude Code, and host variables, stay as written.
func TestViewRemoteOptions(t *testing.T) {
	b := remoteBundle(map[string]string{"api_key": "s3cret$1", "org": "acme", "other": "no"}, nil)
	v, err := Host{}.View(b, re)
	if err != nil {
		t.Fatal(err)
	}
	e := remoteEntry(t, v)
	if e == nil {
		t.Fatalf("the server is not in the view; notes: %q", b.Notes)
	}
	if e["url"] != "https://svc.test/acme/mcp" {
		t.Errorf("url = %v", e["url"])
	}
	h, _ := e["headers"].(map[string]any)
	if h["X-Api-Key"] != "k=s3cret$1" {
		t.Errorf("X-Api-Key = %v", h["X-Api-Key"])
	}
	if want := "${user_config.other} ${user_config.undeclared} ${HOME}"; h["X-Other"] != want {
		t.Errorf("X-Other = %v, want %q", h["X-Other"], want)
	}
	if !v.HoldsValues() {
		t.Error("the view holds a configured value but is not marked as holding values")
	}

	// No value filled: a shared view, as before.
	plain, err := Host{}.View(testBundle(t), re)
	if err != nil {
		t.Fatal(err)
	}
	if plain.HoldsValues() {
		t.Error("a view without option references is marked as holding values")
	}
}

// TestViewRemoteOptionRefused: an option with no value (required or not,
// with no default), or a value Claude Code would expand again (${...}),
// keeps the server out of the view with a note that names the option and
// the configure command and never the value.
func TestViewRemoteOptionRefused(t *testing.T) {
	for name, tc := range map[string]struct {
		options map[string]string
		def     json.RawMessage
		key     string
	}{
		"required unset":  {map[string]string{"org": "acme"}, nil, "api_key"},
		"optional unset":  {map[string]string{"api_key": "k"}, nil, "org"},
		"value expands":   {map[string]string{"api_key": "a${HOME}b", "org": "acme"}, nil, "api_key"},
		"default expands": {map[string]string{"api_key": "k", "org": "${GITHUB_TOKEN}"}, json.RawMessage(`"${GITHUB_TOKEN}"`), "org"},
	} {
		t.Run(name, func(t *testing.T) {
			b := remoteBundle(tc.options, tc.def)
			v, err := Host{}.View(b, re)
			if err != nil {
				t.Fatal(err)
			}
			if e := remoteEntry(t, v); e != nil {
				t.Fatalf("the server is in the view: %v", e)
			}
			if v.HoldsValues() {
				t.Error("a view without the server is marked as holding values")
			}
			notes := strings.Join(b.Notes, "\n")
			if !strings.Contains(notes, `"svc" is not loaded`) || !strings.Contains(notes, "bundlectl configure svcb "+tc.key) {
				t.Errorf("notes do not say the server is not loaded and how to set %s:\n%s", tc.key, notes)
			}
			for _, val := range tc.options {
				if strings.Contains(notes, val) {
					t.Errorf("notes hold a value %q:\n%s", val, notes)
				}
			}
		})
	}
}

// TestViewRemoteOptionJoinRefused: a value that holds no ${ of its own but
// makes one with the reviewed text after it ("abc$" before "{HOME}") is
// refused as a value Claude Code would expand again; the same text with a
// plain value loads.
func TestViewRemoteOptionJoinRefused(t *testing.T) {
	bundleWith := func(value string) *hosts.Bundle {
		inv := &inventory.Inventory{
			UserConfig: []inventory.UserOption{{Key: "api_key", Sensitive: true, Hosts: []string{"claude"}}},
			MCPServers: []inventory.MCPServer{{Name: "svc", Transport: "streamable-http", Hosts: []string{"claude"},
				URL: "https://svc.test/mcp", Headers: map[string]string{"X-Api-Key": "${user_config.api_key}{HOME}"}}},
		}
		return hosts.NewBundle(harness.ActiveBundle{Name: "svcb", Inventory: inv, Options: map[string]string{"api_key": value}}, "claude")
	}
	b := bundleWith("abc$")
	v, err := Host{}.View(b, re)
	if err != nil {
		t.Fatal(err)
	}
	if e := remoteEntry(t, v); e != nil {
		t.Fatalf("the server is in the view, where Claude Code would expand ${HOME}: %v", e)
	}
	if notes := strings.Join(b.Notes, "\n"); !strings.Contains(notes, "bundlectl configure svcb api_key") || strings.Contains(notes, "abc$") {
		t.Errorf("notes do not name the command, or hold the value:\n%s", notes)
	}
	b = bundleWith("abc")
	if v, err = (Host{}).View(b, re); err != nil {
		t.Fatal(err)
	}
	e := remoteEntry(t, v)
	if h, _ := e["headers"].(map[string]any); h["X-Api-Key"] != "abc{HOME}" {
		t.Errorf("with a plain value: entry %v, notes %q", e, b.Notes)
	}
}

// An agent whose front matter is not valid YAML but which the review read
// as Claude Code does (values holding ": " quoted) goes into the view with
// that reading written out, so that Claude Code reads it at once and the
// view's own checks see what Claude Code will: here its inline MCP server
// is taken out, as for any agent.
func TestViewQuotesLenientFrontMatter(t *testing.T) {
	snap := t.TempDir()
	doc := "---\nname: loose\ndescription: Use when the caller says: check\ntools: Bash\nmcpServers:\n  own:\n    command: ./serve\n---\nbody\n"
	os.MkdirAll(filepath.Join(snap, "agents"), 0o700)
	os.WriteFile(filepath.Join(snap, "agents/loose.md"), []byte(doc), 0o400)
	inv := &inventory.Inventory{Agents: []inventory.Doc{{Name: "loose", Path: "agents/loose.md", Hosts: []string{"claude"}}}}
	b := hosts.NewBundle(harness.ActiveBundle{Name: "agentguard", Snapshot: snap, Inventory: inv}, "claude")
	v, err := Host{}.View(b, re)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := v.File("agents/loose.md")
	if !ok {
		t.Fatalf("the agent is not in the view; notes %v", b.Notes)
	}
	want := "---\nname: loose\ndescription: \"Use when the caller says: check\"\ntools: Bash\n---\nbody\n"
	if string(got) != want {
		t.Errorf("view's agent:\n%s\nwant:\n%s", got, want)
	}
}

// TestViewRemoteAuthNoted: a remote server's headersHelper (a command
// Claude Code would run outside bundlectl's checks) and oauth are not
// given to Claude Code; the server still loads, and a note says what was
// left out, so a failure to authenticate under exec is explained.
func TestViewRemoteAuthNoted(t *testing.T) {
	b := remoteBundle(map[string]string{"api_key": "k", "org": "acme"}, nil)
	b.Inventory.MCPServers[0].Other = map[string]json.RawMessage{"headersHelper": json.RawMessage(`"./bin/token.sh"`), "oauth": json.RawMessage(`{"clientId":"c"}`)}
	v, err := Host{}.View(b, re)
	if err != nil {
		t.Fatal(err)
	}
	e := remoteEntry(t, v)
	if e == nil {
		t.Fatalf("the server is not in the view; notes: %q", b.Notes)
	}
	if _, ok := e["headersHelper"]; ok {
		t.Errorf("headersHelper is in the view: %v", e)
	}
	notes := strings.Join(b.Notes, "\n")
	for _, k := range []string{"headersHelper", "oauth"} {
		if !strings.Contains(notes, "loaded without its "+k) {
			t.Errorf("no note says the server is loaded without its %s:\n%s", k, notes)
		}
	}
}
