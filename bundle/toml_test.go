package bundle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"
	"golang.org/x/sys/unix"
)

// fakeSecret looks like a credential; no finding may ever contain it.
const fakeSecret = "sk-FAKESECRETdoNotEcho4242"

func parseTOMLString(t testing.TB, name, doc string) (*Bundle, string) {
	t.Helper()
	b := &Bundle{Name: name, Scope: ScopeDir}
	skills := parseTOML(b, []byte(doc))
	return b, skills
}

// ruleList renders the findings as "severity rule path" for comparison.
func ruleList(r Report) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.Severity.String()+" "+f.Rule+" "+f.Path)
	}
	return out
}

func assertNoSecret(t testing.TB, r Report, secret string) {
	t.Helper()
	for _, f := range r.Findings {
		if strings.Contains(f.Message, secret) || strings.Contains(f.Path, secret) {
			t.Fatalf("finding echoes a value: %s", f)
		}
	}
}

func readTestdata(t testing.TB, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "toml", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestParseTOMLFull(t *testing.T) {
	b, skills := parseTOMLString(t, "example", readTestdata(t, "full.toml"))
	if len(b.Report.Findings) != 0 {
		t.Fatalf("unexpected findings: %v", b.Report.Findings)
	}
	if skills != "skills" {
		t.Errorf("skills dir = %q, want %q", skills, "skills")
	}
	wantMeta := Metadata{
		Version: "0.1.0", Description: "an example bundle", DisplayName: "Example",
		Author:   &Author{Name: "A. Author", Email: "a@example.org", URL: "https://example.org"},
		Homepage: "https://example.org/example", Repository: "https://example.org/example.git",
		License: "MIT", Keywords: []string{"demo", "example"}, SchemaVersion: 1,
	}
	if !reflect.DeepEqual(b.Meta, wantMeta) {
		t.Errorf("meta = %+v\nwant %+v", b.Meta, wantMeta)
	}
	wantMCP := []MCPServer{
		{
			Name: "local", Transport: TransportStdio, Command: "node",
			Args: []string{"${PLUGIN_ROOT}/mcp/server.js"}, Env: map[string]string{"LOG_LEVEL": "info"},
			Cwd: "./mcp", TimeoutSec: 30, ToolsInclude: []string{"search"},
			EnvFrom: map[string]string{"API_TOKEN": "EXAMPLE_API_TOKEN"},
			Source:  "plugin.toml: mcp_servers.local",
		},
		{
			Name: "remote", Transport: TransportStreamableHTTP, URL: "https://mcp.example.org/v1",
			Headers: map[string]string{"X-Client": "bundlectl"}, ToolsExclude: []string{"delete"},
			BearerTokenEnvVar: "EXAMPLE_TOKEN", EnvHeaders: map[string]string{"X-Tenant": "EXAMPLE_TENANT"},
			Source: "plugin.toml: mcp_servers.remote",
		},
	}
	if !reflect.DeepEqual(b.Components.MCP, wantMCP) {
		t.Errorf("mcp = %+v\nwant %+v", b.Components.MCP, wantMCP)
	}
	wantTools := []Tool{{
		Name: "greet", Description: "says hello", Command: "python3", Args: []string{"${PLUGIN_ROOT}/greet.py"},
		Params:     []byte(`{"properties":{"name":{"type":"string"}},"required":["name"],"type":"object"}`),
		TimeoutSec: 20, Source: "plugin.toml: tools[0]",
	}}
	if !reflect.DeepEqual(b.Components.Tools, wantTools) {
		t.Errorf("tools = %+v\nwant %+v (params %s)", b.Components.Tools, wantTools, b.Components.Tools[0].Params)
	}
	wantHooks := []Hook{
		{Event: "PreToolUse", Matcher: "Bash", Type: HookCommand, Command: "./hooks/guard", TimeoutSec: 10, Source: "plugin.toml: hooks[0]"},
		{Event: "SessionStart", Type: HookCommand, Command: "./hooks/hello", Args: []string{"--quiet"}, Source: "plugin.toml: hooks[1]"},
	}
	if !reflect.DeepEqual(b.Components.Hooks, wantHooks) {
		t.Errorf("hooks = %+v\nwant %+v", b.Components.Hooks, wantHooks)
	}
	if want := (Permissions{NetworkHosts: []string{"mcp.example.org"}, NetworkDeclared: true}); !reflect.DeepEqual(b.Permissions, want) {
		t.Errorf("permissions = %+v, want %+v", b.Permissions, want)
	}
	if want := (When{OS: []string{"linux", "macos"}, Binaries: []string{"node", "python3"}}); !reflect.DeepEqual(b.When, want) {
		t.Errorf("when = %+v, want %+v", b.When, want)
	}
	if len(b.Inactive) != 0 {
		t.Errorf("inactive = %+v, want none", b.Inactive)
	}
}

func TestParseTOMLInactive(t *testing.T) {
	b, _ := parseTOMLString(t, "example", readTestdata(t, "inactive.toml"))
	if len(b.Report.Findings) != 0 {
		t.Fatalf("unexpected findings: %v", b.Report.Findings)
	}
	got := map[string]string{}
	for _, in := range b.Inactive {
		got[in.Surface+"/"+in.Name] = string(in.Spec)
	}
	// A language server is a component bundlectl runs, not a declaration.
	if l := b.Components.LSP; len(l) != 1 || l[0].Name != "gopls" || l[0].Command != "gopls" || l[0].Languages["go"] != "go" {
		t.Errorf("lsp = %+v", l)
	}
	want := map[string]string{
		"native/accel":        `{"path":"./lib/accel.so"}`,
		"filesystem_roots/":   `["~/notes"]`,
		"lifecycle_mutation/": `true`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("inactive = %v\nwant %v", got, want)
	}
	if !b.Blocked() {
		t.Error("a bundle with inactive declarations must be blocked")
	}
	if !b.Permissions.LifecycleMutation || len(b.Permissions.FilesystemRoots) != 1 {
		t.Errorf("permissions = %+v", b.Permissions)
	}
}

func TestParseTOMLFindings(t *testing.T) {
	const head = "schema_version = 1\n[plugin]\nname = \"example\"\n"
	tests := []struct {
		name   string
		dir    string // bundle directory name; "example" when empty
		doc    string
		want   []string // "severity rule path", in report order
		skills string
	}{
		{name: "minimal", doc: readTestdata(t, "minimal.toml"), skills: "skills"},
		{name: "legacy without schema_version", doc: readTestdata(t, "legacy.toml"),
			want: []string{"warning toml.migration plugin.toml"}, skills: "skills"},
		{name: "schema_version 2", doc: "schema_version = 2\n[plugin]\nname = \"example\"\n",
			want: []string{"error toml.schema_version plugin.toml: schema_version"}},
		{name: "schema_version string", doc: "schema_version = \"1\"\n[plugin]\nname = \"example\"\n",
			want: []string{"error toml.schema_version plugin.toml: schema_version"}},
		{name: "unknown field and table", doc: readTestdata(t, "unknown.toml"),
			want: []string{"error toml.unknown plugin.toml: plugin.api_key", "error toml.unknown plugin.toml: extras"}},
		{name: "unknown field in mcp server", doc: head + "[mcp_servers.x]\ncommand = \"a\"\npassword = \"" + fakeSecret + "\"\n",
			want: []string{"error toml.unknown plugin.toml: mcp_servers.x.password"}},
		{name: "unknown field in array table", doc: head + "[[tools]]\nname = \"a\"\ncommand = \"b\"\nsecret = \"" + fakeSecret + "\"\n",
			want: []string{"error toml.unknown plugin.toml: tools.secret"}},
		{name: "unknown field in an inline array of tables", doc: "schema_version = 1\nhooks = [{ event = \"Stop\", command = \"./h\", token = \"" + fakeSecret + "\" }]\n[plugin]\nname = \"example\"\n",
			want: []string{"error toml.unknown plugin.toml: hooks.token"}},
		{name: "unknown field in an inline table", doc: "schema_version = 1\nplugin = { name = \"example\", token = \"" + fakeSecret + "\" }\n",
			want: []string{"error toml.unknown plugin.toml: plugin.token"}},
		{name: "unknown field in author", doc: head + "author = { name = \"a\", phone = \"" + fakeSecret + "\" }\n",
			want: []string{"error toml.unknown plugin.toml: plugin.author.phone"}},
		{name: "same unknown key in two inline tables", doc: "schema_version = 1\ntools = [{ name = \"a\", command = \"b\", x = 1 }, { name = \"c\", command = \"d\", x = \"" + fakeSecret + "\" }]\n[plugin]\nname = \"example\"\n",
			want: []string{"error toml.unknown plugin.toml: tools.x", "error toml.unknown plugin.toml: tools.x"}},
		{name: "unknown key with odd characters", doc: head + "\"\\u001b[2J\" = \"" + fakeSecret + "\"\n",
			want: []string{`error toml.unknown plugin.toml: plugin."\x1b[2J"`}},
		{name: "syntax error", doc: readTestdata(t, "syntax.toml"),
			want: []string{"error toml.syntax plugin.toml"}},
		{name: "unterminated string", doc: head + "description = \"" + fakeSecret + "\n",
			want: []string{"error toml.syntax plugin.toml"}},
		{name: "duplicate key", doc: head + "name = \"" + fakeSecret + "\"\n",
			want: []string{"error toml.syntax plugin.toml"}},
		{name: "float out of range", doc: head + "[[tools]]\nname = \"a\"\ncommand = \"b\"\ntimeout_sec = 1.5e999\n",
			want: []string{"error toml.type plugin.toml"}},
		{name: "wrong type string for integer", doc: head + "[[tools]]\nname = \"a\"\ncommand = \"b\"\ntimeout_sec = \"" + fakeSecret + "\"\n",
			want: []string{"error toml.type plugin.toml: tools.timeout_sec"}},
		{name: "wrong type in array", doc: head + "keywords = [\"a\", 3]\n",
			want: []string{"error toml.type plugin.toml: plugin.keywords"}},
		{name: "wrong type table for string", doc: head + "[plugin.version]\nx = 1\n",
			want: []string{"error toml.type plugin.toml: plugin.version"}},
		{name: "wrong type env value", doc: head + "[mcp_servers.x]\ncommand = \"a\"\nenv = { A = 1 }\n",
			want: []string{"error toml.type plugin.toml: mcp_servers.x.env"}},
		{name: "missing name", doc: "schema_version = 1\n[plugin]\nversion = \"1\"\n",
			want: []string{"error manifest.name plugin.toml: plugin.name"}},
		{name: "missing plugin table", doc: "schema_version = 1\n",
			want: []string{"error manifest.name plugin.toml: plugin.name"}},
		{name: "name differs from directory", dir: "other", doc: head,
			want: []string{"error manifest.name plugin.toml: plugin.name"}},
		{name: "name with upper case", dir: "Example", doc: "schema_version = 1\n[plugin]\nname = \"Example\"\n",
			want: []string{"error manifest.name plugin.toml: plugin.name"}},
		{name: "name with double dash", dir: "a--b", doc: "schema_version = 1\n[plugin]\nname = \"a--b\"\n",
			want: []string{"error manifest.name plugin.toml: plugin.name"}},
		{name: "name ending in dot", dir: "ab.", doc: "schema_version = 1\n[plugin]\nname = \"ab.\"\n",
			want: []string{"error manifest.name plugin.toml: plugin.name"}},
		{name: "name of 65 bytes", dir: strings.Repeat("a", 65), doc: "schema_version = 1\n[plugin]\nname = \"" + strings.Repeat("a", 65) + "\"\n",
			want: []string{"error manifest.name plugin.toml: plugin.name"}},
		{name: "name with dots and digits", dir: "a.b-1", doc: "schema_version = 1\n[plugin]\nname = \"a.b-1\"\n", skills: "skills"},
		{name: "skills path plain", doc: head + "[skills]\npath = \"content/skills\"\n", skills: "content/skills"},
		{name: "skills table without path", doc: head + "[skills]\n", skills: "skills"},
		{name: "skills path dotdot", doc: head + "[skills]\npath = \"../elsewhere\"\n",
			want: []string{"error toml.skills_path plugin.toml: skills.path"}},
		{name: "skills path inner dotdot", doc: head + "[skills]\npath = \"a/../../b\"\n",
			want: []string{"error toml.skills_path plugin.toml: skills.path"}},
		{name: "skills path absolute", doc: head + "[skills]\npath = \"/etc\"\n",
			want: []string{"error toml.skills_path plugin.toml: skills.path"}},
		{name: "skills path root", doc: head + "[skills]\npath = \"./\"\n",
			want: []string{"error toml.skills_path plugin.toml: skills.path"}},
		{name: "skills path backslash", doc: head + "[skills]\npath = 'a\\b'\n",
			want: []string{"error toml.skills_path plugin.toml: skills.path"}},
		{name: "mcp url without type", doc: head + "[mcp_servers.r]\nurl = \"https://x.example\"\n",
			want: []string{"skipped toml.mcp plugin.toml: mcp_servers.r"}, skills: "skills"},
		{name: "mcp neither command nor url", doc: head + "[mcp_servers.r]\nargs = []\n",
			want: []string{"skipped toml.mcp plugin.toml: mcp_servers.r"}, skills: "skills"},
		{name: "mcp unknown type", doc: head + "[mcp_servers.r]\ntype = \"websocket\"\nurl = \"https://x.example\"\n",
			want: []string{"skipped toml.mcp plugin.toml: mcp_servers.r.type"}, skills: "skills"},
		{name: "mcp stdio with url", doc: head + "[mcp_servers.r]\ncommand = \"a\"\ntype = \"stdio\"\nurl = \"https://x.example\"\n",
			want: []string{"skipped toml.mcp plugin.toml: mcp_servers.r"}, skills: "skills"},
		{name: "mcp remote with env", doc: head + "[mcp_servers.r]\ntype = \"sse\"\nurl = \"https://x.example\"\nenv = {A = \"b\"}\n",
			want: []string{"skipped toml.mcp plugin.toml: mcp_servers.r"}, skills: "skills"},
		{name: "mcp stdio type without command", doc: head + "[mcp_servers.r]\ntype = \"stdio\"\n",
			want: []string{"skipped toml.mcp plugin.toml: mcp_servers.r"}, skills: "skills"},
		{name: "mcp remote without url", doc: head + "[mcp_servers.r]\ntype = \"sse\"\n",
			want: []string{"skipped toml.mcp plugin.toml: mcp_servers.r"}, skills: "skills"},
		{name: "mcp timeout too large", doc: head + "[mcp_servers.r]\ncommand = \"a\"\ntimeout_sec = 601\n",
			want: []string{"skipped toml.timeout plugin.toml: mcp_servers.r.timeout_sec"}, skills: "skills"},
		{name: "mcp server name needing quotes", doc: head + "[mcp_servers.\"my server\"]\ncommand = \"a\"\n", skills: "skills"},
		{name: "tool without name", doc: head + "[[tools]]\ncommand = \"a\"\n",
			want: []string{"skipped toml.tool plugin.toml: tools[0]"}, skills: "skills"},
		{name: "tool without command", doc: head + "[[tools]]\nname = \"a\"\n",
			want: []string{"skipped toml.tool plugin.toml: tools[0]"}, skills: "skills"},
		{name: "duplicate tool", doc: head + "[[tools]]\nname = \"a\"\ncommand = \"x\"\n[[tools]]\nname = \"a\"\ncommand = \"y\"\n",
			want: []string{"skipped toml.tool plugin.toml: tools[1]"}, skills: "skills"},
		{name: "tool timeout zero", doc: head + "[[tools]]\nname = \"a\"\ncommand = \"x\"\ntimeout_sec = 0\n",
			want: []string{"skipped toml.timeout plugin.toml: tools[0].timeout_sec"}, skills: "skills"},
		{name: "tool params with a date", doc: head + "[[tools]]\nname = \"a\"\ncommand = \"x\"\nparams = { default = 1979-05-27 }\n",
			want: []string{"skipped toml.tool plugin.toml: tools[0].params"}, skills: "skills"},
		{name: "tool params with nan", doc: head + "[[tools]]\nname = \"a\"\ncommand = \"x\"\nparams = { maximum = nan }\n",
			want: []string{"skipped toml.tool plugin.toml: tools[0].params"}, skills: "skills"},
		{name: "tool params not a table", doc: head + "[[tools]]\nname = \"a\"\ncommand = \"x\"\nparams = \"object\"\n",
			want: []string{"error toml.type plugin.toml: tools.params"}},
		{name: "hook unknown event", doc: head + "[[hooks]]\nevent = \"OnBoot\"\ncommand = \"./h\"\n",
			want: []string{"skipped toml.hook plugin.toml: hooks[0].event"}, skills: "skills"},
		{name: "hook without command", doc: head + "[[hooks]]\nevent = \"Stop\"\n",
			want: []string{"skipped toml.hook plugin.toml: hooks[0]"}, skills: "skills"},
		{name: "hook bad matcher", doc: head + "[[hooks]]\nevent = \"PreToolUse\"\nmatcher = \"(\"\ncommand = \"./h\"\n",
			want: []string{"skipped toml.hook plugin.toml: hooks[0].matcher"}, skills: "skills"},
		{name: "hook star matcher", doc: head + "[[hooks]]\nevent = \"PreToolUse\"\nmatcher = \"*\"\ncommand = \"./h\"\n", skills: "skills"},
		{name: "hook timeout negative", doc: head + "[[hooks]]\nevent = \"Stop\"\ncommand = \"./h\"\ntimeout_sec = -1\n",
			want: []string{"skipped toml.timeout plugin.toml: hooks[0].timeout_sec"}, skills: "skills"},
		{name: "when unknown os", doc: head + "[when]\nos = [\"linux\", \"beos\"]\n",
			want: []string{"error toml.when plugin.toml: when.os[1]"}},
		{name: "when binary with slash", doc: head + "[when]\nbinaries = [\"/usr/bin/node\"]\n",
			want: []string{"error toml.when plugin.toml: when.binaries[0]"}},
		{name: "lifecycle false is not inactive", doc: head + "[capabilities]\nlifecycle_mutation = false\nfilesystem_roots = []\n", skills: "skills"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tt.dir
			if dir == "" {
				dir = "example"
			}
			b, skills := parseTOMLString(t, dir, tt.doc)
			got := ruleList(b.Report)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("findings = %q\nwant %q\n%v", got, tt.want, b.Report.Findings)
			}
			if skills != tt.skills {
				t.Errorf("skills dir = %q, want %q", skills, tt.skills)
			}
			assertNoSecret(t, b.Report, fakeSecret)
			for _, f := range b.Report.Findings {
				if f.Message == "" || f.Message != strings.TrimRight(f.Message, ".") || strings.ContainsAny(f.Message, "\n\x1b") {
					t.Errorf("bad message %q", f.Message)
				}
			}
		})
	}
}

