package bundle

import (
	"strings"
	"testing"
)

// codexServer returns the Codex MCP server named name, or fails.
func codexServer(t *testing.T, b *Bundle, name string) MCPServer {
	t.Helper()
	for _, s := range b.Components.MCP {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no MCP server %q; servers %+v; findings:%s", name, b.Components.MCP, dumpFindings(b))
	return MCPServer{}
}

// TestCodexMCPShapes: a plugin MCP server is reviewed as Codex (0.171)
// reads it (internal/agenttest TestCodexMCPShapes tried each with the real
// CLI): Codex drops a server's type and starts the command, else connects
// to the url; it does not read transport, httpUrl or headers; env_vars
// entries may be {name, source} objects; ${…} is never expanded.
func TestCodexMCPShapes(t *testing.T) {
	b := writeTree(t, "cx", map[string]string{
		ManifestCodex: `{"name": "cx"}`,
		"bin/s":       "#!/bin/sh\n",
		".mcp.json": `{"mcpServers": {
			"typed_sse":   {"type": "sse", "command": "./bin/s", "cwd": "."},
			"typed_http":  {"type": "http", "command": "./bin/s", "cwd": "."},
			"typed_stdio": {"type": "stdio", "command": "./bin/s", "cwd": "."},
			"typed_bogus": {"type": "bogus", "command": "./bin/s", "cwd": "."},
			"transported": {"transport": "sse", "command": "./bin/s", "cwd": "."},
			"remote_sse":  {"type": "sse", "url": "https://a.example/mcp"},
			"stdio_url":   {"transport": "stdio", "url": "https://b.example/mcp"},
			"gemini_url":  {"httpUrl": "https://c.example/mcp"},
			"headed":      {"url": "https://d.example/mcp", "headers": {"X-Team": "core"}, "http_headers": {"X-Kept": "yes"}},
			"env_objects": {"command": "./bin/s", "cwd": ".", "env_vars": ["PLAIN", {"name": "NAMED"}, {"name": "LOCAL", "source": "local"}]},
			"env_remote":  {"command": "./bin/s", "cwd": ".", "env_vars": [{"name": "FAR", "source": "remote"}]},
			"env_extra":   {"command": "./bin/s", "cwd": ".", "env_vars": [{"name": "X", "default": "y"}]},
			"expanded":    {"command": "./bin/s", "cwd": ".", "args": ["${TOKEN}"]},
			"url_ref":     {"url": "https://e.example/mcp", "http_headers": {"X-Key": "${KEY}"}}
		}}`,
	})
	if b.Rejected() {
		t.Fatalf("rejected:%s", dumpFindings(b))
	}
	for _, name := range []string{"typed_sse", "typed_http", "typed_stdio", "typed_bogus", "transported", "env_objects", "expanded"} {
		if s := codexServer(t, b, name); s.Transport != TransportStdio || s.Command != "./bin/s" {
			t.Errorf("%s: transport %q command %q, want the stdio server Codex starts", name, s.Transport, s.Command)
		}
	}
	for name, url := range map[string]string{"remote_sse": "https://a.example/mcp", "stdio_url": "https://b.example/mcp", "headed": "https://d.example/mcp"} {
		if s := codexServer(t, b, name); s.Transport != TransportStreamableHTTP || s.URL != url {
			t.Errorf("%s: transport %q url %q, want streamable-http to %s, as Codex connects", name, s.Transport, s.URL, url)
		}
	}
	for _, s := range b.Components.MCP {
		if s.Name == "gemini_url" || s.Name == "env_remote" || s.Name == "env_extra" {
			t.Errorf("server %s reviewed as loading; Codex does not start it", s.Name)
		}
	}
	requireFinding(t, b, Skip, "mcp.server-type", "mcpServers.gemini_url")
	requireFinding(t, b, Skip, "mcp.server-field", "mcpServers.env_remote.env_vars[0].source")
	requireFinding(t, b, Skip, "mcp.server-field", "mcpServers.env_extra.env_vars[0].default")
	requireFinding(t, b, Warning, "mcp.unknown-field", "mcpServers.gemini_url.httpUrl")
	requireFinding(t, b, Warning, "mcp.unknown-field", "mcpServers.transported.transport")
	headed := codexServer(t, b, "headed")
	if len(headed.Headers) != 1 || headed.Headers["X-Kept"] != "yes" {
		t.Errorf("headed: headers %v, want only the http_headers Codex sends", headed.Headers)
	}
	if string(headed.Other["headers"]) != `{"X-Team":"core"}` {
		t.Errorf("headed: headers not kept as written: %q", headed.Other["headers"])
	}
	requireFinding(t, b, Warning, "mcp.unknown-field", "mcpServers.headed.headers")
	env := codexServer(t, b, "env_objects").EnvFrom
	for _, n := range []string{"PLAIN", "NAMED", "LOCAL"} {
		if env[n] != n {
			t.Errorf("env_objects: %s not copied from the host (env_from %v)", n, env)
		}
	}
	for _, p := range []string{"typed_sse.type", "typed_http.type", "typed_bogus.type", "remote_sse.type"} {
		requireFinding(t, b, Warning, codexIgnored, "mcpServers."+p)
	}
	for _, f := range b.Report.Findings {
		if f.Rule == codexIgnored && (strings.HasSuffix(f.Path, "typed_stdio.type") || strings.HasSuffix(f.Path, "env_objects")) {
			t.Errorf("warning where Codex does what the review shows: %s", f)
		}
	}
	requireFinding(t, b, Warning, codexIgnored, "mcpServers.expanded")
	requireFinding(t, b, Warning, codexIgnored, "mcpServers.url_ref")
}

// TestCodexManifestFallback: where Codex (0.171) ignores a manifest's
// mcpServers or hooks field — a path not written "./…", a list of MCP
// files, a hooks object it cannot read — it loads the default file in its
// place; the review then shows that file too, and warns about the field.
// A field Codex reads replaces the default, as before; so does a hooks
// list mixing paths and objects, from which Codex loads nothing (warned).
func TestCodexManifestFallback(t *testing.T) {
	defaults := map[string]string{
		".mcp.json":        `{"mcpServers": {"dflt": {"command": "./bin/s", "cwd": "."}}}`,
		"custom.json":      `{"mcpServers": {"named": {"command": "./bin/s", "cwd": "."}}}`,
		"hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo default"}]}]}}`,
		"hooks/named.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo named"}]}]}}`,
		"bin/s":            "#!/bin/sh\n",
	}
	cases := []struct {
		name, manifest   string
		servers, hooks   []string
		warnMCP, warnHks bool
	}{
		{"dotted", `"mcpServers": "./custom.json", "hooks": "./hooks/named.json"`, []string{"named"}, []string{"echo named"}, false, false},
		{"undotted", `"mcpServers": "custom.json", "hooks": "hooks/named.json"`, []string{"named", "dflt"}, []string{"echo named", "echo default"}, true, true},
		{"mcp-list", `"mcpServers": ["./custom.json"]`, []string{"named", "dflt"}, []string{"echo default"}, true, false},
		{"bare-inline-hooks", `"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo inline"}]}]}`, []string{"dflt"}, []string{"echo inline", "echo default"}, false, true},
		{"wrapped-inline-hooks", `"hooks": {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo inline"}]}]}}`, []string{"dflt"}, []string{"echo inline"}, false, false},
		{"untyped-inline-hook", `"hooks": {"hooks": {"Stop": [{"hooks": [{"command": "echo inline"}]}]}}`, []string{"dflt"}, []string{"echo inline", "echo default"}, false, true},
		{"mixed-hooks-list", `"hooks": ["./hooks/named.json", {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo inline"}]}]}}]`, []string{"dflt"}, []string{"echo named", "echo inline"}, false, true},
		{"paths-list", `"hooks": ["./hooks/named.json"]`, []string{"dflt"}, []string{"echo named"}, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := map[string]string{ManifestCodex: `{"name": "cx", ` + c.manifest + `}`}
			for k, v := range defaults {
				files[k] = v
			}
			b := writeTree(t, "cx", files)
			if b.Rejected() {
				t.Fatalf("rejected:%s", dumpFindings(b))
			}
			var servers, hooks []string
			for _, s := range b.Components.MCP {
				servers = append(servers, s.Name)
			}
			for _, h := range b.Components.Hooks {
				hooks = append(hooks, h.Command)
			}
			if strings.Join(servers, ",") != strings.Join(c.servers, ",") {
				t.Errorf("servers %v, want %v", servers, c.servers)
			}
			if strings.Join(hooks, ",") != strings.Join(c.hooks, ",") {
				t.Errorf("hooks %v, want %v", hooks, c.hooks)
			}
			for field, want := range map[string]bool{"mcpServers": c.warnMCP, "hooks": c.warnHks} {
				got := false
				for _, f := range b.Report.Findings {
					got = got || f.Rule == codexIgnored && f.Path == ManifestCodex+": "+field
				}
				if got != want {
					t.Errorf("codex.ignored warning on %s: %v, want %v;%s", field, got, want, dumpFindings(b))
				}
			}
		})
	}
}

