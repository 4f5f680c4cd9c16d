package bundle

import (
	"os"
	"path/filepath"
	"testing"
)

func seed(t testing.TB, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "manifests", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// fullBundle is a valid bundle using every surface that is not inactive.
func fullBundle(t testing.TB) files {
	return files{
		"plugin.json":                      seed(t, "plugin-full.json"),
		"mcp.json":                         seed(t, "mcp-full.json"),
		"skills/summarize/SKILL.md":        seed(t, "skill-full.md"),
		"skills/summarize/scripts/run.sh":  "#!/bin/sh\n",
		"bin/validator*":                   "#!/bin/sh\n",
		"hooks/guard*":                     "#!/bin/sh\n",
		"greet.py":                         "print('hi')\n",
		"dev.bundlectl/commands/review.md": seed(t, "command.md"),
		"dev.bundlectl/agents/helper.md":   "Plain agent without front matter.\n",
	}
}

func TestFullBundleIsValid(t *testing.T) {
	b := loadFiles(t, fullBundle(t))
	requireClean(t, b)
	if len(b.Report.Findings) != 0 {
		t.Fatalf("want no findings at all:%s", dumpFindings(b))
	}
	if b.Format != FormatAgentPlugins || b.Meta.Version != "1.2.0" || b.Meta.DisplayName != "Demo Plugin" || b.Meta.Author.Email != "author@example.com" {
		t.Fatalf("metadata: %+v", b.Meta)
	}
	c := b.Components
	if len(c.Skills) != 1 || c.Skills[0].Name != "summarize" || c.Skills[0].Metadata["version"] != "1.0" {
		t.Fatalf("skills: %+v", c.Skills)
	}
	if len(c.Tools) != 1 || string(c.Tools[0].Params) != `{"properties":{"name":{"type":"string"}},"required":["name"],"type":"object"}` {
		t.Fatalf("tools: %+v", c.Tools)
	}
	if len(c.Hooks) != 2 || c.Hooks[0].Event != "PreToolUse" || c.Hooks[1].Event != "SessionStart" || c.Hooks[0].TimeoutSec != 10 {
		t.Fatalf("hooks not in manifest order: %+v", c.Hooks)
	}
	if len(c.MCP) != 4 || c.MCP[0].Name != "local-validator" || c.MCP[0].TimeoutSec != 60 || c.MCP[0].EnvFrom["VALIDATOR_KEY"] != "HOST_VALIDATOR_KEY" || c.MCP[1].BearerTokenEnvVar != "DEPLOY_TOKEN" {
		t.Fatalf("mcp: %+v", c.MCP)
	}
	if len(c.Commands) != 1 || c.Commands[0].Description != "Review the current change" || len(c.Agents) != 1 || c.Agents[0].Name != "helper" {
		t.Fatalf("documents: %+v %+v", c.Commands, c.Agents)
	}
	want := []string{"127.0.0.1", "deploy.example.com", "legacy.example.com"}
	if len(b.Permissions.NetworkHosts) != 3 || b.Permissions.NetworkHosts[0] != want[0] || b.Permissions.NetworkHosts[2] != want[2] {
		t.Fatalf("network hosts: %v", b.Permissions.NetworkHosts)
	}
	if b.Blocked() {
		t.Fatalf("blocked: %+v", b.Inactive)
	}
}