// TestParseTOMLPositions checks that unknown fields and syntax errors name
// their line and column.
func TestParseTOMLPositions(t *testing.T) {
	tests := []struct{ doc, want string }{
		{readTestdata(t, "unknown.toml"), "line 4, column 1"},
		{readTestdata(t, "unknown.toml"), "line 5, column 2"},
		{readTestdata(t, "syntax.toml"), "line 3, column 8"},
		{"schema_version = 1\n[plugin]\nname = \"example\"\nversion = 1\n", "line 4, column 11"},
		{"schema_version = 1\n[plugin]\nname = \"example\"\nauthor = { name = \"a\", phone = \"1\" }\n", "line 4, column 24"},
	}
	for _, tt := range tests {
		b, _ := parseTOMLString(t, "example", tt.doc)
		found := false
		for _, f := range b.Report.Findings {
			found = found || strings.Contains(f.Message, tt.want)
		}
		if !found {
			t.Errorf("no finding mentions %q: %v", tt.want, b.Report.Findings)
		}
	}
}

// TestLoadTOML reads plugin.toml through Load: the walked file is read, and
// the name is compared with the real directory name.
func TestLoadTOML(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "example")
	if err := os.MkdirAll(filepath.Join(dir, "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestTOML), []byte(readTestdata(t, "minimal.toml")), 0o644); err != nil {
		t.Fatal(err)
	}
	b := Load(dir, ScopeDir, Limits{})
	if b.Format != FormatTOML || b.Meta.SchemaVersion != 1 {
		t.Errorf("format %q, schema %d", b.Format, b.Meta.SchemaVersion)
	}
	for _, f := range b.Report.Findings {
		if strings.HasPrefix(f.Rule, "toml.") || f.Rule == "manifest.name" {
			t.Errorf("unexpected finding %s", f)
		}
	}
}

