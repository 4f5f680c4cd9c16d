package hosts_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/hosts"
	"github.com/bundlectl/bundlectl/hosts/claude"
	"github.com/bundlectl/bundlectl/lifecycle"
)

// failingViews is Claude Code's adapter, except that it cannot make the
// view of a bundle that has anything but hooks: the view of a whole
// bundle fails, the view of its hooks alone does not.
type failingViews struct{ claude.Host }

func (failingViews) Name() string { return "claude-failing-views" }

func (h failingViews) View(b *hosts.Bundle, re hosts.Reentry) (*hosts.View, error) {
	if len(b.Inventory.Skills) > 0 {
		return nil, errors.New("a view that cannot be made")
	}
	return h.Host.View(b, re)
}

func init() { hosts.Register(failingViews{}) }

// TestAViewThatCannotBeMadeKeepsItsGuards: when a bundle's view fails, its
// hooks are still loaded (as for a failed check), with a notice; the agent
// is never started without the guards the user enabled.
func TestAViewThatCannotBeMadeKeepsItsGuards(t *testing.T) {
	root := t.TempDir()
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	dir := filepath.Join(ws, ".bundlectl", "bundles", "g")
	for rel, body := range map[string]string{
		// bundlectl's own format: its components are for every host.
		"plugin.json": `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "g", "version": "1.0.0",
			"extensions": {"dev.bundlectl": {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "sh", "args": ["-c", "exit 2"]}]}]}}}}`,
		"skills/s/SKILL.md": "---\nname: s\ndescription: a skill\n---\nbody\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := lifecycle.New(bundle.Roots{Home: home, Workspace: ws}, bundle.Limits{})
	b, err := m.Find(m.Discover(), "g")
	if err != nil || !b.Valid() {
		t.Fatalf("bundle g: %v", err)
	}
	h, err := lifecycle.Compute(b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Trust("g", h.Token()); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Enable("g"); err != nil {
		t.Fatal(err)
	}
	p, err := hosts.Prepare(hosts.Options{Home: home, Workspace: ws, Exe: "/bin/bundlectl", Argv: []string{"claude-failing-views"}, Environ: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Launch.Cleanup != nil {
		defer p.Launch.Cleanup()
	}
	if len(p.Views) != 1 || !p.Views[0].GuardOnly {
		t.Fatalf("views %+v, want the guard view of g", p.Views)
	}
	hooks, err := os.ReadFile(filepath.Join(p.Views[0].Dir, "hooks", "hooks.json"))
	if err != nil || !strings.Contains(string(hooks), `"PreToolUse"`) {
		t.Fatalf("the guard view has no hook for PreToolUse: %s, %v", hooks, err)
	}
	if _, err := os.Stat(filepath.Join(p.Views[0].Dir, "skills")); err == nil {
		t.Error("the guard view holds the skills")
	}
	var noticed bool
	for _, n := range p.Notices {
		noticed = noticed || n.Bundle == "g" && strings.Contains(n.Text, "view cannot be made, so nothing of it is loaded but its hooks")
	}
	if !noticed {
		t.Errorf("no notice says so: %+v", p.Notices)
	}
}
