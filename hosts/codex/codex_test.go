package codex

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/harness"
	"github.com/bundlectl/bundlectl/hosts"
	"github.com/bundlectl/bundlectl/internal/agenttest"
	"github.com/bundlectl/bundlectl/inventory"
	"github.com/pelletier/go-toml/v2"
)

// TestHookHash: the recipe agrees with the one the end-to-end tests proved
// against the real Codex (agenttest.CodexHookHash), for commands with the
// characters JSON escapes differently.
func TestHookHash(t *testing.T) {
	for _, c := range []struct{ event, matcher, command string }{
		{"PreToolUse", "Bash", "${PLUGIN_ROOT}/bin/guard.sh"},
		{"Stop", "", "'/usr/local/bin/bundlectl' --home /h hooks run Stop --host codex"},
		{"UserPromptSubmit", "*", `a < b && c > "d"`},
	} {
		if got, want := HookHash(c.event, c.matcher, c.command, 600, false), agenttest.CodexHookHash(c.event, c.matcher, c.command, 600); got != want {
			t.Errorf("HookHash(%q, %q, %q) = %s, want %s", c.event, c.matcher, c.command, got, want)
		}
	}
}

func TestGuardsOff(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"exec", "-c", "features.plugins=false", "hi"}, "-c features.plugins=false"},
		{[]string{"-c", "features.plugins=false", "--config=features.plugins=true"}, ""},
		{[]string{"-cfeatures.plugins = \"false\""}, "-c features.plugins = \"false\""},
		{[]string{"-c", "features.hooks=false"}, "-c features.hooks=false"},
		{[]string{"--disable", "plugins"}, "--disable plugins"},
		{[]string{"--disable=hooks"}, "--disable hooks"},
		{[]string{"--disable", "web_search"}, ""},
		{[]string{"-c", "features={plugins=false}"}, "-c features={plugins=false}"},
		{[]string{"-c", "hooks.state={}"}, "-c hooks.state={}"},
		{[]string{"-c", `plugins."x@bundlectl-1".enabled=false`}, ""}, // PluginArgError's
		{[]string{"--", "-c", "features.plugins=false", "--disable", "hooks"}, ""},
		{[]string{"-c", "model=x"}, ""},
		{[]string{"-c=features.plugins=false"}, "-c features.plugins=false"},
		{[]string{"-c=features.hooks=false"}, "-c features.hooks=false"},
		// Codex takes each part of a key as written, quotes and spaces
		// included (agenttest TestCodexFeatureArgSpellings).
		{[]string{"-c", `"features".plugins=false`}, ""},
		{[]string{"-c", `features."hooks"=false`}, ""},
		{[]string{"-c", `features.'hooks'=false`}, ""},
		{[]string{"-c", `features. hooks=false`}, ""},
		{[]string{"-c", `"features"={hooks=false}`}, ""},
		{[]string{"-c", `"hooks".state={}`}, ""},
		{[]string{"-c", ` features.hooks = false`}, "-c  features.hooks = false"},
		{[]string{"-c", "features={hooks=false}"}, "-c features={hooks=false}"},
		{[]string{"-c", "features={}"}, "-c features={}"},
		{[]string{"-c", "features={plugins=true}"}, "-c features={plugins=true}"},
		{[]string{"-c", "features={plugins=true,hooks=true,x=1}"}, ""},
		{[]string{"-c", "features={plugins=true,hooks=true}", "-c", "features.hooks=false"}, "-c features.hooks=false"},
		{[]string{"-c", "features.hooks=false", "-c", "features={plugins=true,hooks=true}"}, ""},
	} {
		if got := GuardsOff(c.args); got != c.want {
			t.Errorf("GuardsOff(%q) = %q, want %q", c.args, got, c.want)
		}
	}
}

func TestInlineTOML(t *testing.T) {
	v := map[string]any{"p@m:hooks/hooks.json:pre_tool_use:0:0": map[string]any{"trusted_hash": "sha256:00"}, `we"ird`: map[string]any{"enabled": true, "n": 3, "l": []string{"a", "b"}}}
	var out map[string]any
	if err := toml.Unmarshal([]byte("x = "+InlineTOML(v)), &out); err != nil {
		t.Fatalf("%s: %v", InlineTOML(v), err)
	}
	x := out["x"].(map[string]any)
	if x[`we"ird`].(map[string]any)["enabled"] != true || x["p@m:hooks/hooks.json:pre_tool_use:0:0"] == nil {
		t.Errorf("round trip: %v", x)
	}
}

