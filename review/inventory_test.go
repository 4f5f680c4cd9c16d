package review

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/inventory"
	"github.com/rogpeppe/go-internal/txtar"
)

const capVector = "testdata/capabilities.txtar"

// TestInventoryVector checks the inventory test vector: the example
// bundle's canonical JSON and capability hash, in testdata and, verbatim,
// in docs/hashing.md.
func TestInventoryVector(t *testing.T) {
	d, inv, err := CapabilityHash(exampleBundle(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		a := &txtar.Archive{
			Comment: []byte("The capability inventory of the example bundle (review/fixture_test.go),\nand its capability hash. docs/hashing.md shows the same bytes.\n"),
			Files: []txtar.File{
				{Name: "inventory.json", Data: append(append([]byte(nil), inv...), '\n')},
				{Name: "digest", Data: []byte(d.String() + "\n")},
			},
		}
		if err := os.WriteFile(capVector, txtar.Format(a), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, err := txtar.ParseFile(capVector)
	if err != nil {
		t.Fatal(err)
	}
	wantInv, _ := section(a, "inventory.json")
	wantDigest, _ := section(a, "digest")
	if string(inv)+"\n" != wantInv {
		t.Errorf("inventory:\n%s\nwant:\n%s", inv, wantInv)
	}
	if d.String()+"\n" != wantDigest {
		t.Errorf("digest %s, want %s", d, wantDigest)
	}
	if CapabilityDigest(inv) != d {
		t.Error("CapabilityDigest disagrees")
	}
	doc, err := os.ReadFile(filepath.Join("..", "docs", "hashing.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{string(inv), d.String()} {
		if !bytes.Contains(doc, []byte(want)) {
			t.Errorf("docs/hashing.md does not show %.60s…", want)
		}
	}
	// The inventory is canonical: decoding and re-encoding it gives the
	// same bytes, and it holds no insignificant whitespace.
	var v any
	dec := json.NewDecoder(bytes.NewReader(inv))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(v)
	again, _ := inventory.Compact(raw)
	if !bytes.Equal(again, inv) {
		t.Error("inventory is not a fixed point of the canonical encoding")
	}
	var compact bytes.Buffer
	json.Compact(&compact, inv)
	if !bytes.Equal(compact.Bytes(), inv) {
		t.Error("inventory has insignificant whitespace")
	}
}

func TestInventoryDeterministic(t *testing.T) {
	first, err := Inventory(exampleBundle(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	for range 50 { // map iteration order varies from run to run
		again, _ := Inventory(exampleBundle(t, ""))
		if !bytes.Equal(first, again) {
			t.Fatalf("inventory differs between runs:\n%s\n%s", first, again)
		}
	}
}

// TestReadmeChangesContentNotCapability: editing a file no manifest
// names changes the content hash and leaves the capability hash alone.
func TestReadmeChangesContentNotCapability(t *testing.T) {
	dir := exampleTree(t)
	b1 := exampleBundle(t, dir)
	c1, err := Hash(b1)
	if err != nil {
		t.Fatal(err)
	}
	k1, _, _ := CapabilityHash(b1)
	write(t, filepath.Join(dir, "README.md"), "# example, edited\n")
	b2 := exampleBundle(t, dir)
	c2, err := Hash(b2)
	if err != nil {
		t.Fatal(err)
	}
	k2, _, _ := CapabilityHash(b2)
	if c1 == c2 {
		t.Error("content hash did not change")
	}
	if k1 != k2 {
		t.Error("capability hash changed")
	}
}

// TestCapabilityHashSensitivity changes one authority-relevant field at a
// time: each must change the capability hash.
func TestCapabilityHashSensitivity(t *testing.T) {
	edits := map[string]func(b *bundle.Bundle){
		"name":          func(b *bundle.Bundle) { b.Name = "other" },
		"hook matcher":  func(b *bundle.Bundle) { b.Components.Hooks[0].Matcher = "Write" },
		"hook event":    func(b *bundle.Bundle) { b.Components.Hooks[0].Event = "PostToolUse" },
		"hook order":    func(b *bundle.Bundle) { h := b.Components.Hooks; h[0], h[1] = h[1], h[0] },
		"hook command":  func(b *bundle.Bundle) { b.Components.Hooks[1].Command = "./hooks/other" },
		"hook timeout":  func(b *bundle.Bundle) { b.Components.Hooks[1].TimeoutSec = 5 },
		"hook arg":      func(b *bundle.Bundle) { b.Components.Hooks[0].Args[0] = "--lax" },
		"added hook":    func(b *bundle.Bundle) { b.Components.Hooks = append(b.Components.Hooks, b.Components.Hooks[0]) },
		"mcp arg":       func(b *bundle.Bundle) { b.Components.MCP[0].Args[2] = "1" },
		"mcp arg order": func(b *bundle.Bundle) { a := b.Components.MCP[0].Args; a[1], a[2] = a[2], a[1] },
		"mcp arg split": func(b *bundle.Bundle) {
			b.Components.MCP[0].Args = []string{"${PLUGIN_ROOT}/mcp/server.js", "--port 0"}
		},
		"mcp command":      func(b *bundle.Bundle) { b.Components.MCP[0].Command = "deno" },
		"mcp cwd":          func(b *bundle.Bundle) { b.Components.MCP[0].Cwd = "${PLUGIN_DATA}" },
		"mcp env value":    func(b *bundle.Bundle) { b.Components.MCP[0].Env["LOG_LEVEL"] = "info" },
		"mcp env name":     func(b *bundle.Bundle) { b.Components.MCP[0].Env = map[string]string{"LOGLEVEL": "debug"} },
		"env_from source":  func(b *bundle.Bundle) { b.Components.MCP[0].EnvFrom["API_KEY"] = "OTHER_KEY" },
		"env_from dest":    func(b *bundle.Bundle) { b.Components.MCP[0].EnvFrom = map[string]string{"KEY": "EXAMPLE_API_KEY"} },
		"mcp transport":    func(b *bundle.Bundle) { b.Components.MCP[1].Transport = bundle.TransportSSE },
		"mcp url path":     func(b *bundle.Bundle) { b.Components.MCP[1].URL = "https://api.example.com/mcp2?v=1" },
		"mcp url port":     func(b *bundle.Bundle) { b.Components.MCP[1].URL = "https://api.example.com:8443/mcp?v=1" },
		"mcp header name":  func(b *bundle.Bundle) { b.Components.MCP[1].Headers = map[string]string{"X-Other": "bundlectl"} },
		"mcp header value": func(b *bundle.Bundle) { b.Components.MCP[1].Headers["X-Client"] = "other" },
		"mcp bearer var":   func(b *bundle.Bundle) { b.Components.MCP[1].BearerTokenEnvVar = "OTHER" },
		"mcp env header":   func(b *bundle.Bundle) { b.Components.MCP[1].EnvHeaders["X-Org"] = "OTHER" },
		"mcp include":      func(b *bundle.Bundle) { b.Components.MCP[1].ToolsInclude = []string{"search"} },
		"mcp exclude":      func(b *bundle.Bundle) { b.Components.MCP[0].ToolsExclude = nil },
		"mcp timeout":      func(b *bundle.Bundle) { b.Components.MCP[0].TimeoutSec = 31 },
		"network host":     func(b *bundle.Bundle) { b.Permissions.NetworkHosts = []string{"api.example.org"} },
		"added host": func(b *bundle.Bundle) {
			b.Permissions.NetworkHosts = append(b.Permissions.NetworkHosts, "x.example.com")
		},
		"filesystem root":  func(b *bundle.Bundle) { b.Permissions.FilesystemRoots = []string{"/"} },
		"lifecycle":        func(b *bundle.Bundle) { b.Permissions.LifecycleMutation = true },
		"tool arg":         func(b *bundle.Bundle) { b.Components.Tools[0].Args[1] = "--quiet" },
		"tool command":     func(b *bundle.Bundle) { b.Components.Tools[0].Command = "python" },
		"tool params":      func(b *bundle.Bundle) { b.Components.Tools[0].Params = json.RawMessage(`{"type":"object"}`) },
		"tool timeout":     func(b *bundle.Bundle) { b.Components.Tools[0].TimeoutSec = 11 },
		"tool name":        func(b *bundle.Bundle) { b.Components.Tools[0].Name = "greet2" },
		"skill path":       func(b *bundle.Bundle) { b.Components.Skills[0].Path = "skills/x/SKILL.md" },
		"skill allowed":    func(b *bundle.Bundle) { b.Components.Skills[0].Grants.AllowedTools = []string{"Bash"} },
		"skill model":      func(b *bundle.Bundle) { b.Components.Skills[0].Grants.Model = "opus" },
		"skill shell line": func(b *bundle.Bundle) { b.Components.Skills[0].ShellLines = []string{"git status"} },
		"agent tools":      func(b *bundle.Bundle) { b.Components.Agents[0].Grants.Tools = []string{"Bash"} },
		"agent permission": func(b *bundle.Bundle) { b.Components.Agents[0].Grants.PermissionMode = "acceptEdits" },
		"command allowed":  func(b *bundle.Bundle) { b.Components.Commands[0].Grants.AllowedTools = []string{"Bash(rm:*)"} },
		"hook shell form":  func(b *bundle.Bundle) { b.Components.Hooks[0].Shell = true },
		"hook type":        func(b *bundle.Bundle) { b.Components.Hooks[0].Type = bundle.HookHTTP },
		"hook scope":       func(b *bundle.Bundle) { b.Components.Hooks[0].Scope = "skill:hello" },
		"hook host":        func(b *bundle.Bundle) { b.Components.Hooks[0].Hosts = []bundle.Host{bundle.HostCodex} },
		"mcp trust":        func(b *bundle.Bundle) { b.Components.MCP[0].Trust = true },
		"lsp server": func(b *bundle.Bundle) {
			b.Components.LSP = []bundle.LSPServer{{Name: "gopls", Command: "gopls"}}
		},
		"monitor": func(b *bundle.Bundle) { b.Components.Monitors = []bundle.Monitor{{Name: "m", Command: "tail -f x"}} },
		"app": func(b *bundle.Bundle) {
			b.Components.Apps = []bundle.App{{Name: "a", Spec: json.RawMessage(`{"id":"x"}`)}}
		},
		"policy": func(b *bundle.Bundle) {
			b.Components.Policies = []bundle.Policy{{Path: "policies/p.toml", Rules: json.RawMessage(`{}`)}}
		},
		"user option":  func(b *bundle.Bundle) { b.UserConfig = []bundle.UserOption{{Key: "token", Sensitive: true}} },
		"host var":     func(b *bundle.Bundle) { b.HostVars = []string{"GITHUB_TOKEN"} },
		"executable":   func(b *bundle.Bundle) { b.Executables = append(b.Executables, "bin/x") },
		"exclude tool": func(b *bundle.Bundle) { b.ExcludeTools = []string{"run_shell_command"} },
		"manifest other": func(b *bundle.Bundle) {
			b.ManifestOther = map[string]json.RawMessage{"claude-code.channels": json.RawMessage(`[]`)}
		},
		"removed skill":        func(b *bundle.Bundle) { b.Components.Skills = nil },
		"command name":         func(b *bundle.Bundle) { b.Components.Commands[0].Name = "fix2" },
		"agent path":           func(b *bundle.Bundle) { b.Components.Agents[0].Path = "dev.bundlectl/agents/x.md" },
		"when os":              func(b *bundle.Bundle) { b.When.OS = []string{"linux"} },
		"when binaries":        func(b *bundle.Bundle) { b.When.Binaries = nil },
		"inactive native":      func(b *bundle.Bundle) { b.Inactive = []bundle.Inactive{{Surface: bundle.SurfaceNative, Name: "go"}} },
		"inactive native spec": nil, // below
	}
	edits["inactive native spec"] = func(b *bundle.Bundle) {
		b.Inactive = []bundle.Inactive{{Surface: bundle.SurfaceNative, Name: "go", Spec: json.RawMessage(`{"path":"./x.so"}`)}}
	}
	base, _, err := CapabilityHash(exampleBundle(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{base.String(): "base"}
	for name, edit := range edits {
		b := exampleBundle(t, "")
		edit(b)
		d, _, err := CapabilityHash(b)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if other, dup := seen[d.String()]; dup {
			t.Errorf("%s: same capability hash as %s", name, other)
		}
		seen[d.String()] = name
	}
}

// TestCapabilityHashInsensitivity: what carries no authority, and the
// order of sets, leaves the capability hash alone.
func TestCapabilityHashInsensitivity(t *testing.T) {
	edits := map[string]func(b *bundle.Bundle){
		"description":       func(b *bundle.Bundle) { b.Meta.Description = "other" },
		"display name":      func(b *bundle.Bundle) { b.Meta.DisplayName = "Other" },
		"version":           func(b *bundle.Bundle) { b.Meta.Version = "9.9.9" },
		"skill description": func(b *bundle.Bundle) { b.Components.Skills[0].Description = "other" },
		"dir and id":        func(b *bundle.Bundle) { b.Dir, b.ID = "/elsewhere/example", "workspace/000000000000/example" },
		"when os order":     func(b *bundle.Bundle) { b.When.OS = []string{"linux", "macos"} },
		"include order":     func(b *bundle.Bundle) { b.Components.MCP[1].ToolsInclude = []string{"fetch", "search"} },
		"mcp server order":  func(b *bundle.Bundle) { m := b.Components.MCP; m[0], m[1] = m[1], m[0] },
		"params whitespace": func(b *bundle.Bundle) {
			b.Components.Tools[0].Params = json.RawMessage(`{ "required": ["name"], "type": "object", "properties": {"name": {"type": "string"}} }`)
		},
	}
	base, _, _ := CapabilityHash(exampleBundle(t, ""))
	for name, edit := range edits {
		b := exampleBundle(t, "")
		edit(b)
		if d, _, err := CapabilityHash(b); err != nil || d != base {
			t.Errorf("%s: changed the capability hash (%v)", name, err)
		}
	}
}

// An inventory that holds what no reader lets through has no canonical
// form: it is refused, never hashed around.
func TestInventoryRefusesBadModel(t *testing.T) {
	edits := map[string]func(b *bundle.Bundle){
		"params not json":   func(b *bundle.Bundle) { b.Components.Tools[0].Params = json.RawMessage(`{`) },
		"params two values": func(b *bundle.Bundle) { b.Components.Tools[0].Params = json.RawMessage(`{} {}`) },
	}
	for name, edit := range edits {
		b := exampleBundle(t, "")
		edit(b)
		_, err := Inventory(b)
		var ie *inventory.Error
		if !errors.As(err, &ie) {
			t.Errorf("%s: got %v, want an inventory.Error", name, err)
		}
	}
}
