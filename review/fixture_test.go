package review

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/rogpeppe/go-internal/txtar"
)

// exampleTree is the tree of the example bundle (testdata/vectors has the
// same one as 05-bundle.txtar).
func exampleTree(t testing.TB) string {
	t.Helper()
	a, err := txtar.ParseFile("testdata/vectors/05-bundle.txtar")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "example")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	materialize(t, dir, a)
	return dir
}

// exampleBundle is the bundle model of the inventory test vector in
// docs/hashing.md: one of every component, written out in Go because the
// model, not a manifest format, is what the inventory is computed from.
// With a tree directory it also walks that tree.
func exampleBundle(t testing.TB, dir string) *bundle.Bundle {
	t.Helper()
	b := &bundle.Bundle{
		ID:     "user/0123456789ab/example",
		Name:   "example",
		Scope:  bundle.ScopeUser,
		Dir:    "/home/u/.local/share/bundlectl/bundles/example",
		Format: bundle.FormatAgentPlugins,
		Meta: bundle.Metadata{
			Version:     "0.1.0",
			Description: "An example bundle with one of every component, to show what a review looks like.",
			DisplayName: "Example",
		},
		Components: bundle.Components{
			Skills: []bundle.Skill{
				{Name: "hello", Description: "Says hello.", Path: "skills/hello/SKILL.md", Grants: bundle.Grants{AllowedTools: []string{"Bash(echo:*)"}}},
			},
			Commands: []bundle.Document{{Name: "fix", Description: "Fix the bug.", Path: "dev.bundlectl/commands/fix.md"}},
			Agents:   []bundle.Document{{Name: "reviewer", Path: "dev.bundlectl/agents/reviewer.md"}},
			Tools: []bundle.Tool{{
				Name: "greet", Description: "Greets someone by name.",
				Command: "python3", Args: []string{"${PLUGIN_ROOT}/tools/greet.py", "--loud"},
				Params:     json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
				TimeoutSec: 10,
			}},
			Hooks: []bundle.Hook{
				{Event: "PreToolUse", Matcher: "Bash", Command: "./hooks/guard", Args: []string{"--strict"}, TimeoutSec: 10},
				{Event: "SessionStart", Command: "./hooks/guard", Args: []string{"start"}},
			},
			MCP: []bundle.MCPServer{
				{
					Name: "local", Transport: bundle.TransportStdio,
					Command: "node", Args: []string{"${PLUGIN_ROOT}/mcp/server.js", "--port", "0"},
					Env:     map[string]string{"LOG_LEVEL": "debug"},
					EnvFrom: map[string]string{"API_KEY": "EXAMPLE_API_KEY"},
					Cwd:     "./mcp", TimeoutSec: 30,
					ToolsExclude: []string{"delete_all"},
				},
				{
					Name: "remote", Transport: bundle.TransportStreamableHTTP,
					URL:               "HTTPS://API.Example.com:443/mcp?v=1",
					Headers:           map[string]string{"X-Client": "bundlectl"},
					BearerTokenEnvVar: "EXAMPLE_TOKEN",
					EnvHeaders:        map[string]string{"X-Org": "EXAMPLE_ORG"},
					ToolsInclude:      []string{"search", "fetch"},
				},
			},
		},
		Permissions: bundle.Permissions{NetworkHosts: []string{"api.example.com"}},
		When:        bundle.When{OS: []string{"macos", "linux"}, Binaries: []string{"python3", "node"}},
		Ignored:     []string{"plugin.json: unknownField"},
	}
	b.Report.Warnf("plugin.json: unknownField", "manifest.unknown", "unknown field is ignored")
	if dir != "" {
		b.Dir = dir
		tree, rep := bundle.Walk(dir, bundle.Limits{})
		b.Tree = tree
		b.Report.Merge(rep)
	}
	return b
}