// TestCodexHooksFileShapes: Codex (0.171) loads none of the hooks of a
// hooks file it cannot parse — an event map not under "hooks", a key
// beside "hooks" and "description", a hook without a type or of a type it
// does not know — and the review says so for Codex. The hooks stay
// reviewed: bundlectl exec gives them to Codex in the shape it reads.
func TestCodexHooksFileShapes(t *testing.T) {
	hook := `{"type": "command", "command": "echo x"}`
	cases := map[string]string{
		"wrapped":     `{"description": "d", "hooks": {"PreToolUse": [{"hooks": [` + hook + `]}]}}`,
		"bare":        `{"PreToolUse": [{"hooks": [` + hook + `]}]}`,
		"schema":      `{"$schema": "s", "hooks": {"PreToolUse": [{"hooks": [` + hook + `]}]}}`,
		"beside":      `{"hooks": {"PreToolUse": [{"hooks": [` + hook + `]}]}, "Stop": [{"hooks": [` + hook + `]}]}`,
		"untyped":     `{"hooks": {"PreToolUse": [{"hooks": [{"command": "echo x"}]}]}}`,
		"http":        `{"hooks": {"PreToolUse": [{"hooks": [` + hook + `, {"type": "http", "url": "https://h.example/x"}]}]}}`,
		"other-event": `{"hooks": {"PreToolUse": [{"hooks": [` + hook + `]}], "Notification": [{"hooks": [{"type": "http"}]}]}}`,
	}
	for name, file := range cases {
		t.Run(name, func(t *testing.T) {
			b := writeTree(t, "cx", map[string]string{ManifestCodex: `{"name": "cx"}`, "hooks/hooks.json": file})
			if len(b.Components.Hooks) == 0 {
				t.Fatalf("no hook reviewed:%s", dumpFindings(b))
			}
			warned := false
			for _, f := range b.Report.Findings {
				warned = warned || f.Rule == codexIgnored && f.Path == "hooks/hooks.json"
			}
			if want := name != "wrapped" && name != "other-event"; warned != want {
				t.Errorf("codex.ignored on the file: %v, want %v;%s", warned, want, dumpFindings(b))
			}
		})
	}
}

