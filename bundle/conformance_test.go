package bundle

// Tests for the Agent Plugins v1.0.0 Appendix A conformance checklist, one
// per item, in checklist order. docs/agent-plugins.md maps each item to its
// test.

import (
	"os"
	"path/filepath"
	"testing"
)

// §5.1, §5.2: plugin.json is loaded and validated before any component; a
// schema violation rejects the plugin and no component is discovered.
func TestConformanceParseAndValidateManifest(t *testing.T) {
	requireClean(t, loadFiles(t, files{"plugin.json": minimalPlugin}))
	for name, manifest := range map[string]string{
		"not json":        `{`,
		"not an object":   `"demo"`,
		"wrong type":      `{` + pluginSchema + `, "name": "demo", "description": ["x"]}`,
		"closed author":   `{` + pluginSchema + `, "name": "demo", "author": {"name": "a", "id": 1}}`,
		"keywords string": `{` + pluginSchema + `, "name": "demo", "keywords": "a,b"}`,
	} {
		t.Run(name, func(t *testing.T) {
			b := loadFiles(t, files{
				"plugin.json":       manifest,
				"skills/s/SKILL.md": skill("name: s\ndescription: d"),
				"mcp.json":          mcpJSON(`{"x": {"type": "stdio", "command": "node"}}`),
			})
			if !b.Rejected() {
				t.Fatalf("not rejected:%s", dumpFindings(b))
			}
			if len(b.Components.Skills)+len(b.Components.MCP) != 0 {
				t.Fatalf("components of a rejected plugin were discovered: %+v", b.Components)
			}
		})
	}
	// Metadata is checked by JSON type only.
	b := loadFiles(t, files{"plugin.json": `{` + pluginSchema + `, "name": "demo", "version": "not semver",
		"homepage": "not a url", "author": {"email": "not an email", "url": "::"}, "license": "Not-SPDX"}`})
	requireClean(t, b)
}

// §5.3: $schema and name are required, non-empty strings; an unknown
// $schema is an unsupported version and rejects the plugin.
func TestConformanceRequiredFields(t *testing.T) {
	for name, tc := range map[string]struct{ manifest, rule string }{
		"schema missing":     {`{"name": "demo"}`, "manifest.schema"},
		"schema empty":       {`{"$schema": "", "name": "demo"}`, "manifest.schema"},
		"schema wrong type":  {`{"$schema": null, "name": "demo"}`, "manifest.schema"},
		"schema unsupported": {`{"$schema": "https://agent-plugins.org/schemas/2.0.0/plugin.schema.json", "name": "demo"}`, "manifest.unsupported-version"},
		"name missing":       {`{` + pluginSchema + `}`, "manifest.name"},
		"name empty":         {`{` + pluginSchema + `, "name": ""}`, "manifest.name"},
		"name wrong type":    {`{` + pluginSchema + `, "name": ["demo"]}`, "manifest.name"},
	} {
		t.Run(name, func(t *testing.T) {
			b := loadFiles(t, files{"plugin.json": tc.manifest})
			requireFinding(t, b, Error, tc.rule, "plugin.json")
		})
	}
}

// §5.5: the spec's own valid and invalid names.
func TestConformancePluginName(t *testing.T) {
	for _, name := range []string{"my-plugin", "acme.tools", "lint3r", "a"} {
		b := Load(writeBundle(t, name, files{"plugin.json": `{` + pluginSchema + `, "name": "` + name + `"}`}), ScopeDir, Limits{})
		requireClean(t, b)
	}
	for _, name := range []string{"My-Plugin", "-start", "has--double", "too.many..dots", ""} {
		b := loadFiles(t, files{"plugin.json": `{` + pluginSchema + `, "name": "` + name + `"}`})
		requireFinding(t, b, Error, "manifest.name", "plugin.json: name")
	}
}