func FuzzPluginTOML(f *testing.F) {
	entries, err := os.ReadDir(filepath.Join("testdata", "toml"))
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("testdata", "toml", e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	f.Add("[plugin]\nname = \"example\"\n[[tools]]\nparams = { a = [1, 2.5, true, { b = 'c' }] }\n")
	f.Add("x = [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]\n")
	f.Add("[mcp_servers.\"\u202e\"]\ncommand = 'a'\n")
	f.Fuzz(func(t *testing.T, doc string) {
		// The fuzzed document itself may put text anywhere, including in
		// keys, which findings do name; the injected secret sits in values.
		if strings.Contains(doc, "Echo4242") {
			return
		}
		b, skills := parseTOMLString(t, "example", doc)
		for _, f := range b.Report.Findings {
			if !safeText(f.Message) {
				t.Fatalf("unsafe message %q", f.Message)
			}
		}
		if skills != "" && (strings.HasPrefix(skills, "/") || strings.Contains("/"+skills+"/", "/../")) {
			t.Fatalf("skills dir %q escapes the bundle", skills)
		}
		if b.Report.Valid() {
			// Accepted input round-trips through the model.
			out := tomlFromModel(t, b)
			again, _ := parseTOMLString(t, "example", string(out))
			if !again.Report.Valid() {
				t.Fatalf("re-encoded manifest is invalid: %v\n%s", again.Report.Findings, out)
			}
			if got, want := modelJSON(t, again), modelJSON(t, b); got != want {
				t.Fatalf("round trip changed the model:\n%s\n%s\n%s", got, want, out)
			}
		}
		for _, tail := range []string{
			"\nsecret_zz = \"" + fakeSecret + "\"\n",
			"\n[plugin]\napi_key = \"" + fakeSecret + "\"\n",
			"\n[zz_table]\nk = '" + fakeSecret + "'\n",
			"\n" + fakeSecret + "\n",
			"\nschema_version = \"" + fakeSecret + "\"\n",
			"\nx = " + fakeSecret + "\n",
		} {
			for _, d := range []string{doc + tail, tail + doc} {
				b, _ := parseTOMLString(t, "example", d)
				assertNoSecret(t, b.Report, fakeSecret)
			}
		}
	})
}

// TestParseTOMLHuge feeds manifests of the maximum size made of many keys,
// which go-toml decodes in quadratic time; they must be refused unread.
// The single finding proves it: decoding them would report each unknown
// key (or toml.unknown instead of toml.size), whatever the time taken.
func TestParseTOMLHuge(t *testing.T) {
	many := func(n int, width int) string {
		var sb strings.Builder
		sb.WriteString("schema_version = 1\n[plugin]\nname = \"example\"\n")
		for i := 0; i < n && sb.Len() < MaxManifestBytes-width-20; i++ {
			fmt.Fprintf(&sb, "k%d = %q\n", i, fakeSecret+strings.Repeat("x", width))
		}
		return sb.String()
	}
	tests := []struct{ name, doc, rule string }{
		{"many unknown keys", many(200000, 0), "toml.size"},
		{"some hundred long unknown keys", many(4000, 200), "toml.unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan *Bundle, 1)
			go func() { b, _ := parseTOMLString(t, "example", tt.doc); done <- b }()
			select {
			case b := <-done:
				if got := ruleList(b.Report); len(got) != 1 || !strings.Contains(got[0], tt.rule) {
					t.Errorf("findings = %q, want one %s", got, tt.rule)
				}
				assertNoSecret(t, b.Report, fakeSecret)
			case <-time.After(hangGuard):
				t.Fatalf("parsing a large plugin.toml hung: no return after %v", hangGuard)
			}
		})
	}
}