// TestCodexHookEvents: Codex (0.171) skips an event it does not fire,
// Notification included; the review warns about such a hook for Codex.
func TestCodexHookEvents(t *testing.T) {
	b := writeTree(t, "cx", map[string]string{
		ManifestCodex:      `{"name": "cx"}`,
		"hooks/hooks.json": `{"hooks": {"Notification": [{"hooks": [{"type": "command", "command": "echo n"}]}], "Setup": [{"hooks": [{"type": "command", "command": "echo s"}]}], "Stop": [{"hooks": [{"type": "command", "command": "echo t"}]}]}}`,
	})
	requireFinding(t, b, Warning, "hook.event-unknown", "hooks.Notification")
	requireFinding(t, b, Warning, "hook.event-unknown", "hooks.Setup")
	for _, f := range b.Report.Findings {
		if f.Rule == "hook.event-unknown" && strings.HasSuffix(f.Path, "hooks.Stop") {
			t.Errorf("Stop is a Codex event: %s", f)
		}
	}
}

// TestCodexPromptHookSkipped: Codex (0.171) skips prompt and agent hooks;
// the review keeps them and says so for Codex.
func TestCodexPromptHookSkipped(t *testing.T) {
	b := writeTree(t, "cx", map[string]string{
		ManifestCodex:      `{"name": "cx"}`,
		"hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "prompt", "prompt": "p"}, {"type": "agent", "prompt": "a"}, {"type": "command", "command": "echo c"}]}]}}`,
	})
	if len(b.Components.Hooks) != 3 {
		t.Fatalf("hooks %+v;%s", b.Components.Hooks, dumpFindings(b))
	}
	requireFinding(t, b, Warning, codexIgnored, "hooks.Stop[0].hooks[0]")
	requireFinding(t, b, Warning, codexIgnored, "hooks.Stop[0].hooks[1]")
	for _, f := range b.Report.Findings {
		if f.Rule == codexIgnored && strings.HasSuffix(f.Path, "hooks[2]") {
			t.Errorf("warning on the command hook Codex runs: %s", f)
		}
	}
}