// §5.2: unknown top-level fields are reported, ignored, and given no meaning.
func TestConformanceUnknownFieldsReportedAndIgnored(t *testing.T) {
	b := loadFiles(t, files{"plugin.json": `{` + pluginSchema + `, "name": "demo", "skills": "./elsewhere", "displayName": "X"}`,
		"elsewhere/s/SKILL.md": skill("name: s\ndescription: d")})
	requireClean(t, b)
	requireFinding(t, b, Warning, "manifest.unknown-field", "plugin.json: skills")
	requireFinding(t, b, Warning, "manifest.unknown-field", "plugin.json: displayName")
	if len(b.Components.Skills) != 0 || b.Meta.DisplayName != "" {
		t.Fatalf("an unknown field was given meaning: %+v %+v", b.Components.Skills, b.Meta)
	}
	// §8.1: a non-object extensions is reported and ignored too.
	b = loadFiles(t, files{"plugin.json": `{` + pluginSchema + `, "name": "demo", "extensions": ["dev.bundlectl"]}`})
	requireClean(t, b)
	requireFinding(t, b, Warning, "manifest.extensions-type", "plugin.json: extensions")
}

// §8.1: other namespaces are ignored without validating their values.
func TestConformanceUnimplementedNamespacesIgnored(t *testing.T) {
	b := loadFiles(t, files{"plugin.json": `{` + pluginSchema + `, "name": "demo", "extensions": {
		"com.example.client": {"hooks": 1, "mcp": {"x": null}, "tools": "--token=abc"}}}`})
	requireClean(t, b)
	if len(b.Report.Findings) != 0 {
		t.Fatalf("another namespace was validated:%s", dumpFindings(b))
	}
}

// §4.1: package paths never resolve outside the plugin root. bundlectl
// follows no symbolic link: a link out of the root is not part of the
// bundle (skipped), and what lies behind it is never loaded.
func TestConformancePathsStayInsideRoot(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "SKILL.md"), []byte(skill("name: s\ndescription: d")), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, link := range map[string]string{"skills/s": outside, "skills/t/SKILL.md": filepath.Join(outside, "SKILL.md"), "mcp.json": filepath.Join(outside, "SKILL.md")} {
		t.Run("symlink "+name, func(t *testing.T) {
			dir := writeBundle(t, "demo", files{"plugin.json": minimalPlugin, "skills/t/": ""})
			if err := os.Symlink(link, filepath.Join(dir, filepath.FromSlash(name))); err != nil {
				t.Fatal(err)
			}
			b := Load(dir, ScopeDir, Limits{})
			requireFinding(t, b, Skip, "tree.symlink", name)
			if len(b.Components.Skills)+len(b.Components.MCP) != 0 {
				t.Fatalf("a component behind a symlink was loaded: %+v", b.Components)
			}
		})
	}
	// Plugin-relative paths that escape: the server or tool is invalid.
	b := loadFiles(t, files{"plugin.json": pluginWithExt(`{"tools": [{"name": "t", "command": "./../t"}]}`),
		"mcp.json": mcpJSON(`{"a": {"type": "stdio", "command": "../a"}, "b": {"type": "stdio", "command": "node", "cwd": "./.."}}`)})
	requireFinding(t, b, Skip, "command.token", "mcpServers.a.command")
	requireFinding(t, b, Skip, "mcp.cwd", "mcpServers.b.cwd")
	requireFinding(t, b, Skip, "command.token", "tools[0].command")
	b = loadFiles(t, files{"plugin.json": pluginWithExt(`{"native": {"n": {"path": "./a/../../n.so"}}}`)})
	requireFinding(t, b, Error, "inactive.native", "native.n.path")
}

// §8.2: bundlectl's file-based extension is read from dev.bundlectl/ only.
func TestConformanceExtensionDirectory(t *testing.T) {
	b := loadFiles(t, withPlugin(files{
		"dev.bundlectl/commands/a.md":       "A\n",
		"dev.bundlectl/agents/b.md":         "B\n",
		"commands/c.md":                     "not ours\n",
		"com.example.client/commands/d.md":  "not ours\n",
		"dev.bundlectl.extra/commands/e.md": "not ours\n",
	}))
	requireClean(t, b)
	if len(b.Components.Commands) != 1 || b.Components.Commands[0].Name != "a" || len(b.Components.Agents) != 1 {
		t.Fatalf("documents: %+v %+v", b.Components.Commands, b.Components.Agents)
	}
}

