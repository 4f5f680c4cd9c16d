package bundle

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"unicode"
)

func addSeeds(f *testing.F, suffix string) {
	f.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "manifests", "*"+suffix))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no seeds for %s: %v", suffix, err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// requireCleanNames checks the invariant every accepted model keeps: no
// name of anything that can be listed, run or served holds a control or
// bidirectional character.
func requireCleanNames(t *testing.T, b *Bundle) {
	t.Helper()
	bad := func(what, s string) {
		for _, r := range s {
			if unicode.IsControl(r) || IsBidi(r) {
				t.Fatalf("accepted %s %q holds a control or bidi character", what, s)
			}
		}
	}
	for _, s := range b.Components.Skills {
		bad("skill", s.Name)
		bad("skill description", strings.NewReplacer("\n", "", "\t", "").Replace(s.Description))
	}
	for _, x := range b.Components.Tools {
		bad("tool", x.Name)
		bad("tool command", x.Command)
	}
	for _, h := range b.Components.Hooks {
		bad("hook event", h.Event)
		bad("hook command", h.Command)
	}
	for _, s := range b.Components.MCP {
		bad("mcp server", s.Name)
		bad("mcp command", s.Command)
		bad("mcp url", s.URL)
		for _, a := range s.Args {
			bad("mcp arg", a)
		}
	}
	for _, d := range append(b.Components.Commands, b.Components.Agents...) {
		bad("document", d.Name)
	}
	for _, in := range b.Inactive {
		bad("inactive", in.Name)
	}
	bad("display name", b.Meta.DisplayName)
	bad("version", b.Meta.Version)
}

func FuzzPluginJSON(f *testing.F) {
	addSeeds(f, ".json")
	f.Add([]byte(`{"$schema":"https://agent-plugins.org/schemas/1.0.0/plugin.schema.json","name":"demo","extensions":{"dev.bundlectl":{"lsp":{"a":{"command":"x"}},"native":{"n":{"path":"./n"}},"capabilities":{"filesystem_roots":["/"],"lifecycle_mutation":true}}}}`))
	f.Add([]byte(`{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`))
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		b := &Bundle{Name: "demo", Format: FormatAgentPlugins, Tree: &Tree{Root: root}}
		parseAgentPlugins(b, data)
		if b.Rejected() {
			return
		}
		checkModel(b)
		if !b.Rejected() {
			requireCleanNames(t, b)
		}
		// Accepted params round-trip: canonical JSON is a fixed point.
		for _, tool := range b.Components.Tools {
			if len(tool.Params) == 0 {
				continue
			}
			again, err := compileParams(tool.Params)
			if err != nil || string(again) != string(tool.Params) {
				t.Fatalf("params do not round-trip: %s -> %s (%v)", tool.Params, again, err)
			}
		}
		for _, fd := range b.Report.Findings {
			if fd.Rule == "" || fd.Message == "" {
				t.Fatalf("finding without rule or message: %+v", fd)
			}
		}
	})
}

func FuzzMCPJSON(f *testing.F) {
	addSeeds(f, ".json")
	f.Add([]byte(`{"$schema":"https://agent-plugins.org/schemas/1.0.0/mcp.schema.json","mcpServers":{"a":{"type":"sse","url":"http://[::1]:1/x","headers":{"X":"y"}},"b":{"type":"stdio","command":"./x","cwd":"${PLUGIN_DATA}/.."}}}`))
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		b := &Bundle{Name: "demo", Format: FormatAgentPlugins, Tree: &Tree{Root: root}}
		parseMCPJSON(b, data)
		if b.Components.MCPDisabled && len(b.Components.MCP) != 0 {
			t.Fatal("disabled mcp.json still yields servers")
		}
		checkModel(b)
		if !b.Rejected() {
			requireCleanNames(t, b)
			for _, s := range b.Components.MCP {
				if s.Remote() {
					if _, msg := endpointHost(s.URL); msg != "" {
						t.Fatalf("accepted url %q: %s", s.URL, msg)
					}
				} else if commandProblem(s.Command, len(s.Hosts) > 0) != "" || (s.Cwd != "" && cwdProblem(s.Cwd) != "") {
					t.Fatalf("accepted stdio server %+v", s)
				}
			}
		}
	})
}

func FuzzSkillFrontMatter(f *testing.F) {
	addSeeds(f, ".md")
	f.Add([]byte("---\nname: summarize\ndescription: d\nmetadata: {a: b}\n---\n"))
	f.Add([]byte("---\na: &x [*x]\n---\n"))
	f.Add([]byte("---\nname: summarize\ndescription: d\nallowed-tools: !!null Bash\nx: [!!int 0x1F, !!float 3, !!bool yes, !!null '']\n---\n"))
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		b := &Bundle{Name: "demo", Format: FormatAgentPlugins, Tree: &Tree{Root: root}}
		s, ok := parseSkill(b, "skills/summarize/SKILL.md", "summarize", data, true)
		if ok {
			b.Components.Skills = append(b.Components.Skills, s)
			if s.Name != "summarize" || strings.TrimSpace(s.Description) == "" {
				t.Fatalf("accepted skill %+v", s)
			}
			if len([]rune(s.Description)) > MaxSkillDescription {
				t.Fatalf("accepted a description of %d characters", len([]rune(s.Description)))
			}
		}
		if !b.Rejected() {
			requireCleanNames(t, b)
		}
		// Documents share the front-matter reader.
		if fm, found, msg := splitFrontMatter(data); found && msg == "" {
			parseFrontMatter(fm)
		}
	})
}

// TestParseNeverReachesTheNetwork points every schema reference a bundle
// can make at a live loopback server and checks that nothing connects:
// a reference outside the schema is refused before anything could load
// it, and $schema values are only compared, never fetched.
func TestParseNeverReachesTheNetwork(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/schema+json")
		w.Write([]byte(`{"type": "object"}`))
	}))
	defer srv.Close()
	b := loadFiles(t, files{
		"plugin.json": `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "demo", "extensions": {"dev.bundlectl": {"tools": [
			{"name": "a", "command": "true", "params": {"$ref": "` + srv.URL + `/a.json"}},
			{"name": "b", "command": "true", "params": {"$schema": "` + srv.URL + `/meta", "type": "object"}},
			{"name": "c", "command": "true", "params": {"$id": "` + srv.URL + `/c.json", "properties": {"x": {"$ref": "other.json"}}}},
			{"name": "d", "command": "true", "params": {"$ref": "file://` + filepath.ToSlash(t.TempDir()) + `/d.json"}}]}}}`,
		"mcp.json": `{"$schema": "` + srv.URL + `/mcp.schema.json", "mcpServers": {}}`,
	})
	if hits.Load() != 0 {
		t.Fatalf("loading the bundle made %d request(s)", hits.Load())
	}
	for _, name := range []string{"tools[0]", "tools[1]", "tools[2]", "tools[3]"} {
		requireFinding(t, b, Skip, "tool.params", name+".params")
	}
	requireFinding(t, b, Skip, "mcp.schema", "mcp.json: $schema")
	if len(b.Components.Tools) != 0 {
		t.Fatalf("tools with unloadable schemas were kept: %+v", b.Components.Tools)
	}
	// The same schemas without external references compile.
	b = loadFiles(t, files{"plugin.json": pluginWithExt(`{"tools": [{"name": "a", "command": "true", "params": {"$defs": {"x": {"type": "string"}}, "properties": {"y": {"$ref": "#/$defs/x"}}}}]}`)})
	requireClean(t, b)
}
