package agenttest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// Codex's plugin shapes, run by the real Codex CLI and compared with
// bundlectl's review of the same plugin: the review must show everything
// Codex runs, and say so (codex.ignored, hook.event-unknown,
// mcp.unknown-field) wherever Codex ignores what it shows
// (docs/codex.md "What Codex ignores"; bundle TestCodexMCPShapes,
// TestCodexManifestFallback, TestCodexHooksFileShapes, TestCodexHookEvents).

// codexReview is what the tests read of bundlectl review --json.
type codexReview struct {
	Components struct {
		Hooks []struct {
			Event   string   `json:"event"`
			Type    string   `json:"type"`
			Command string   `json:"command"`
			Hosts   []string `json:"hosts"`
		} `json:"hooks"`
		MCPServers []struct {
			Name          string            `json:"name"`
			Transport     string            `json:"transport"`
			URL           string            `json:"url"`
			Headers       map[string]string `json:"headers"`
			HostVariables []string          `json:"host_variables"`
			Hosts         []string          `json:"hosts"`
		} `json:"mcp_servers"`
	} `json:"components"`
	Warnings []struct {
		Path    string `json:"path"`
		Rule    string `json:"rule"`
		Message string `json:"message"`
	} `json:"warnings"`
}

func reviewCodexPlugin(t *testing.T, dir string) codexReview {
	t.Helper()
	out := BundlectlRun(t, t.TempDir(), "review", "--json", dir)
	var rv codexReview
	if err := json.Unmarshal([]byte(out), &rv); err != nil {
		t.Fatalf("review --json %s: %v\n%s", dir, err, out)
	}
	return rv
}

// warned reports whether the review has a warning of one of rules at a
// path starting with prefix.
func (rv codexReview) warned(prefix string, rules ...string) bool {
	for _, w := range rv.Warnings {
		if strings.HasPrefix(w.Path, prefix) && slices.Contains(rules, w.Rule) {
			return true
		}
	}
	return false
}

