package codex

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/harness"
	"github.com/bundlectl/bundlectl/hosts"
	"github.com/bundlectl/bundlectl/inventory"
	"github.com/pelletier/go-toml/v2"
)

// TestSetupSkipsDisabledServer: Codex starts no plugin server that says
// "enabled": false (TestViewMCPServers), so setup, which would make it one
// of the user's own servers that Codex always starts, leaves it out too and
// says so.
func TestSetupSkipsDisabledServer(t *testing.T) {
	inv := &inventory.Inventory{MCPServers: []inventory.MCPServer{
		{Name: "on", Transport: "stdio", Command: "./s", Hosts: []string{"codex"}},
		{Name: "off", Transport: "stdio", Command: "./s", Other: map[string]json.RawMessage{"enabled": json.RawMessage("false")}, Hosts: []string{"codex"}},
	}}
	b := hosts.NewBundle(harness.ActiveBundle{Name: "p", Inventory: inv}, "codex")
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
	if doc.MCPServers["bundlectl-p-on"] == nil {
		t.Errorf("server on is not wired\n%s", out)
	}
	if e, ok := doc.MCPServers["bundlectl-p-off"]; ok {
		t.Errorf("server off, which says enabled false, is wired: %v\n%s", e, out)
	}
	if !strings.Contains(strings.Join(b.Notes, "\n"), `MCP server "off" is not loaded`) {
		t.Errorf("no note names server off: %q", b.Notes)
	}
}