// §6.1: components come from their fixed locations only.
func TestConformanceFixedLocations(t *testing.T) {
	b := loadFiles(t, files{
		"plugin.json":               minimalPlugin,
		"skills/s/SKILL.md":         skill("name: s\ndescription: d"),
		"mcp.json":                  mcpJSON(`{"x": {"type": "stdio", "command": "node"}}`),
		"other/t/SKILL.md":          skill("name: t\ndescription: d"),
		".agents/skills/u/SKILL.md": skill("name: u\ndescription: d"),
		"config/mcp.json":           mcpJSON(`{"y": {"type": "stdio", "command": "node"}}`),
		".mcp.json":                 mcpJSON(`{"z": {"type": "stdio", "command": "node"}}`),
	})
	requireClean(t, b)
	if len(b.Components.Skills) != 1 || b.Components.Skills[0].Name != "s" || len(b.Components.MCP) != 1 || b.Components.MCP[0].Name != "x" {
		t.Fatalf("components: %+v", b.Components)
	}
}

// §6.2: a missing fixed location is not an error.
func TestConformanceMissingLocations(t *testing.T) {
	b := loadFiles(t, files{"plugin.json": minimalPlugin})
	if len(b.Report.Findings) != 0 || b.Components.MCPDisabled {
		t.Fatalf("findings:%s", dumpFindings(b))
	}
}

// §7.2.1, §7.2.2: a supported $schema selects the rules; an invalid mcp.json
// disables MCP and nothing else; an invalid entry skips only that server.
func TestConformanceMCPSchemaAndVariants(t *testing.T) {
	sk := skill("name: s\ndescription: d")
	for name, m := range map[string]string{
		"invalid json":    `{`,
		"unsupported":     `{"$schema": "https://example.com/mcp.json", "mcpServers": {}}`,
		"mismatch":        `{"$schema": "https://agent-plugins.org/schemas/1.1.0/mcp.schema.json", "mcpServers": {}}`,
		"extra field":     mcpJSON(`{}`)[:len(mcpJSON(`{}`))-1] + `, "x": 1}`,
		"servers not map": mcpJSON(`"x"`),
	} {
		t.Run(name, func(t *testing.T) {
			b := loadFiles(t, files{"plugin.json": minimalPlugin, "skills/s/SKILL.md": sk, "mcp.json": m})
			if !b.Components.MCPDisabled || b.Rejected() || len(b.Components.Skills) != 1 || len(b.Components.MCP) != 0 {
				t.Fatalf("MCPDisabled=%v skills=%d:%s", b.Components.MCPDisabled, len(b.Components.Skills), dumpFindings(b))
			}
			requireFinding(t, b, Warning, "mcp.disabled", "mcp.json")
		})
	}
	b := loadFiles(t, files{"plugin.json": minimalPlugin, "mcp.json": mcpJSON(`{
		"good": {"type": "stdio", "command": "node"},
		"mixed": {"type": "stdio", "command": "node", "headers": {}},
		"unknown": {"type": "stdio", "command": "node", "shell": true},
		"untyped": {"command": "node"}}`)})
	if len(b.Components.MCP) != 1 || b.Components.MCP[0].Name != "good" || b.Rejected() {
		t.Fatalf("servers: %+v:%s", b.Components.MCP, dumpFindings(b))
	}
}

// §7.2.1 transport support: stdio and streamable-http (and sse) load.
func TestConformanceMCPTransports(t *testing.T) {
	b := loadFiles(t, files{"plugin.json": pluginWithExt(`{"capabilities": {"network_hosts": ["a.example.com"]}}`), "mcp.json": mcpJSON(`{
		"s": {"type": "stdio", "command": "node"},
		"h": {"type": "streamable-http", "url": "https://a.example.com/mcp"},
		"e": {"type": "sse", "url": "https://a.example.com/sse"}}`)})
	requireClean(t, b)
	if len(b.Components.MCP) != 3 {
		t.Fatalf("servers: %+v", b.Components.MCP)
	}
}