// TestCodexManifestRefused: a manifest field of a type Codex (0.171) does
// not read makes it refuse the whole manifest and load nothing of the
// plugin (internal/agenttest TestCodexManifestTypes): the review warns, on
// that field, in Codex's manifest and in a Claude Code manifest Codex
// falls back to; a field Codex does not know, or one it reads any value
// of, does not.
func TestCodexManifestRefused(t *testing.T) {
	for _, c := range []struct{ manifest, fields, at string }{
		{ManifestCodex, `"apps": {"apps": {}}`, ManifestCodex + ": apps"},
		{ManifestCodex, `"apps": ["./.app.json"]`, ManifestCodex + ": apps"},
		{ManifestCodex, `"version": 1`, ManifestCodex + ": version"},
		{ManifestCodex, `"description": true`, ManifestCodex + ": description"},
		{ManifestCodex, `"keywords": "x"`, ManifestCodex + ": keywords"},
		{ManifestCodex, `"keywords": ["x", 1]`, ManifestCodex + ": keywords"},
		{ManifestCodex, `"keywords": null`, ManifestCodex + ": keywords"},
		{ManifestClaude, `"keywords": null`, ManifestClaude + ": keywords"},
		{ManifestCodex, `"interface": "x"`, ManifestCodex + ": interface"},
		{ManifestCodex, `"interface": {"displayName": 1}`, ManifestCodex + ": interface.displayName"},
		{ManifestCodex, `"interface": {"capabilities": "Read"}`, ManifestCodex + ": interface.capabilities"},
		{ManifestClaude, `"version": 1`, ManifestClaude + ": version"},
		{ManifestCodex, `"apps": "./.app.json", "version": null, "keywords": ["x"], "author": {"name": "x"}, "homepage": 5, "skills": 5, "interface": {"defaultPrompt": 1, "capabilities": ["Read"]}`, ""},
	} {
		b := writeTree(t, "cx", map[string]string{c.manifest: `{"name": "cx", ` + c.fields + `}`, "skills/s/SKILL.md": "---\nname: s\ndescription: d\n---\n"})
		var at []string
		for _, f := range b.Report.Findings {
			if f.Rule == "codex.ignored" && strings.Contains(f.Message, "Codex does not load this plugin") {
				at = append(at, f.Path)
			}
		}
		if want := []string{c.at}; c.at == "" && len(at) > 0 || c.at != "" && (len(at) != 1 || at[0] != c.at) {
			t.Errorf("%s %s: warned at %q, want %q;%s", c.manifest, c.fields, at, want, dumpFindings(b))
		}
	}
}

// TestCodexAppsFileShapes: Codex (0.171) parses an apps file as
// {"apps": {key: {"id": …}}} (codex-rs core plugins loader,
// PluginAppFile): a bare map of apps, a list, or "apps" holding anything
// but a map gives it no app, nor does a file with one app without a
// string id (the whole file's parse fails); it loads no app whose id is
// blank. The review still lists every app the file declares,
// and warns (codex.ignored) where Codex loads none.
func TestCodexAppsFileShapes(t *testing.T) {
	for _, c := range []struct {
		name, file string
		apps       int
		at         []string // where codex.ignored is reported
	}{
		{"wrapped", `{"apps": {"t": {"id": "asdk_app_t"}}}`, 1, nil},
		{"wrapped with more fields", `{"apps": {"t": {"id": "asdk_app_t", "category": "x"}}, "note": 1}`, 1, nil},
		{"empty", `{}`, 0, nil},
		{"bare map", `{"t": {"id": "asdk_app_t"}}`, 1, []string{".app.json"}},
		{"bare list", `[{"id": "asdk_app_t"}]`, 1, []string{".app.json"}},
		{"wrapped list", `{"apps": [{"id": "asdk_app_t"}]}`, 1, []string{".app.json: apps"}},
		// One app without a string id fails Codex's parse of the whole
		// file: every app of it is dropped (load_apps_from_paths).
		{"no id", `{"apps": {"t": {"name": "t"}, "u": {"id": "asdk_app_u"}}}`, 2, []string{".app.json"}},
		{"number id", `{"apps": {"t": {"id": 5}, "u": {"id": "asdk_app_u"}}}`, 2, []string{".app.json"}},
		{"null id", `{"apps": {"u": {"id": "asdk_app_u"}, "t": {"id": null}}}`, 2, []string{".app.json"}},
		{"app not an object", `{"apps": {"t": "asdk_app_t", "u": {"id": "asdk_app_u"}}}`, 2, []string{".app.json"}},
		{"no id beside a blank one", `{"apps": {"b": {"id": ""}, "t": {}}}`, 2, []string{".app.json"}},
		// A blank id drops that app alone.
		{"blank id", `{"apps": {"t": {"id": " "}, "u": {"id": "asdk_app_u"}}}`, 2, []string{".app.json: apps.t"}},
	} {
		b := writeTree(t, "cx", map[string]string{ManifestCodex: `{"name": "cx"}`, ".app.json": c.file})
		var at []string
		for _, f := range b.Report.Findings {
			if f.Rule == codexIgnored {
				at = append(at, f.Path)
			}
		}
		if len(b.Components.Apps) != c.apps || strings.Join(at, "|") != strings.Join(c.at, "|") {
			t.Errorf("%s: %d apps, codex.ignored at %q; want %d apps, at %q;%s", c.name, len(b.Components.Apps), at, c.apps, c.at, dumpFindings(b))
		}
	}
}
