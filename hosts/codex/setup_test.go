package codex

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/harness"
	"github.com/bundlectl/bundlectl/hosts"
	"github.com/bundlectl/bundlectl/inventory"
	"github.com/pelletier/go-toml/v2"
)

// setupServers runs setup for one bundle "p" with servers and returns the
// [mcp_servers] tables it writes, the config.toml text, and the bundle (its
// notes).
func setupServers(t *testing.T, servers []inventory.MCPServer) (map[string]map[string]any, string, *hosts.Bundle) {
	t.Helper()
	b := hosts.NewBundle(harness.ActiveBundle{Name: "p", Inventory: &inventory.Inventory{MCPServers: servers}}, "codex")
	edits, err := Host{}.Setup(hosts.SetupInput{Reentry: hosts.Reentry{Exe: "/usr/bin/bundlectl", Home: "/h", Workspace: "/w"}, Bundles: []*hosts.Bundle{b}, Environ: []string{"CODEX_HOME=/c"}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := edits[0].Apply(nil)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		MCPServers map[string]map[string]any `toml:"mcp_servers"`
	}
	if err := toml.Unmarshal(out, &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return doc.MCPServers, string(out), b
}

// TestSetupServerHostVariables: setup's [mcp_servers] entry names the host
// variables the review lists for the server in env_vars, as the view does
// (TestViewMCPServers): Codex starts bundlectl mcp with only those.
func TestSetupServerHostVariables(t *testing.T) {
	servers, out, _ := setupServers(t, []inventory.MCPServer{
		{Name: "reads", Transport: "stdio", Command: "./s", HostVariables: []string{"TOKEN"}, Hosts: []string{"codex"}},
		{Name: "plain", Transport: "stdio", Command: "./s", Hosts: []string{"codex"}},
	})
	if got := fmt.Sprint(servers["bundlectl-p-reads"]["env_vars"]); got != "[TOKEN]" {
		t.Errorf("server reads: env_vars %s, want [TOKEN]\n%s", got, out)
	}
	if v, ok := servers["bundlectl-p-plain"]["env_vars"]; ok || servers["bundlectl-p-plain"] == nil {
		t.Errorf("server plain: entry %v, env_vars %v, want the entry without env_vars\n%s", servers["bundlectl-p-plain"], v, out)
	}
}

// TestSetupSkipsDisabledServer: Codex starts no plugin server that says
// "enabled": false (TestViewMCPServers), so setup, which would make it one
// of the user's own servers that Codex always starts, leaves it out too and
// says so.
func TestSetupSkipsDisabledServer(t *testing.T) {
	servers, out, b := setupServers(t, []inventory.MCPServer{
		{Name: "on", Transport: "stdio", Command: "./s", Hosts: []string{"codex"}},
		{Name: "off", Transport: "stdio", Command: "./s", Other: map[string]json.RawMessage{"enabled": json.RawMessage("false")}, Hosts: []string{"codex"}},
	})
	if servers["bundlectl-p-on"] == nil {
		t.Errorf("server on is not wired\n%s", out)
	}
	if e, ok := servers["bundlectl-p-off"]; ok {
		t.Errorf("server off, which says enabled false, is wired: %v\n%s", e, out)
	}
	if !strings.Contains(strings.Join(b.Notes, "\n"), `MCP server "off" is not loaded`) {
		t.Errorf("no note names server off: %q", b.Notes)
	}
}

// TestSetupClampedEvents: setup writes the SessionEnd and Interrupt lines
// with ClampedHookTimeout, the most Codex 0.171 gives those events (with a
// day it warned on every session and did not run setup's SessionEnd line:
// internal/agenttest TestCodexSessionEndClamp), and their trust hash
// for that timeout; the other lines keep SetupHookTimeout, which
// WiredTimeout reports. A block an older setup wrote, with a day on those
// two lines, does not wire them (WiredEvents), so setup is stale and says
// to run it again.
func TestSetupClampedEvents(t *testing.T) {
	_, out, _ := setupServers(t, nil)
	re := hosts.Reentry{Exe: "/usr/bin/bundlectl", Home: "/h", Workspace: "/w"}
	for _, ev := range Events {
		want := SetupHookTimeout
		if ev == "SessionEnd" || ev == "Interrupt" {
			want = ClampedHookTimeout
		}
		cmd := hosts.ShellJoin(re.HooksRun(ev, "codex"))
		line := fmt.Sprintf("[[hooks.%s.hooks]]\ntype = \"command\"\ncommand = %s\ntimeout = %d\n", ev, tomlString(cmd), want)
		if !strings.Contains(out, line) || !strings.Contains(out, HookHash(ev, "", cmd, want, false)) {
			t.Errorf("setup's %s line or its trust hash is not for a timeout of %d s:\n%s", ev, want, out)
		}
	}
	if got := (Host{}).WiredEvents([]byte(out)); len(got) != len(Events) {
		t.Errorf("WiredEvents = %v, want every event", got)
	}
	if got, ok := (Host{}).WiredTimeout([]byte(out)); !ok || got != SetupHookTimeout {
		t.Errorf("WiredTimeout = %d, %v, want %d (the clamped lines do not count)", got, ok, SetupHookTimeout)
	}
	old := strings.ReplaceAll(out, fmt.Sprintf("timeout = %d\n", ClampedHookTimeout), fmt.Sprintf("timeout = %d\n", SetupHookTimeout))
	got := (Host{}).WiredEvents([]byte(old))
	if len(got) != len(Events)-2 || strings.Contains(strings.Join(got, " "), "SessionEnd") || strings.Contains(strings.Join(got, " "), "Interrupt") {
		t.Errorf("WiredEvents of an older block = %v, want every event but SessionEnd and Interrupt", got)
	}
}

// TestSetupKeepsByteOrderMark: Codex 0.171 reads a config.toml that
// starts with a UTF-8 byte order mark (TestSetupCodexConfigSpellings), so
// setup edits one too, keeping the mark as written, and reads back what
// it wrote; go-toml alone refuses the file ("not valid TOML at line 1").
func TestSetupKeepsByteOrderMark(t *testing.T) {
	b := hosts.NewBundle(harness.ActiveBundle{Name: "p", Inventory: &inventory.Inventory{MCPServers: []inventory.MCPServer{{Name: "s", Command: "x"}}}}, "codex")
	edits, err := Host{}.Setup(hosts.SetupInput{Reentry: hosts.Reentry{Exe: "/usr/bin/bundlectl", Home: "/h", Workspace: "/w"}, Bundles: []*hosts.Bundle{b}, Environ: []string{"CODEX_HOME=/c"}})
	if err != nil {
		t.Fatal(err)
	}
	user := "\xef\xbb\xbfmodel = \"m\"\n"
	out, err := edits[0].Apply([]byte(user))
	if err != nil {
		t.Fatalf("setup refused a config.toml behind a byte order mark: %v", err)
	}
	if !strings.HasPrefix(string(out), user) {
		t.Errorf("setup did not keep the user's bytes, mark included:\n%q", out)
	}
	if got := (Host{}).WiredEvents(out); len(got) != len(Events) {
		t.Errorf("WiredEvents = %v, want every event", got)
	}
	if short := edits[0].ShortTimeouts(out); len(short) != 0 {
		t.Errorf("ShortTimeouts = %v, want none (setup just wrote them)", short)
	}
	back, err := edits[0].Strip(out)
	if err != nil || string(back) != user {
		t.Errorf("Strip = %q, %v; want the user's bytes back", back, err)
	}
}