// §7.2.1: the declared transport is what the model records, so the harness
// makes its first connection with exactly that transport and no other.
func TestConformanceDeclaredTransportRecorded(t *testing.T) {
	b := loadFiles(t, files{"plugin.json": pluginWithExt(`{"capabilities": {"network_hosts": ["a.example.com"]}}`), "mcp.json": mcpJSON(`{
		"h": {"type": "streamable-http", "url": "https://a.example.com/mcp"},
		"e": {"type": "sse", "url": "https://a.example.com/mcp"}}`)})
	requireClean(t, b)
	if b.Components.MCP[0].Transport != TransportStreamableHTTP || b.Components.MCP[1].Transport != TransportSSE {
		t.Fatalf("servers: %+v", b.Components.MCP)
	}
}

// §7.2.1: remote url and literal header requirements.
func TestConformanceRemoteURLAndHeaders(t *testing.T) {
	remote := func(url, headers string) files {
		host, _ := endpointHost(url)
		return files{"plugin.json": pluginWithExt(`{"capabilities": {"network_hosts": ["` + host + `"]}}`),
			"mcp.json": mcpJSON(`{"r": {"type": "streamable-http", "url": "` + url + `", "headers": ` + headers + `}}`)}
	}
	for _, ok := range []string{"https://example.com/mcp", "http://localhost:1/mcp", "http://127.0.0.1/mcp", "http://[::1]/mcp", "https://example.com/mcp?tenant=a"} {
		requireClean(t, loadFiles(t, remote(ok, `{"X-Tenant": "a"}`)))
	}
	for _, bad := range []string{"example.com/mcp", "ws://example.com/mcp", "http://example.com/mcp", "https://u@example.com/mcp", "https://example.com/mcp#x", "http://10.0.0.1/mcp"} {
		b := loadFiles(t, remote(bad, `{}`))
		requireFinding(t, b, Skip, "mcp.url", "mcpServers.r.url")
	}
	// A CR LF in a value (the recovery fixture's header-value case) skips
	// its server like any other invalid field value; the bundle stays.
	for _, bad := range []string{`{"Bad Name": "x"}`, `{"X-A": "a "}`, `{"X-A": "1", "X-a": "2"}`, `{"X-A": "first\r\nsecond"}`, `{"X-A": "nul\u0000"}`} {
		b := loadFiles(t, remote("https://example.com/mcp", bad))
		requireFinding(t, b, Skip, "mcp.header", "mcpServers.r.headers")
		if b.Rejected() {
			t.Errorf("headers %s reject the whole bundle:%s", bad, dumpFindings(b))
		}
	}
}

// §9.1: PLUGIN_ROOT and PLUGIN_DATA are the client's, never the
// configuration's; the harness sets them in every subprocess.
func TestConformanceReservedVariablesNotConfigurable(t *testing.T) {
	for _, k := range []string{"PLUGIN_ROOT", "PLUGIN_DATA"} {
		b := loadFiles(t, files{"plugin.json": minimalPlugin, "mcp.json": mcpJSON(`{"s": {"type": "stdio", "command": "node", "env": {"` + k + `": "/x"}}}`)})
		requireFinding(t, b, Skip, "mcp.env-reserved", "env."+k)
		if len(b.Components.MCP) != 0 {
			t.Fatalf("server kept: %+v", b.Components.MCP)
		}
	}
}

// §7.2.1: command is one token, bare or "./", never expanded.
func TestConformanceCommandSingleToken(t *testing.T) {
	b := loadFiles(t, files{"plugin.json": minimalPlugin, "bin/server*": "", "mcp.json": mcpJSON(`{
		"bare": {"type": "stdio", "command": "npx"},
		"rel": {"type": "stdio", "command": "./bin/server"},
		"shell": {"type": "stdio", "command": "npx -y server"},
		"abs": {"type": "stdio", "command": "/usr/bin/npx"},
		"expanded": {"type": "stdio", "command": "${PLUGIN_ROOT}/bin/server"}}`)})
	if len(b.Components.MCP) != 2 || b.Components.MCP[1].Command != "./bin/server" {
		t.Fatalf("servers: %+v", b.Components.MCP)
	}
	for _, n := range []string{"shell", "abs", "expanded"} {
		requireFinding(t, b, Skip, "command.token", "mcpServers."+n+".command")
	}
}

