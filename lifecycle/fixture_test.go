package lifecycle_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/receipts"
)

// newWorkspace makes a home and a workspace holding the named bundles,
// each a valid Agent Plugins bundle with a tool and a few files.
func newWorkspace(t testing.TB, names ...string) (home, ws string) {
	t.Helper()
	root := t.TempDir()
	home, ws = filepath.Join(root, "home"), filepath.Join(root, "ws")
	for _, n := range names {
		writeBundle(t, filepath.Join(ws, ".bundlectl", "bundles", n), n, "v1")
	}
	return home, ws
}

func writeBundle(t testing.TB, dir, name, version string) {
	t.Helper()
	files := map[string]string{
		"plugin.json": fmt.Sprintf(`{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": %q, "version": %q,
  "extensions": {"dev.bundlectl": {"tools": [{"name": "hello", "command": "./bin/hello"}]}}}`, name, version),
		"bin/hello":       "#!/bin/sh\necho hello\n",
		"README.md":       "# " + name + "\n",
		"data/notes.txt":  "some data\n",
		"data/more/a.txt": "more data " + version + "\n",
	}
	for rel, body := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if rel == "bin/hello" {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// writeConfigurable places at dir a Claude Code bundle that declares one
// string option per key.
func writeConfigurable(t testing.TB, dir, name string, keys []string) {
	t.Helper()
	var decl []string
	for _, k := range keys {
		decl = append(decl, fmt.Sprintf(`%q: {"type": "string", "title": "t", "description": "d"}`, k))
	}
	for p, body := range map[string]string{
		".claude-plugin/plugin.json": fmt.Sprintf(`{"name": %q, "userConfig": {%s}}`, name, strings.Join(decl, ", ")),
		"commands/hi.md":             "say hi\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func manager(home, ws string) *lifecycle.Manager {
	return lifecycle.New(bundle.Roots{Home: home, Workspace: ws}, bundle.Limits{})
}

// tokenOf reviews the named bundle now.
func tokenOf(t testing.TB, m *lifecycle.Manager, name string) receipts.Token {
	t.Helper()
	b, err := m.Find(m.Discover(), name)
	if err != nil {
		t.Fatal(err)
	}
	h, err := lifecycle.Compute(b)
	if err != nil {
		t.Fatal(err)
	}
	return h.Token()
}

func status(t testing.TB, m *lifecycle.Manager, name string) lifecycle.Status {
	t.Helper()
	s, err := m.LoadState()
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Find(m.Discover(), name)
	if err != nil {
		t.Fatal(err)
	}
	return m.Evaluate(b, s)
}