// TestSetupBlock: setup's block goes after the user's config, its trust
// keys count the user's own hook groups, applying twice changes nothing,
// and stripping gives the user's file back.
func TestSetupBlock(t *testing.T) {
	user := "model = \"gpt-5.5\"\n\n[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"mine\"\n"
	edits, err := Host{}.Setup(hosts.SetupInput{Reentry: hosts.Reentry{Exe: "/usr/bin/bundlectl", Home: "/h", Workspace: "/w"}, Environ: []string{"CODEX_HOME=/c"}})
	if err != nil {
		t.Fatal(err)
	}
	e := edits[0]
	once, err := e.Apply([]byte(user))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(once), user) {
		t.Errorf("the user's config is not kept as is")
	}
	var doc map[string]any
	if err := toml.Unmarshal(once, &doc); err != nil {
		t.Fatal(err)
	}
	hooks := doc["hooks"].(map[string]any)
	pre := hooks["PreToolUse"].([]any)
	if len(pre) != 2 || pre[1].(map[string]any)["hooks"].([]any)[0].(map[string]any)["command"] != "/usr/bin/bundlectl --home /h hooks run PreToolUse --host codex" {
		t.Errorf("PreToolUse groups: %v", pre)
	}
	state := hooks["state"].(map[string]any)
	if _, ok := state["/c/config.toml:pre_tool_use:1:0"]; !ok {
		t.Errorf("the trust key does not count the user's group: %v", state)
	}
	if _, ok := state["/c/config.toml:stop:0:0"]; !ok {
		t.Errorf("no trust key for Stop: %v", state)
	}
	twice, _ := e.Apply(once)
	if string(twice) != string(once) {
		t.Errorf("applying twice changed the file")
	}
	if back, _ := e.Strip(once); string(back) != user {
		t.Errorf("strip:\n%s", back)
	}
	if _, err := e.Apply([]byte("[hooks]\nstate = 1\n")); err == nil {
		t.Errorf("a clashing config was edited")
	}
}

// TestViewMCPServers: Codex starts a stdio MCP server with a few variables
// of its own and those its env_vars name, so the view names the host
// variables the review lists for a server: bundlectl mcp, which Codex
// starts, needs them to give them to the server (internal/agenttest
// TestCodexMCPShapes, exec). A server with "enabled": false, which Codex
// itself never starts, is left out with a note.
func TestViewMCPServers(t *testing.T) {
	inv := &inventory.Inventory{MCPServers: []inventory.MCPServer{
		{Name: "reads", Transport: "stdio", Command: "./s", EnvFrom: map[string]string{"TOKEN": "TOKEN"}, HostVariables: []string{"TOKEN"}, Hosts: []string{"codex"}},
		{Name: "plain", Transport: "stdio", Command: "./s", Hosts: []string{"codex"}},
		{Name: "off", Transport: "stdio", Command: "./s", Other: map[string]json.RawMessage{"enabled": json.RawMessage("false")}, Hosts: []string{"codex"}},
	}}
	b := hosts.NewBundle(harness.ActiveBundle{Name: "p", Inventory: inv}, "codex")
	v, err := Host{}.View(b, hosts.Reentry{Exe: "/usr/bin/bundlectl", Home: "/h", Workspace: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	data, ok := v.File(Version + "/.mcp.json")
	if !ok {
		t.Fatalf("no .mcp.json in the view: %v", v.Paths())
	}
	var doc struct {
		MCPServers map[string]map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(doc.MCPServers["reads"]["env_vars"]); got != "[TOKEN]" {
		t.Errorf("server reads: env_vars %s, want [TOKEN]", got)
	}
	if _, ok := doc.MCPServers["plain"]["env_vars"]; ok {
		t.Errorf("server plain: env_vars %v, want none", doc.MCPServers["plain"]["env_vars"])
	}
	// Codex starts no server with "enabled": false; neither may the view.
	if _, ok := doc.MCPServers["off"]; ok || !strings.Contains(strings.Join(b.Notes, "\n"), `"off"`) {
		t.Errorf("a server with enabled false is in the view (%v), or not named in a note (%q)", doc.MCPServers["off"], b.Notes)
	}
}

// TestRemoteArg: --remote in either spelling, not a value of another
// option, not in the prompt.
func TestRemoteArg(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"--remote", "ws://h:1", "hi"}, "--remote ws://h:1"},
		{[]string{"exec", "--remote=unix://", "hi"}, "--remote=unix://"},
		{[]string{"-c", "--remote", "hi"}, ""},
		{[]string{"-m", "--remote", "hi"}, ""},
		{[]string{"--remote-auth-token-env", "--remote"}, ""},
		{[]string{"--", "--remote", "x"}, ""},
	} {
		if got, _ := remoteArg(c.args); got != c.want {
			t.Errorf("remoteArg(%q) = %q, want %q", c.args, got, c.want)
		}
	}
}