// §7.2.1: an omitted cwd stays empty in the model, which means the plugin
// root (documented on MCPServer.Cwd).
func TestConformanceDefaultCwdIsRoot(t *testing.T) {
	b := loadFiles(t, files{"plugin.json": minimalPlugin, "mcp.json": mcpJSON(`{"s": {"type": "stdio", "command": "node"}}`)})
	requireClean(t, b)
	if b.Components.MCP[0].Cwd != "" {
		t.Fatalf("cwd = %q", b.Components.MCP[0].Cwd)
	}
}

// §7.2.1: the three cwd forms, and containment after expansion.
func TestConformanceCwdFormsAndContainment(t *testing.T) {
	good := []string{"./", "./data", "./a/../b", "${PLUGIN_ROOT}", "${PLUGIN_ROOT}/x", "${PLUGIN_DATA}", "${PLUGIN_DATA}/cache/.."}
	bad := []string{"data", "/tmp", "../x", "./..", "./a/../../x", "${PLUGIN_ROOT}/..", "${PLUGIN_DATA}/../x", "${PLUGIN_ROOT}x", "${PLUGIN_DATA}/${PLUGIN_ROOT}", "$PLUGIN_ROOT", "~/x"}
	for _, c := range good {
		if msg := cwdProblem(c); msg != "" {
			t.Errorf("cwd %q refused: %s", c, msg)
		}
	}
	for _, c := range bad {
		b := loadFiles(t, files{"plugin.json": minimalPlugin, "mcp.json": mcpJSON(`{"s": {"type": "stdio", "command": "node", "cwd": "` + c + `"}}`)})
		requireFinding(t, b, Skip, "mcp.cwd", "mcpServers.s.cwd")
	}
}

// §9.1: configured env is kept verbatim (names and unexpanded values) for
// the harness to overlay on its base environment.
func TestConformanceEnvPreservedForOverlay(t *testing.T) {
	b := loadFiles(t, files{"plugin.json": minimalPlugin, "mcp.json": mcpJSON(`{"s": {"type": "stdio", "command": "node", "env": {"CONFIG": "${PLUGIN_ROOT}/c.json", "MODE": "x"}}}`)})
	requireClean(t, b)
	env := b.Components.MCP[0].Env
	if len(env) != 2 || env["CONFIG"] != "${PLUGIN_ROOT}/c.json" || env["MODE"] != "x" {
		t.Fatalf("env = %v", env)
	}
}

// §7.2.1: a bundle cannot make bare-command resolution depend on a
// configured PATH: env.PATH is refused outright.
func TestConformanceConfiguredPathRejected(t *testing.T) {
	b := loadFiles(t, files{"plugin.json": minimalPlugin, "mcp.json": mcpJSON(`{"s": {"type": "stdio", "command": "node", "env": {"PATH": "./bin"}}}`)})
	requireFinding(t, b, Error, "env.loader", "env.PATH")
}

// §9.2: only ${PLUGIN_ROOT} and ${PLUGIN_DATA}, one pass, in args, env
// values and cwd; command, url and headers are never expanded.
func TestConformancePlaceholderExpansion(t *testing.T) {
	b := loadFiles(t, files{"plugin.json": pluginWithExt(`{"capabilities": {"network_hosts": ["example.com"]}}`), "mcp.json": mcpJSON(`{
		"s": {"type": "stdio", "command": "node", "args": ["${PLUGIN_ROOT}/s.js", "${HOME}", "${PLUGIN_DATA}"], "env": {"D": "${PLUGIN_DATA}/d"}, "cwd": "${PLUGIN_DATA}/w"},
		"r": {"type": "streamable-http", "url": "https://example.com/${PLUGIN_ROOT}", "headers": {"X-P": "${PLUGIN_DATA}"}}}`)})
	requireClean(t, b)
	s, r := b.Components.MCP[0], b.Components.MCP[1]
	exp := func(v string) string { return ExpandPlaceholders(v, "/snap/root", "/data/x") }
	if exp(s.Args[0]) != "/snap/root/s.js" || exp(s.Args[1]) != "${HOME}" || exp(s.Args[2]) != "/data/x" || exp(s.Env["D"]) != "/data/x/d" || exp(s.Cwd) != "/data/x/w" {
		t.Fatalf("expansion: %v %v %q", s.Args, s.Env, s.Cwd)
	}
	if r.URL != "https://example.com/${PLUGIN_ROOT}" || r.Headers["X-P"] != "${PLUGIN_DATA}" {
		t.Fatalf("a url or header was expanded: %+v", r)
	}
}

