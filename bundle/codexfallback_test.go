package bundle

import (
	"slices"
	"strings"
	"testing"
)

// claudeOnlyForCodex is a Claude Code plugin with no Codex manifest, and
// everything Codex 0.169 loads from it (internal/agenttest
// TestCodexLoadsOtherHostsManifest): the skill, .mcp.json, hooks/hooks.json,
// .app.json and a skill's agents/openai.yaml.
func claudeOnlyForCodex(manifest string) map[string]string {
	return map[string]string{
		manifest:                        `{"name": "cp", "version": "1.0.0"}`,
		"skills/owl/SKILL.md":           "---\nname: owl\ndescription: owls\n---\nbody\n",
		"skills/owl/agents/openai.yaml": "dependencies:\n  tools:\n    - type: mcp\n      value: deps\n      url: https://deps.example.com/mcp\n",
		".mcp.json":                     `{"mcpServers": {"fake": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/fake", "timeout": 30000}}}`,
		"hooks/hooks.json":              `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/bin/guard.sh"}]}]}}`,
		".app.json":                     `{"apps": {"tracker": {"id": "asdk_app_example"}}}`,
		"bin/guard.sh":                  "#!/bin/sh\n",
		"bin/fake":                      "#!/bin/sh\n",
	}
}

// Codex reads .claude-plugin/plugin.json (then .cursor-plugin/plugin.json)
// when a plugin has no .codex-plugin/plugin.json, with its own field
// meanings and default files: what it loads must be the Codex host's in
// the review, and what only Codex reads (.app.json, agents/openai.yaml)
// must be reviewed at all.
func TestCodexReadsOtherHostsManifest(t *testing.T) {
	for _, manifest := range []string{ManifestClaude, ManifestCursor} {
		t.Run(manifest, func(t *testing.T) {
			b := writeTree(t, "cp", claudeOnlyForCodex(manifest))
			if b.Rejected() {
				t.Fatalf("rejected:%s", dumpFindings(b))
			}
			if len(b.Components.Skills) != 1 || !slices.Contains(b.Components.Skills[0].Hosts, HostCodex) {
				t.Errorf("skill hosts: %+v", b.Components.Skills)
			}
			codexServer := false
			for _, s := range b.Components.MCP {
				if s.Name == "fake" && slices.Contains(s.Hosts, HostCodex) {
					codexServer = true
					if s.TimeoutSec != 0 {
						t.Errorf("Codex ignores an MCP server's timeout; read as %d s", s.TimeoutSec)
					}
				}
			}
			if !codexServer {
				t.Errorf("the MCP server is not Codex's: %+v", b.Components.MCP)
			}
			if len(b.Components.Hooks) != 1 || !slices.Contains(b.Components.Hooks[0].Hosts, HostCodex) {
				t.Errorf("hook hosts: %+v", b.Components.Hooks)
			}
			if len(b.Components.Apps) != 1 || b.Components.Apps[0].Name != "tracker" {
				t.Errorf("the app Codex loads is not reviewed: %+v", b.Components.Apps)
			}
			deps := false
			for k := range b.ManifestOther {
				deps = deps || strings.Contains(k, "skills/owl/agents/openai.yaml")
			}
			if !deps {
				t.Errorf("the skill's Codex dependencies are not reviewed: %v", b.ManifestOther)
			}
			if b.HasFormat(FormatCodex) {
				t.Errorf("formats %v: the bundle has no Codex manifest", b.Formats)
			}
		})
	}
}

// Codex reads no other host's manifest beside its own, nor beside an Agent
// Plugins plugin.json, nor without any manifest: there the fields of the
// Claude Code manifest are not Codex's.
func TestCodexFallbackOnlyWithoutItsOwnManifest(t *testing.T) {
	files := func(extra map[string]string) map[string]string {
		f := map[string]string{
			ManifestClaude:        `{"name": "cp", "apps": "./extra-apps.json"}`,
			"extra-apps.json":     `{"apps": {"tracker": {"id": "asdk_app_example"}}}`,
			"skills/owl/SKILL.md": "---\nname: owl\ndescription: owls\n---\nbody\n",
		}
		for k, v := range extra {
			f[k] = v
		}
		return f
	}
	if b := writeTree(t, "cp", files(nil)); len(b.Components.Apps) != 1 {
		t.Fatalf("without a Codex manifest, Codex reads the Claude Code manifest's apps: %+v%s", b.Components.Apps, dumpFindings(b))
	}
	for name, extra := range map[string]map[string]string{
		"codex manifest": {ManifestCodex: `{"name": "cp"}`},
		"agent plugins":  {ManifestJSON: `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "cp"}`},
	} {
		b := writeTree(t, "cp", files(extra))
		if len(b.Components.Apps) != 0 {
			t.Errorf("%s: Codex reads its own manifest, not the Claude Code one's apps: %+v", name, b.Components.Apps)
		}
	}
	none := claudeOnlyForCodex(ManifestClaude)
	delete(none, ManifestClaude)
	b := writeTree(t, "cp", none)
	if len(b.Components.Apps) != 0 || len(b.Components.Skills) != 1 || slices.Contains(b.Components.Skills[0].Hosts, HostCodex) {
		t.Errorf("a manifest-less Claude Code plugin is no Codex plugin: skills %+v apps %+v", b.Components.Skills, b.Components.Apps)
	}
}

// A Cursor manifest has no reader but Codex's: a field Codex may act on
// that bundlectl does not interpret is reviewed as written, as in a Codex
// manifest, and a manifest Codex cannot read is an error, not a plugin
// whose Codex half silently vanishes.
func TestCodexReadsCursorManifestWhole(t *testing.T) {
	skill := "---\nname: owl\ndescription: owls\n---\nbody\n"
	b := writeTree(t, "cp", map[string]string{
		ManifestCursor:        `{"name": "cp", "interface": {"displayName": "Owl"}, "futureThing": {"run": "./x"}}`,
		"skills/owl/SKILL.md": skill,
	})
	if _, ok := b.ManifestOther["codex.futureThing"]; !ok {
		t.Errorf("a Cursor manifest field Codex may read is not reviewed: %v", b.ManifestOther)
	}
	requireFinding(t, b, Warning, "manifest.unknown-field", ManifestCursor+": futureThing")
	for _, data := range []string{`{"name": "cp",`, `["cp"]`} {
		b = writeTree(t, "cp", map[string]string{ManifestCursor: data, "skills/owl/SKILL.md": skill})
		if !b.Rejected() {
			t.Errorf("%s: a Cursor manifest Codex cannot read is not an error:%s", data, dumpFindings(b))
		}
		for _, n := range b.Notes {
			if strings.Contains(n, "Codex reads") {
				t.Errorf("%s: the note says Codex reads a manifest bundlectl could not: %q", data, n)
			}
		}
	}
}