// recorded lists the names of the files in dir, sorted.
func recorded(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// TestCodexHookShapes loads one plugin per hooks shape into Codex 0.171
// (trust bypassed: trust is not what is tried), each hook touching a file
// of its own on PreToolUse, and requires (1) that Codex ran exactly the
// hooks found by trying — a hooks file or inline object only as
// {"hooks": {…}} with at most a description beside it, every hook typed
// command, mcp_tool, prompt or agent (prompt skipped), "./" paths only;
// hooks/hooks.json in place of a manifest field it ignores, a Claude Code
// manifest's inline event map included — and (2) that
// bundlectl's review of each plugin lists, for Codex, every hook that ran,
// and warns wherever it lists one for Codex that did not.
func TestCodexHookShapes(t *testing.T) {
	t.Parallel()
	rec := t.TempDir()
	a := New(t, Codex, ShellCall(Codex, "true"), Say("done"))
	touch := func(id string) map[string]any {
		return map[string]any{"type": "command", "command": "touch " + filepath.Join(rec, id)}
	}
	on := func(hs ...any) map[string]any {
		return map[string]any{"PreToolUse": []any{map[string]any{"hooks": hs}}}
	}
	wrapped := func(hs ...any) map[string]any { return map[string]any{"hooks": on(hs...)} }
	type plugin struct {
		manifest map[string]any
		files    map[string]any
		claude   bool // the manifest is .claude-plugin/plugin.json, which Codex reads too
	}
	plugins := map[string]plugin{
		"wrapped":       {files: map[string]any{"hooks/hooks.json": wrapped(touch("wrapped.1"))}},
		"described":     {files: map[string]any{"hooks/hooks.json": map[string]any{"description": "d", "hooks": on(touch("described.1"))}}},
		"extra-keys":    {files: map[string]any{"hooks/hooks.json": wrapped(map[string]any{"type": "command", "command": "touch " + filepath.Join(rec, "extra-keys.1"), "statusMessage": "s", "zz": 1})}},
		"prompt":        {files: map[string]any{"hooks/hooks.json": wrapped(map[string]any{"type": "prompt", "prompt": "p"}, touch("prompt.command"))}},
		"bare":          {files: map[string]any{"hooks/hooks.json": on(touch("bare.1"))}},
		"schema":        {files: map[string]any{"hooks/hooks.json": map[string]any{"$schema": "s", "hooks": on(touch("schema.1"))}}},
		"beside":        {files: map[string]any{"hooks/hooks.json": map[string]any{"hooks": on(touch("beside.1")), "Stop": []any{map[string]any{"hooks": []any{touch("beside.2")}}}}}},
		"untyped":       {files: map[string]any{"hooks/hooks.json": wrapped(map[string]any{"command": "touch " + filepath.Join(rec, "untyped.1")}, touch("untyped.2"))}},
		"http":          {files: map[string]any{"hooks/hooks.json": wrapped(map[string]any{"type": "http", "url": "http://127.0.0.1:9/h"}, touch("http.command"))}},
		"snake-event":   {files: map[string]any{"hooks/hooks.json": map[string]any{"hooks": map[string]any{"pre_tool_use": []any{map[string]any{"hooks": []any{touch("snake-event.1")}}}}}}},
		"inline":        {manifest: map[string]any{"hooks": wrapped(touch("inline.1"))}},
		"inline-bare":   {manifest: map[string]any{"hooks": on(touch("inline-bare.inline"))}, files: map[string]any{"hooks/hooks.json": wrapped(touch("inline-bare.default"))}},
		"inline-typed":  {manifest: map[string]any{"hooks": wrapped(map[string]any{"command": "echo untyped"})}, files: map[string]any{"hooks/hooks.json": wrapped(touch("inline-typed.default"))}},
		"paths":         {manifest: map[string]any{"hooks": []any{"./hooks/a.json", "./hooks/b.json"}}, files: map[string]any{"hooks/a.json": wrapped(touch("paths.a")), "hooks/b.json": wrapped(touch("paths.b")), "hooks/hooks.json": wrapped(touch("paths.default"))}},
		"undotted":      {manifest: map[string]any{"hooks": "hooks/x.json"}, files: map[string]any{"hooks/x.json": wrapped(touch("undotted.x")), "hooks/hooks.json": wrapped(touch("undotted.default"))}},
		"claude-inline": {claude: true, manifest: map[string]any{"hooks": on(touch("claude-inline.inline"))}, files: map[string]any{"hooks/hooks.json": wrapped(touch("claude-inline.default"))}},
		"mixed":         {manifest: map[string]any{"hooks": []any{"./hooks/a.json", wrapped(touch("mixed.inline"))}}, files: map[string]any{"hooks/a.json": wrapped(touch("mixed.a")), "hooks/hooks.json": wrapped(touch("mixed.default"))}},
	}
	cache := filepath.Join(a.ConfigDir(), "plugins", "cache", codexMarketplace)
	src := t.TempDir()
	var enabled []string
	for name, p := range plugins {
		for _, dir := range []string{filepath.Join(cache, name, "1.0.0"), filepath.Join(src, name)} {
			m := map[string]any{"name": name, "version": "1.0.0"}
			for k, v := range p.manifest {
				m[k] = v
			}
			manifest := ".codex-plugin/plugin.json"
			if p.claude {
				manifest = ".claude-plugin/plugin.json"
			}
			writeJSONFile(t, dir, manifest, m)
			for rel, v := range p.files {
				writeJSONFile(t, dir, rel, v)
			}
		}
		enabled = append(enabled, fmt.Sprintf("%q={enabled=true}", name+"@"+codexMarketplace))
	}
	sort.Strings(enabled)
	a.Args = []string{"-c", "features.plugins=true", "-c", "plugins={" + strings.Join(enabled, ",") + "}", "--dangerously-bypass-hook-trust"}
	a.Env = append(a.Env, "RUST_LOG=warn") // Codex's reasons, in a failure's output
	res := a.Run(t, "run it")

	ran := recorded(t, rec)
	want := []string{
		"claude-inline.default", "described.1", "extra-keys.1", "inline-bare.default", "inline-typed.default", "inline.1",
		"paths.a", "paths.b", "prompt.command", "undotted.default", "wrapped.1",
	}
	if !slices.Equal(ran, want) {
		t.Fatalf("Codex ran the hooks %q, want %q (found by trying Codex 0.171)\n%s", ran, want, res)
	}
	for name := range plugins {
		rv := reviewCodexPlugin(t, filepath.Join(src, name))
		listed := map[string]bool{}
		for _, h := range rv.Components.Hooks {
			if !slices.Contains(h.Hosts, "codex") {
				continue
			}
			id := h.Type // a hook without a command
			if h.Command != "" {
				id = filepath.Base(strings.TrimPrefix(h.Command, "touch "))
			}
			listed[id] = true
		}
		for id := range listed {
			if !slices.Contains(ran, id) && !rv.warned("", "codex.ignored", "hook.event-unknown") {
				t.Errorf("%s: the review lists hook %s for Codex, which Codex did not run, and says nothing about it", name, id)
			}
		}
		for _, id := range ran {
			if strings.HasPrefix(id, name+".") && !listed[id] {
				t.Errorf("%s: Codex ran hook %s, which the review does not list for Codex", name, id)
			}
		}
	}
}

// TestCodexMCPShapes loads one plugin whose MCP servers take the shapes a
// server can be written in, first into Codex 0.171 directly, then through
// bundlectl exec -- codex, and requires (1) that Codex started or reached
// exactly the servers found by trying — a server's type and transport
// ignored (the command, else the url), no httpUrl, env_vars as {name}
// objects too, and .mcp.json in place of an mcpServers path not written
// "./…"; headers never sent; ${…} never expanded; none with "enabled":
// false — (2) that the review
// lists each of them for Codex as Codex reached it, and warns about the
// server it lists that Codex did not start; and (3) that bundlectl exec
// starts, through bundlectl, exactly the servers the review lists (but the
// disabled one), with the host variables it lists, and sends no header the
// review does not show.
func TestCodexMCPShapes(t *testing.T) {
	t.Parallel()
	const v1 = "agenttest-v1-7d2c"
	remotes := map[string]*remoteMCP{}
	for _, n := range []string{"r_plain", "r_sse", "r_stdio", "r_httpurl", "r_headers"} {
		remotes[n] = newRemoteMCP(t, "answer-"+n)
	}
	write := func(dir, rec string) {
		stdio := func(name string, extra map[string]any) map[string]any {
			s := map[string]any{"command": "./bin/fakemcp", "cwd": ".", "args": []string{"-record", filepath.Join(rec, name+".jsonl")}}
			for k, v := range extra {
				s[k] = v
			}
			return s
		}
		writeJSONFile(t, dir, ".codex-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0", "mcpServers": "custom.json"})
		writeJSONFile(t, dir, "custom.json", map[string]any{"mcpServers": map[string]any{"named": stdio("named", nil)}})
		writeJSONFile(t, dir, ".mcp.json", map[string]any{"mcpServers": map[string]any{
			"plain":       stdio("plain", nil),
			"typed_sse":   stdio("typed_sse", map[string]any{"type": "sse"}),
			"typed_bogus": stdio("typed_bogus", map[string]any{"type": "bogus"}),
			"transported": stdio("transported", map[string]any{"transport": "sse"}),
			"env_object":  stdio("env_object", map[string]any{"env_vars": []any{map[string]any{"name": "AGENTTEST_V1"}}}),
			"env_remote":  stdio("env_remote", map[string]any{"env_vars": []any{map[string]any{"name": "AGENTTEST_V1", "source": "remote"}}}),
			"expanded":    stdio("expanded", map[string]any{"env": map[string]any{"AGENTTEST_E": "${AGENTTEST_V1}"}}),
			"disabled":    stdio("disabled", map[string]any{"enabled": false}),
			"r_plain":     map[string]any{"url": remotes["r_plain"].URL},
			"r_sse":       map[string]any{"type": "sse", "url": remotes["r_sse"].URL},
			"r_stdio":     map[string]any{"transport": "stdio", "url": remotes["r_stdio"].URL},
			"r_httpurl":   map[string]any{"httpUrl": remotes["r_httpurl"].URL},
			"r_headers":   map[string]any{"url": remotes["r_headers"].URL, "headers": map[string]any{"X-Agenttest": "sent"}},
		}})
		copyFakeMCP(t, dir)
	}
	// started lists the servers that started or were reached, and the
	// environment and headers they got.
	started := func(t *testing.T, rec string) (names []string, env map[string][]string) {
		env = map[string][]string{}
		for _, f := range recorded(t, rec) {
			name := strings.TrimSuffix(f, ".jsonl")
			for _, r := range mcpRecord(t, filepath.Join(rec, f)) {
				if r["kind"] == "start" {
					names = append(names, name)
					for _, e := range r["env"].([]any) {
						env[name] = append(env[name], e.(string))
					}
					break
				}
			}
		}
		for name, s := range remotes {
			if len(s.requests()) > 0 {
				names = append(names, name)
			}
		}
		sort.Strings(names)
		return names, env
	}
	want := []string{"env_object", "expanded", "plain", "r_headers", "r_plain", "r_sse", "r_stdio", "transported", "typed_bogus", "typed_sse"}

	src := filepath.Join(t.TempDir(), pluginName)
	write(src, t.TempDir())
	rv := reviewCodexPlugin(t, src)
	listed := map[string]string{}
	for _, s := range rv.Components.MCPServers {
		if slices.Contains(s.Hosts, "codex") {
			listed[s.Name] = s.Transport
			if len(s.Headers) > 0 {
				t.Errorf("review: server %s sends headers %v for Codex, which sends none of them", s.Name, s.Headers)
			}
			if s.Name == "env_object" && !slices.Contains(s.HostVariables, "AGENTTEST_V1") {
				t.Errorf("review: server env_object does not list the host variable Codex gives it (%v)", s.HostVariables)
			}
		}
	}
	for name, transport := range map[string]string{"r_sse": "streamable-http", "r_stdio": "streamable-http", "typed_sse": "stdio", "transported": "stdio"} {
		if listed[name] != transport {
			t.Errorf("review: server %s is %q for Codex, want %q as Codex reaches it", name, listed[name], transport)
		}
	}
	for _, name := range want {
		if _, ok := listed[name]; !ok {
			t.Errorf("review: Codex starts server %s, which the review does not list for Codex", name)
		}
	}
	for name := range listed {
		switch {
		case slices.Contains(want, name), name == "disabled": // shown with "enabled": false
		case name == "named" && rv.warned(".codex-plugin/plugin.json: mcpServers", "codex.ignored"):
		default:
			t.Errorf("review: server %s is listed for Codex, which does not start it, with no warning", name)
		}
	}
	if !rv.warned(".mcp.json: mcpServers.expanded", "codex.ignored") {
		t.Errorf("review: no warning that Codex passes ${AGENTTEST_V1} to server expanded as written")
	}

	t.Run("codex", func(t *testing.T) {
		rec := t.TempDir()
		a := New(t, Codex, ShellCall(Codex, "true"), Say("done"))
		write(filepath.Join(a.ConfigDir(), "plugins", "cache", codexMarketplace, pluginName, "1.0.0"), rec)
		a.Env = append(a.Env, "AGENTTEST_V1="+v1)
		a.Args = []string{"-c", "features.plugins=true", "-c", fmt.Sprintf("plugins={%q={enabled=true}}", codexPluginID)}
		res := a.Run(t, "hi")
		got, env := started(t, rec)
		if !slices.Equal(got, want) {
			t.Fatalf("Codex reached the servers %q, want %q (found by trying Codex 0.171)\n%s", got, want, res)
		}
		if !slices.Contains(env["env_object"], "AGENTTEST_V1="+v1) {
			t.Errorf("Codex did not give env_object its env_vars object's variable: %v", env["env_object"])
		}
		if !slices.Contains(env["expanded"], "AGENTTEST_E=${AGENTTEST_V1}") {
			t.Errorf("Codex expanded ${…} in env (the review says it does not): %v", env["expanded"])
		}
		if h := remotes["r_headers"].headerValues("X-Agenttest"); len(h) != 1 || h[0] != "" {
			t.Errorf("Codex sent headers %q (the review says it sends none)", h)
		}
	})

	t.Run("exec", func(t *testing.T) {
		for _, s := range remotes {
			s.mu.Lock()
			s.seen = nil
			s.mu.Unlock()
		}
		rec := t.TempDir()
		a := New(t, Codex, ShellCall(Codex, "true"), Say("done"))
		home := filepath.Join(t.TempDir(), "bundlectl-home")
		os.MkdirAll(home, 0o700)
		t.Cleanup(func() { Writable(home) })
		write(filepath.Join(a.Workdir, ".bundlectl", "bundles", pluginName), rec)
		trustBundle(t, home, a.Workdir, pluginName)
		a.Env = append(a.Env, "AGENTTEST_V1="+v1)
		a.Args = []string{"-c", "features.plugins=true"}
		a.Launcher = execLauncher(t, home, a.Workdir)
		res := a.Run(t, "hi")
		got, env := started(t, rec)
		var reviewed []string
		for name := range listed {
			if name != "disabled" { // Codex starts no server that says "enabled": false
				reviewed = append(reviewed, name)
			}
		}
		sort.Strings(reviewed)
		if !slices.Equal(got, reviewed) {
			t.Fatalf("under bundlectl exec Codex reached the servers %q, want those the review lists, %q\n%s", got, reviewed, res)
		}
		if !slices.Contains(env["env_object"], "AGENTTEST_V1="+v1) {
			t.Errorf("under exec, env_object did not get the host variable the review lists: %v", env["env_object"])
		}
		if h := remotes["r_headers"].headerValues("X-Agenttest"); len(h) != 1 || h[0] != "" {
			t.Errorf("under exec, Codex sent headers %q the review does not show", h)
		}
	})
}