// §11.3: component types Agent Plugins does not define do not disturb the
// plugin. bundlectl reads the ones a host format defines (here Claude
// Code's) through that host's reader, and the bundle is the union.
func TestConformanceUnsupportedComponentTypesIgnored(t *testing.T) {
	b := loadFiles(t, files{
		"plugin.json":                minimalPlugin,
		"commands/x.md":              "x",
		"agents/y.md":                "y",
		"hooks/hooks.json":           `{"hooks": {}}`,
		".claude-plugin/plugin.json": `{"name": "demo"}`,
		".lsp.json":                  `{}`,
	})
	requireClean(t, b)
	if !b.Valid() || b.Format != FormatAgentPlugins || !b.HasFormat(FormatClaude) {
		t.Fatalf("formats %v:%s", b.Formats, dumpFindings(b))
	}
	if len(b.Components.Commands) != 1 || b.Components.Commands[0].Name != "x" || len(b.Components.Agents) != 1 {
		t.Fatalf("the Claude Code components were not read: %+v", b.Components)
	}
}

// §7.2.2 rule 4: an entry with an unsupported transport is skipped alone.
func TestConformanceUnsupportedTransportSkipped(t *testing.T) {
	b := loadFiles(t, files{"plugin.json": minimalPlugin, "skills/s/SKILL.md": skill("name: s\ndescription: d"), "mcp.json": mcpJSON(`{
		"ws": {"type": "websocket", "url": "wss://example.com"},
		"ok": {"type": "stdio", "command": "node"}}`)})
	requireFinding(t, b, Skip, "mcp.server-type", "mcpServers.ws.type")
	if b.Rejected() || len(b.Components.MCP) != 1 || len(b.Components.Skills) != 1 {
		t.Fatalf("components: %+v", b.Components)
	}
}

// §11.3: a failure of one component leaves the independent ones loaded.
func TestConformanceIndependentFailures(t *testing.T) {
	b := loadFiles(t, files{
		"plugin.json":       minimalPlugin,
		"skills/a/SKILL.md": skill("name: a\ndescription: d"),
		"skills/b/SKILL.md": "no front matter",
		"mcp.json":          `{`,
	})
	if b.Rejected() || len(b.Components.Skills) != 1 || !b.Components.MCPDisabled {
		t.Fatalf("components: %+v:%s", b.Components, dumpFindings(b))
	}
	b = loadFiles(t, files{"plugin.json": minimalPlugin, "skills": "a file", "mcp.json": mcpJSON(`{"s": {"type": "stdio", "command": "node"}}`)})
	requireFinding(t, b, Skip, "skill.location", "skills")
	if b.Rejected() || len(b.Components.MCP) != 1 {
		t.Fatalf("components: %+v:%s", b.Components, dumpFindings(b))
	}
}

// §11.1: both core component types are supported.
func TestConformanceCoreComponentTypes(t *testing.T) {
	b := loadFiles(t, files{"plugin.json": minimalPlugin, "skills/s/SKILL.md": skill("name: s\ndescription: d"),
		"mcp.json": mcpJSON(`{"x": {"type": "stdio", "command": "node"}}`)})
	requireClean(t, b)
	if len(b.Components.Skills) != 1 || len(b.Components.MCP) != 1 {
		t.Fatalf("components: %+v", b.Components)
	}
}