// tomlFromModel writes the model parseTOML produced back as plugin.toml,
// for the round-trip property: parsing it again yields the same model.
func tomlFromModel(t testing.TB, b *Bundle) []byte {
	t.Helper()
	str := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	timeout := func(n int) *int64 {
		if n == 0 {
			return nil
		}
		v := int64(n)
		return &v
	}
	m := tomlManifest{}
	if b.Meta.SchemaVersion != 0 {
		m.SchemaVersion = int64(b.Meta.SchemaVersion)
	}
	name := b.Name
	m.Plugin = &tomlPlugin{
		Name: &name, Version: b.Meta.Version, Description: b.Meta.Description, DisplayName: b.Meta.DisplayName,
		License: b.Meta.License, Homepage: b.Meta.Homepage, Repository: b.Meta.Repository, Keywords: b.Meta.Keywords,
	}
	if a := b.Meta.Author; a != nil {
		m.Plugin.Author = &tomlAuthor{Name: a.Name, Email: a.Email, URL: a.URL}
	}
	for _, s := range b.Components.MCP {
		if m.MCPServers == nil {
			m.MCPServers = map[string]tomlMCP{}
		}
		tm := tomlMCP{Type: str(s.Transport), TimeoutSec: timeout(s.TimeoutSec), ToolsInclude: s.ToolsInclude, ToolsExclude: s.ToolsExclude}
		if s.Transport == TransportStdio {
			tm.Command, tm.Args, tm.Env, tm.Cwd, tm.EnvFrom = &s.Command, s.Args, s.Env, str(s.Cwd), s.EnvFrom
		} else {
			tm.URL, tm.Headers, tm.BearerTokenEnvVar, tm.EnvHeaders = &s.URL, s.Headers, str(s.BearerTokenEnvVar), s.EnvHeaders
		}
		m.MCPServers[s.Name] = tm
	}
	for _, tool := range b.Components.Tools {
		tt := tomlTool{Name: tool.Name, Description: tool.Description, Command: tool.Command, Args: tool.Args, TimeoutSec: timeout(tool.TimeoutSec)}
		if tool.Params != nil {
			tt.Params = jsonToTOMLTable(t, tool.Params)
		}
		m.Tools = append(m.Tools, tt)
	}
	for _, h := range b.Components.Hooks {
		m.Hooks = append(m.Hooks, tomlHook{Event: h.Event, Matcher: h.Matcher, Command: h.Command, Args: h.Args, TimeoutSec: timeout(h.TimeoutSec)})
	}
	p := b.Permissions
	if p.NetworkHosts != nil || p.FilesystemRoots != nil || p.LifecycleMutation {
		m.Capabilities = &tomlCapabilities{NetworkHosts: p.NetworkHosts, FilesystemRoots: p.FilesystemRoots, LifecycleMutation: p.LifecycleMutation}
	}
	if b.When.OS != nil || b.When.Binaries != nil {
		m.When = &tomlWhen{OS: b.When.OS, Binaries: b.When.Binaries}
	}
	for _, l := range b.Components.LSP {
		if m.LSP == nil {
			m.LSP = map[string]tomlLSP{}
		}
		var langs []string
		for id := range l.Languages {
			langs = append(langs, id)
		}
		sort.Strings(langs)
		m.LSP[l.Name] = tomlLSP{Command: l.Command, Args: l.Args, Languages: langs}
	}
	for _, in := range b.Inactive {
		switch in.Surface {
		case SurfaceNative:
			var n tomlNative
			must(t, json.Unmarshal(in.Spec, &n))
			if m.Native == nil {
				m.Native = map[string]tomlNative{}
			}
			m.Native[in.Name] = n
		}
	}
	out, err := toml.Marshal(m)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return out
}

