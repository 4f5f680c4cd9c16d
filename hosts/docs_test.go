package hosts_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/harness"
	"github.com/bundlectl/bundlectl/hosts"
	"github.com/bundlectl/bundlectl/hosts/claude"
	"github.com/bundlectl/bundlectl/hosts/codex"
	"github.com/bundlectl/bundlectl/hosts/gemini"
	"github.com/bundlectl/bundlectl/inventory"
	"github.com/pelletier/go-toml/v2"
)

var update = flag.Bool("update", false, "rewrite the snippets in docs/hosts.md from what the code produces")

// The paths every snippet in docs/hosts.md uses.
var docRe = hosts.Reentry{Exe: "/usr/local/bin/bundlectl", Home: "/home/me/.local/share/bundlectl", Workspace: "/home/me/project"}

var docEnv = []string{"HOME=/home/me"}

func docBundle(host string) *hosts.Bundle {
	inv := &inventory.Inventory{
		Skills: []inventory.Doc{{Name: "owl-facts", Path: "skills/owl-facts/SKILL.md", Hosts: []string{"claude"}}},
		Hooks: []inventory.Hook{{ID: "5d0c2a9e41b7", Event: "PreToolUse", Matcher: "Bash", Type: "command",
			Command: "${CLAUDE_PLUGIN_ROOT}/bin/guard.sh", Shell: true, Hosts: []string{"claude"}}},
		MCPServers: []inventory.MCPServer{{Name: "fake", Transport: "stdio", Command: "${CLAUDE_PLUGIN_ROOT}/bin/serve", Hosts: []string{"claude"}}},
	}
	return hosts.NewBundle(harness.ActiveBundle{Name: "agentguard", Inventory: inv}, host)
}

func setupBundles(host string) []*hosts.Bundle {
	inv := &inventory.Inventory{MCPServers: []inventory.MCPServer{{Name: "local-index", Transport: "stdio", Command: "./mcp/index-server"}}}
	return []*hosts.Bundle{hosts.NewBundle(harness.ActiveBundle{Name: "repo-guard", Inventory: inv}, host)}
}

func setupEdit(t *testing.T, h hosts.Host, i int) []byte {
	t.Helper()
	edits, err := h.(hosts.Wiring).Setup(hosts.SetupInput{Reentry: docRe, Bundles: setupBundles(h.Name()), Environ: docEnv})
	if err != nil {
		t.Fatal(err)
	}
	out, err := edits[i].Apply(nil)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// snippets produce the text of each snippet docs/hosts.md shows.
func snippets(t *testing.T) map[string]string {
	claudeView, err := claude.Host{}.View(docBundle("claude"), docRe)
	if err != nil {
		t.Fatal(err)
	}
	viewHooks, _ := claudeView.File("hooks/hooks.json")
	viewMCP, _ := claudeView.File(".mcp.json")
	return map[string]string{
		"claude-view-hooks": compact(t, viewHooks, 4),
		"claude-view-mcp":   compact(t, viewMCP, 3),
		"claude-settings":   compact(t, setupEdit(t, claude.Host{}, 0), 3),
		"claude-mcp":        compact(t, setupEdit(t, claude.Host{}, 1), 3),
		"claude-approvals":  compact(t, setupEdit(t, claude.Host{}, 2), 3),
		"codex-config":      string(setupEdit(t, codex.Host{}, 0)),
		"gemini-settings":   compact(t, setupEdit(t, gemini.Host{}, 0), 3),
		"gemini-mcp":        compact(t, setupEdit(t, gemini.Host{}, 1), 3),
	}
}

// compact renders JSON with objects expanded down to depth levels and
// everything deeper on one line, so long hook lists stay readable.
func compact(t *testing.T, data []byte, depth int) string {
	t.Helper()
	j, err := hosts.ParseJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	render(&b, j, "", depth)
	b.WriteByte('\n')
	return b.String()
}

func render(b *strings.Builder, j *hosts.JSON, indent string, depth int) {
	if depth <= 0 || j.Kind == hosts.JSONScalar || len(j.Keys)+len(j.Items) == 0 {
		b.WriteString(inline(j))
		return
	}
	open, close := "{", "}"
	n := len(j.Keys)
	if j.Kind == hosts.JSONArray {
		open, close, n = "[", "]", len(j.Items)
	}
	b.WriteString(open + "\n")
	for i := 0; i < n; i++ {
		b.WriteString(indent + "  ")
		var v *hosts.JSON
		if j.Kind == hosts.JSONObject {
			k, _ := json.Marshal(j.Keys[i])
			b.Write(k)
			b.WriteString(": ")
			v = j.Fields[j.Keys[i]]
		} else {
			v = j.Items[i]
		}
		render(b, v, indent+"  ", depth-1)
		if i < n-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(indent + close)
}

// inline writes j on one line, keys in their order.
func inline(j *hosts.JSON) string {
	switch j.Kind {
	case hosts.JSONObject:
		var parts []string
		for _, k := range j.Keys {
			kj, _ := json.Marshal(k)
			parts = append(parts, string(kj)+": "+inline(j.Fields[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case hosts.JSONArray:
		var parts []string
		for _, it := range j.Items {
			parts = append(parts, inline(it))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return string(j.Scalar)
}

var snippetRE = regexp.MustCompile("(?s)<!-- snippet ([a-z-]+) -->\n```([a-z]*)\n(.*?)```")

// TestDocSnippets: every snippet docs/hosts.md shows is exactly what the
// code writes for the paths the page uses, and parses as its format. The
// end-to-end tests (TestSetup, TestExec) run the same code against the real
// CLIs.
func TestDocSnippets(t *testing.T) {
	const page = "../docs/hosts.md"
	doc, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	want := snippets(t)
	seen := map[string]bool{}
	out := snippetRE.ReplaceAllStringFunc(string(doc), func(m string) string {
		sm := snippetRE.FindStringSubmatch(m)
		name, lang, body := sm[1], sm[2], sm[3]
		seen[name] = true
		w, ok := want[name]
		if !ok {
			t.Errorf("docs/hosts.md shows snippet %q, which no test produces", name)
			return m
		}
		switch lang {
		case "json":
			var v any
			if err := json.Unmarshal([]byte(w), &v); err != nil {
				t.Errorf("snippet %s is not valid JSON: %v", name, err)
			}
		case "toml":
			var v map[string]any
			if err := toml.Unmarshal([]byte(w), &v); err != nil {
				t.Errorf("snippet %s is not valid TOML: %v", name, err)
			}
		}
		if body != w && !*update {
			t.Errorf("snippet %s differs from what the code writes (go test ./hosts -run TestDocSnippets -update):\n%s", name, w)
		}
		return fmt.Sprintf("<!-- snippet %s -->\n```%s\n%s```", name, lang, w)
	})
	for name := range want {
		if !seen[name] {
			t.Errorf("docs/hosts.md does not show snippet %q", name)
		}
	}
	if *update {
		if err := os.WriteFile(page, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