// TestCodexManifestTypes records which manifest fields of another type
// than Codex 0.171 reads make it refuse the whole manifest and load
// nothing of the plugin, silently (its skill never reaches the model):
// version, description and apps not a string (an inline apps map, a list
// of apps files; null is absent), keywords not a list of strings (null
// too), interface not an
// object, an interface string field not a string, interface.capabilities
// not a list — in .codex-plugin/plugin.json and in a Claude Code manifest
// Codex falls back to alike; while fields it does not know (author as an
// object, homepage as a number) and an apps path change nothing. The
// review warns (codex.ignored) on exactly the fields that do (bundle
// codexManifestRefused, docs/codex.md "The manifest").
func TestCodexManifestTypes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		manifest string // ManifestCodex unless set
		field    string
		value    any
		loads    bool
	}{
		{name: "apps path", field: "apps", value: "./.app.json", loads: true},
		{name: "apps inline", field: "apps", value: map[string]any{"apps": map[string]any{"x": map[string]any{"id": "asdk_app_x"}}}},
		{name: "apps list", field: "apps", value: []string{"./.app.json"}},
		{name: "version number", field: "version", value: 1},
		{name: "description number", field: "description", value: 5},
		{name: "keywords string", field: "keywords", value: "x"},
		{name: "keywords numbers", field: "keywords", value: []any{"x", 1}},
		{name: "keywords null", field: "keywords", value: nil},
		{name: "version null", field: "version", value: nil, loads: true},
		{name: "apps null", field: "apps", value: nil, loads: true},
		{name: "interface string", field: "interface", value: "x"},
		{name: "interface displayName number", field: "interface", value: map[string]any{"displayName": 1}},
		{name: "interface capabilities string", field: "interface", value: map[string]any{"capabilities": "Read"}},
		{name: "interface defaultPrompt number", field: "interface", value: map[string]any{"defaultPrompt": 1}, loads: true},
		{name: "author object", field: "author", value: map[string]any{"name": "x"}, loads: true},
		{name: "homepage number", field: "homepage", value: 5, loads: true},
		{name: "claude manifest version number", manifest: ".claude-plugin/plugin.json", field: "version", value: 1},
		{name: "claude manifest keywords", manifest: ".claude-plugin/plugin.json", field: "keywords", value: []string{"x"}, loads: true},
		{name: "claude manifest keywords null", manifest: ".claude-plugin/plugin.json", field: "keywords", value: nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			const skill = "agenttest-manifest-types-skill-5b1e"
			write := func(dir string) {
				manifest := c.manifest
				if manifest == "" {
					manifest = ".codex-plugin/plugin.json"
				}
				writeJSONFile(t, dir, manifest, map[string]any{"name": pluginName, c.field: c.value})
				writeFile(t, dir, "skills/notes/SKILL.md", "---\nname: notes\ndescription: "+skill+"\n---\n\nbody\n", 0o644)
				writeJSONFile(t, dir, ".app.json", map[string]any{"apps": map[string]any{}})
			}
			src := filepath.Join(t.TempDir(), pluginName)
			write(src)
			rv := reviewCodexPlugin(t, src)
			warned := false
			for _, w := range rv.Warnings {
				warned = warned || w.Rule == "codex.ignored" && strings.Contains(w.Message, "Codex does not load this plugin")
			}
			a := New(t, Codex, Say("done"))
			write(filepath.Join(a.ConfigDir(), "plugins", "cache", codexMarketplace, pluginName, "1.0.0"))
			a.Args = []string{"-c", "features.plugins=true", "-c", fmt.Sprintf("plugins={%q={enabled=true}}", codexPluginID)}
			res := a.Run(t, "hi")
			if res.Exit != 0 {
				t.Fatalf("codex failed\n%s", res)
			}
			r, _ := lastAt(a, 0)
			if got := r.Contains(skill); got != c.loads {
				t.Errorf("the plugin loaded: %v, want %v (found by trying Codex 0.171)\n%s", got, c.loads, res)
			}
			if warned == c.loads {
				t.Errorf("review warned that Codex does not load the plugin: %v, want %v (%+v)", warned, !c.loads, rv.Warnings)
			}
		})
	}
}
