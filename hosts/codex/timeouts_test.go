package codex

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/harness"
	"github.com/bundlectl/bundlectl/hosts"
	"github.com/bundlectl/bundlectl/inventory"
)

// timeoutServers are servers as the Codex reader keeps their timeouts (in
// Other, as written), and what exec's view and setup give Codex for each:
// tool_timeout_sec as reviewed, startup_timeout_sec as reviewed plus
// hosts.MCPStartMargin (startup_timeout_ms read as Codex reads it, only
// without startup_timeout_sec); a value Codex gives up on at once or
// panics on is left out, so Codex's default applies. A server of
// bundlectl's own formats gives its one timeout to both.
var timeoutServers = []struct {
	s             inventory.MCPServer
	startup, tool any // float64, or nil for none
}{
	{codexServer("plain", nil), nil, nil},
	{codexServer("tool", map[string]string{"tool_timeout_sec": "300"}), nil, 300.0},
	{codexServer("frac", map[string]string{"startup_timeout_sec": "20.5", "tool_timeout_sec": "0.5"}), 30.5, 0.5},
	{codexServer("ms", map[string]string{"startup_timeout_ms": "20000"}), 30.0, nil},
	{codexServer("ms_and_s", map[string]string{"startup_timeout_ms": "0", "startup_timeout_sec": "5"}), 15.0, nil},
	{codexServer("zero", map[string]string{"startup_timeout_sec": "0", "tool_timeout_sec": "0"}), nil, nil},
	{codexServer("ms_zero", map[string]string{"startup_timeout_ms": "-0"}), nil, nil},
	{codexServer("tiny", map[string]string{"startup_timeout_sec": "1e-12", "tool_timeout_sec": "-0.0"}), nil, nil},
	{codexServer("huge", map[string]string{"startup_timeout_sec": "9223372036854775807", "tool_timeout_sec": "9223372036854775807"}), nil, nil},
	{codexServer("big", map[string]string{"tool_timeout_sec": "1e18"}), nil, 1e18},
	{codexServer("bigstart", map[string]string{"startup_timeout_sec": "1e18"}), 1e18 + hosts.MCPStartMargin, nil},
	{codexServer("edge", map[string]string{"startup_timeout_sec": "9223370937343146000"}), 9223370937343146000.0 + hosts.MCPStartMargin, nil},
	{inventory.MCPServer{Name: "own", Transport: "stdio", Command: "./s", TimeoutSec: 30}, 40.0, 30.0},
}

func codexServer(name string, fields map[string]string) inventory.MCPServer {
	s := inventory.MCPServer{Name: name, Transport: "stdio", Command: "./s", Hosts: []string{"codex"}}
	for k, v := range fields {
		if s.Other == nil {
			s.Other = map[string]json.RawMessage{}
		}
		s.Other[k] = json.RawMessage(v)
	}
	return s
}

func checkTimeouts(t *testing.T, where string, entries map[string]map[string]any, name func(string) string, out string) {
	t.Helper()
	for _, c := range timeoutServers {
		e := entries[name(c.s.Name)]
		if e == nil {
			t.Errorf("%s: server %s has no entry\n%s", where, c.s.Name, out)
			continue
		}
		for k, want := range map[string]any{"startup_timeout_sec": c.startup, "tool_timeout_sec": c.tool} {
			got, ok := e[k]
			if want == nil && ok || want != nil && fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: server %s: %s = %v (set %v), want %v\n%s", where, c.s.Name, k, got, ok, want, out)
			}
		}
	}
}

// TestViewMCPTimeouts: exec's view gives Codex the reviewed timeouts
// (internal/agenttest TestExecCodexMCPToolTimeout); a remote server,
// which Codex reaches itself, gets its startup timeout with no margin.
func TestViewMCPTimeouts(t *testing.T) {
	inv := &inventory.Inventory{}
	for _, c := range timeoutServers {
		inv.MCPServers = append(inv.MCPServers, c.s)
	}
	remote := codexServer("remote", map[string]string{"startup_timeout_sec": "20", "tool_timeout_sec": "7"})
	remote.Transport, remote.Command, remote.URL = "streamable-http", "", "https://example.com/mcp"
	inv.MCPServers = append(inv.MCPServers, remote)
	b := hosts.NewBundle(harness.ActiveBundle{Name: "p", Inventory: inv}, "codex")
	v, err := Host{}.View(b, hosts.Reentry{Exe: "/usr/bin/bundlectl", Home: "/h", Workspace: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := v.File(Version + "/.mcp.json")
	var doc struct {
		MCPServers map[string]map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	checkTimeouts(t, "view", doc.MCPServers, func(n string) string { return n }, string(data))
	if e := doc.MCPServers["remote"]; fmt.Sprint(e["startup_timeout_sec"], " ", e["tool_timeout_sec"]) != "20 7" {
		t.Errorf("view: remote server %v, want startup_timeout_sec 20 and tool_timeout_sec 7, as reviewed", e)
	}
}

// TestSetupMCPTimeouts: setup writes the timeouts as exec's view does, as
// TOML floats (Codex reads an integer alike: agenttest
// TestExecCodexMCPToolTimeout), and ShortTimeouts names the entries an
// older setup wrote without them, or with others.
func TestSetupMCPTimeouts(t *testing.T) {
	var servers []inventory.MCPServer
	for _, c := range timeoutServers {
		servers = append(servers, c.s)
	}
	entries, out, _ := setupServers(t, servers)
	name := func(n string) string { return hosts.ServerEntryName("p", n) }
	checkTimeouts(t, "setup", entries, name, out)
	for _, line := range []string{"tool_timeout_sec = 300.0\n", "startup_timeout_sec = 30.5\n", "tool_timeout_sec = 1e+18\n", "startup_timeout_sec = 40.0\n"} {
		if !strings.Contains(out, line) {
			t.Errorf("setup did not write %q:\n%s", line, out)
		}
	}

	b := hosts.NewBundle(harness.ActiveBundle{Name: "p", Inventory: &inventory.Inventory{MCPServers: servers}}, "codex")
	edits, err := Host{}.Setup(hosts.SetupInput{Reentry: hosts.Reentry{Exe: "/usr/bin/bundlectl", Home: "/h", Workspace: "/w"}, Bundles: []*hosts.Bundle{b}, Environ: []string{"CODEX_HOME=/c"}})
	if err != nil {
		t.Fatal(err)
	}
	if short := edits[0].ShortTimeouts([]byte(out)); len(short) != 0 {
		t.Errorf("setup's own block: ShortTimeouts %q, want none", short)
	}
	old := strings.ReplaceAll(out, "tool_timeout_sec = 300.0\n", "")
	old = strings.ReplaceAll(old, "startup_timeout_sec = 30.5\n", "startup_timeout_sec = 20.5\n")
	old = strings.ReplaceAll(old, "startup_timeout_sec = 40.0\n", "startup_timeout_sec = 40\n") // the same number
	if got, want := strings.Join(edits[0].ShortTimeouts([]byte(old)), ","), name("tool")+","+name("frac"); got != want {
		t.Errorf("ShortTimeouts of an older block: %q, want %q", got, want)
	}
}
