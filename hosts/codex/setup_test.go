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
