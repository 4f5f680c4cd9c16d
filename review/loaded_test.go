package review

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/internal/testtree"

	"github.com/bundlectl/bundlectl/bundle"
)

// These tests run the review over the example workspace's bundles, read by
// the real manifest readers (bundle.Load), so that the inventory is shown
// to cover what the readers actually produce.

const examplesDir = "../examples/workspace/.bundlectl/bundles"

// copyBundle copies an example bundle into a fresh directory of the same
// name, keeping the executable bits, and returns the copy's path.
func copyBundle(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join(examplesDir, name)
	dst := filepath.Join(t.TempDir(), name)
	if err := testtree.Copy(src, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

func load(t *testing.T, dir string) *bundle.Bundle {
	t.Helper()
	return bundle.Load(dir, bundle.ScopeWorkspace, bundle.Limits{})
}

func TestReviewLoadedExamples(t *testing.T) {
	want := map[string]struct {
		token bool
		shows []string
	}{
		"repo-guard": {true, []string{
			`"./tools/word-count", "--format", "json"`, `on "PreToolUse", matcher "Bash"`,
			`["./mcp/index-server", "--data", "${PLUGIN_DATA}/index"]`,
			`INDEX_TOKEN <- host variable "REPO_GUARD_INDEX_TOKEN"`,
			`https://docs.example.com/mcp`, `Authorization: Bearer <- host variable "DOCS_SEARCH_TOKEN"`,
			`network hosts       "docs.example.com"`, "bundlectl trust repo-guard ",
		}},
		"shell-helpers": {true, []string{"plugin.toml", "bundlectl trust shell-helpers "}},
		"notes-skills":  {true, []string{"meeting-notes", "changelog-entry"}},
		// A language server is a process bundlectl runs: reviewed, trustable.
		"lsp-bridge": {true, []string{"LSP servers (1)", "bundlectl trust lsp-bridge "}},
	}
	for name, w := range want {
		t.Run(name, func(t *testing.T) {
			b := load(t, copyBundle(t, name))
			if b.Rejected() {
				t.Skipf("the readers reject %s (%v); nothing to review", name, b.Report.Err())
			}
			rv, err := New(b)
			if err != nil {
				t.Fatal(err)
			}
			if (rv.Token != nil) != w.token {
				t.Errorf("token %v, want one: %v (refusals %q, findings %v)", rv.Token, w.token, rv.Refusals, b.Report.Findings)
			}
			var h, j bytes.Buffer
			if err := Render(&h, rv, RenderOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := RenderJSON(&j, rv); err != nil {
				t.Fatal(err)
			}
			for _, s := range w.shows {
				if !strings.Contains(h.String(), s) {
					t.Errorf("review does not show %s:\n%s", s, h.String())
				}
			}
			checkInert(t, "human", h.Bytes())
			if !json.Valid(j.Bytes()) {
				t.Error("invalid JSON review")
			}
			// The content hash is independent of where the bundle lies.
			if d := naiveTreeHash(t, b.Dir); d != rv.ContentHash.String() {
				t.Errorf("content hash %s, naive %s", rv.ContentHash, d)
			}
		})
	}
}

// TestLoadedHashProperties edits real manifests: a README edit changes
// only the content hash; a hook matcher, an MCP argument, an env_from
// source and a network host each change the capability hash too.
func TestLoadedHashProperties(t *testing.T) {
	base := copyBundle(t, "repo-guard")
	b0 := load(t, base)
	if b0.Rejected() || b0.Blocked() {
		t.Skipf("repo-guard does not load cleanly: %v", b0.Report.Err())
	}
	rv0, err := New(b0)
	if err != nil {
		t.Fatal(err)
	}
	edits := []struct {
		name, file, old, new string
		capability           bool
	}{
		{"readme", "README.md", "", "\nedited\n", false},
		{"hook matcher", "plugin.json", `"matcher": "Bash"`, `"matcher": "Bash|Write"`, true},
		{"mcp arg", "mcp.json", `"--data"`, `"--data-dir"`, true},
		{"env_from source", "plugin.json", `"REPO_GUARD_INDEX_TOKEN"`, `"OTHER_INDEX_TOKEN"`, true},
		{"network host", "plugin.json", `"network_hosts": ["docs.example.com"]`, `"network_hosts": ["docs.example.org"]`, true},
	}
	for _, e := range edits {
		t.Run(e.name, func(t *testing.T) {
			dir := copyBundle(t, "repo-guard")
			p := filepath.Join(dir, e.file)
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			var edited string
			if e.old == "" {
				edited = string(data) + e.new
			} else {
				if !bytes.Contains(data, []byte(e.old)) {
					t.Skipf("%s no longer contains %s", e.file, e.old)
				}
				edited = strings.Replace(string(data), e.old, e.new, 1)
			}
			if e.name == "network host" {
				// The remote endpoint must stay consistent with the hosts.
				m := filepath.Join(dir, "mcp.json")
				md, _ := os.ReadFile(m)
				os.WriteFile(m, bytes.ReplaceAll(md, []byte("docs.example.com"), []byte("docs.example.org")), 0o644)
			}
			if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			b := load(t, dir)
			if b.Rejected() {
				t.Fatalf("edited bundle is rejected: %v", b.Report.Err())
			}
			rv, err := New(b)
			if err != nil {
				t.Fatal(err)
			}
			if rv.ContentHash == rv0.ContentHash {
				t.Error("content hash did not change")
			}
			if (rv.CapabilityHash != rv0.CapabilityHash) != e.capability {
				t.Errorf("capability hash changed = %v, want %v", rv.CapabilityHash != rv0.CapabilityHash, e.capability)
			}
		})
	}
}