// jsonToTOMLTable decodes canonical JSON params, keeping integers integers.
func jsonToTOMLTable(t testing.TB, raw json.RawMessage) map[string]any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	must(t, dec.Decode(&v))
	var conv func(any) any
	conv = func(v any) any {
		switch x := v.(type) {
		case json.Number:
			if i, err := x.Int64(); err == nil {
				return i
			}
			f, _ := x.Float64()
			return f
		case map[string]any:
			for k, e := range x {
				x[k] = conv(e)
			}
		case []any:
			for i, e := range x {
				x[i] = conv(e)
			}
		}
		return v
	}
	return conv(v).(map[string]any)
}

// modelJSON is the parsed model in a form where nil and empty collections
// compare equal (the model's omitempty tags).
func modelJSON(t testing.TB, b *Bundle) string {
	t.Helper()
	var sources []string
	for _, x := range b.Components.MCP {
		sources = append(sources, x.Source)
	}
	for _, x := range b.Components.Tools {
		sources = append(sources, x.Source)
	}
	for _, x := range b.Components.Hooks {
		sources = append(sources, x.Source)
	}
	data, err := json.Marshal([]any{b.Meta, b.Components, b.Permissions, b.When, b.Inactive, sources})
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestParseTOMLRoundTrip(t *testing.T) {
	for _, name := range []string{"full.toml", "inactive.toml", "minimal.toml", "legacy.toml"} {
		b, _ := parseTOMLString(t, "example", readTestdata(t, name))
		again, _ := parseTOMLString(t, "example", string(tomlFromModel(t, b)))
		if got, want := modelJSON(t, again), modelJSON(t, b); got != want {
			t.Errorf("%s: round trip changed the model:\n%s\n%s", name, got, want)
		}
	}
}

// TestLoadTOMLNotRegular: a plugin.toml that is a symlink or a FIFO is never
// read (the walk rejects it and Load does not follow or open it).
func TestLoadTOMLNotRegular(t *testing.T) {
	for _, kind := range []string{"symlink", "fifo"} {
		t.Run(kind, func(t *testing.T) {
			base := t.TempDir()
			dir := filepath.Join(base, "example")
			mkdir(t, dir, ".")
			p := filepath.Join(dir, ManifestTOML)
			if kind == "symlink" {
				mkfile(t, base, "real.toml", readTestdata(t, "minimal.toml"), 0o644)
				must(t, os.Symlink(filepath.Join(base, "real.toml"), p))
			} else {
				must(t, unix.Mkfifo(p, 0o644))
			}
			done := make(chan *Bundle, 1)
			go func() { done <- Load(dir, ScopeDir, Limits{}) }()
			var b *Bundle
			select {
			case b = <-done:
			case <-time.After(hangGuard):
				t.Fatal("Load hung")
			}
			if b.Format != "" || !b.Rejected() {
				t.Errorf("format %q, rejected %v", b.Format, b.Rejected())
			}
			rules := map[string]bool{}
			for _, f := range b.Report.Findings {
				rules[f.Rule] = true
			}
			if !rules["manifest.type"] || !rules["tree.symlink"] && !rules["tree.special"] {
				t.Errorf("findings %v", b.Report.Findings)
			}
		})
	}
}
