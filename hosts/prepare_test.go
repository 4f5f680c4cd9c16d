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

// fileAtDirViews is Claude Code's adapter, except that the view of a
// bundle with skills also holds a file named hooks, as a Gemini CLI
// context file named hooks did beside the hooks/ of a guard in a bundle
// trusted before the review refused it.
type fileAtDirViews struct{ claude.Host }

func (fileAtDirViews) Name() string { return "claude-file-at-dir-views" }

func (h fileAtDirViews) View(b *hosts.Bundle, re hosts.Reentry) (*hosts.View, error) {
	v, err := h.Host.View(b, re)
	if err == nil && len(b.Inventory.Skills) > 0 {
		err = v.Add("hooks", []byte("context\n"), false)
	}
	return v, err
}

func init() { hosts.Register(fileAtDirViews{}) }

// TestAViewWithAFileAtADirectoryPathKeepsItsGuards: a view with a file at
// the path of the directory of its hooks cannot be written. exec failed
// the whole launch ("not a directory"), every other bundle with it; now
// the bundle's hooks alone load, with a notice whose hint is the review.
func TestAViewWithAFileAtADirectoryPathKeepsItsGuards(t *testing.T) {
	p := prepareGuardOnly(t, "claude-file-at-dir-views")
	var noticed bool
	for _, n := range p.Notices {
		noticed = noticed || n.Bundle == "g" && strings.Contains(n.Text, `"hooks" both as a file and as the directory of "hooks/hooks.json"`) && n.Fix == "bundlectl review g"
	}
	if !noticed {
		t.Errorf("no notice says so, with the review as its fix: %+v", p.Notices)
	}
}

// TestAViewThatCannotBeMadeKeepsItsGuards: when a bundle's view fails, its
// hooks are still loaded (as for a failed check), with a notice; the agent
// is never started without the guards the user enabled.
func TestAViewThatCannotBeMadeKeepsItsGuards(t *testing.T) {
	p := prepareGuardOnly(t, "claude-failing-views")
	var noticed bool
	for _, n := range p.Notices {
		noticed = noticed || n.Bundle == "g" && strings.Contains(n.Text, "its view for claude-failing-views cannot be made, so everything in it but its hooks is left out (its hooks still run, and the events they guard stay guarded): a view that cannot be made")
	}
	if !noticed {
		t.Errorf("no notice says so: %+v", p.Notices)
	}
}

// prepareGuardOnly trusts and enables a bundle g of a guard and a skill,
// prepares a launch of host, and checks that it loads g's guard view: its
// hook for PreToolUse, not its skill.
func prepareGuardOnly(t *testing.T, host string) *hosts.Plan {
	t.Helper()
	root := t.TempDir()
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	trustEnable(t, home, ws, "g", map[string]string{
		// bundlectl's own format: its components are for every host.
		"plugin.json": `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "g", "version": "1.0.0",
			"extensions": {"dev.bundlectl": {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "sh", "args": ["-c", "exit 2"]}]}]}}}}`,
		"skills/s/SKILL.md": "---\nname: s\ndescription: a skill\n---\nbody\n",
	})
	p, err := hosts.Prepare(hosts.Options{Home: home, Workspace: ws, Exe: "/bin/bundlectl", Argv: []string{host}, Environ: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatalf("the launch failed: %v", err)
	}
	if p.Launch.Cleanup != nil {
		t.Cleanup(p.Launch.Cleanup)
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
	return p
}

// TestPrepareBuildsAViewHoldingValuesForTheSession: the view of a Claude
// Code plugin whose remote server's header takes a configured option is
// built in the session directory, owner-only and read-only, with the
// value in its .mcp.json; nothing in the shared views directory holds the
// value, and the session's cleanup removes the view.
func TestPrepareBuildsAViewHoldingValuesForTheSession(t *testing.T) {
	root := t.TempDir()
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	const secret = "agenttest-value-7a1e"
	trustEnable(t, home, ws, "r", map[string]string{
		".claude-plugin/plugin.json": `{"name": "r", "version": "1.0.0", "userConfig": {"api_key": {"type": "string", "title": "key", "description": "key", "sensitive": true, "required": true}}}`,
		".mcp.json":                  `{"mcpServers": {"svc": {"type": "http", "url": "https://svc.test/mcp", "headers": {"X-Api-Key": "${user_config.api_key}"}}}}`,
	})
	m := lifecycle.New(bundle.Roots{Home: home, Workspace: ws}, bundle.Limits{})
	if _, err := m.Configure("r", map[string]string{"api_key": secret}, nil); err != nil {
		t.Fatal(err)
	}
	p, err := hosts.Prepare(hosts.Options{Home: home, Workspace: ws, Exe: "/bin/bundlectl", Argv: []string{"claude"}, Environ: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Views) != 1 || p.Launch.Cleanup == nil {
		t.Fatalf("views %+v (cleanup set: %v), want r's view and a session to clean up", p.Views, p.Launch.Cleanup != nil)
	}
	vd := p.Views[0].Dir
	sessions := filepath.Join(home, "views", "sessions") + string(filepath.Separator)
	if !strings.HasPrefix(vd, sessions) {
		t.Errorf("the view is at %s, not in a session directory", vd)
	}
	mcp := filepath.Join(vd, ".mcp.json")
	data, err := os.ReadFile(mcp)
	if err != nil || !strings.Contains(string(data), `"X-Api-Key": "`+secret+`"`) {
		t.Errorf(".mcp.json does not send the configured value: %s %v", data, err)
	}
	if fi, err := os.Stat(mcp); err != nil || fi.Mode().Perm() != 0o400 {
		t.Errorf(".mcp.json mode %v, want 0400 (%v)", fi.Mode(), err)
	}
	if fi, err := os.Stat(vd); err != nil || fi.Mode().Perm() != 0o500 {
		t.Errorf("view directory mode %v, want 0500 (%v)", fi.Mode(), err)
	}
	holding := func() []string {
		var out []string
		filepath.WalkDir(filepath.Join(home, "views"), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if b, _ := os.ReadFile(p); strings.Contains(string(b), secret) {
					out = append(out, p)
				}
			}
			return nil
		})
		return out
	}
	for _, p := range holding() {
		if !strings.HasPrefix(p, vd+string(filepath.Separator)) {
			t.Errorf("%s, outside the session's view, holds the value", p)
		}
	}
	p.Launch.Cleanup()
	if _, err := os.Stat(vd); err == nil {
		t.Errorf("the session's view %s is left after cleanup", vd)
	}
	if left := holding(); len(left) > 0 {
		t.Errorf("files hold the value after cleanup: %v", left)
	}
}

// trustEnable writes files as bundle name in ws's bundles directory, then
// trusts and enables it, and returns its token.
func trustEnable(t *testing.T, home, ws, name string, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(ws, ".bundlectl", "bundles", name)
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := lifecycle.New(bundle.Roots{Home: home, Workspace: ws}, bundle.Limits{})
	b, err := m.Find(m.Discover(), name)
	if err != nil || !b.Valid() {
		t.Fatalf("bundle %s: %v", name, err)
	}
	h, err := lifecycle.Compute(b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Trust(name, h.Token()); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Enable(name); err != nil {
		t.Fatal(err)
	}
	return h.Token().String()
}

// TestPrepareFailingLaterRemovesTheSessionView: when Prepare fails after
// it built a view holding an option value for the session (here: another
// bundle's shared view cannot be made), the session directory is removed
// before the error returns, not left with the value until a later launch
// sweeps it.
func TestPrepareFailingLaterRemovesTheSessionView(t *testing.T) {
	root := t.TempDir()
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	const secret = "agenttest-value-51d0"
	trustEnable(t, home, ws, "a", map[string]string{
		".claude-plugin/plugin.json": `{"name": "a", "version": "1.0.0", "userConfig": {"api_key": {"type": "string", "title": "key", "description": "key", "sensitive": true, "required": true}}}`,
		".mcp.json":                  `{"mcpServers": {"svc": {"type": "http", "url": "https://svc.test/mcp", "headers": {"X-Api-Key": "${user_config.api_key}"}}}}`,
	})
	m := lifecycle.New(bundle.Roots{Home: home, Workspace: ws}, bundle.Limits{})
	if _, err := m.Configure("a", map[string]string{"api_key": secret}, nil); err != nil {
		t.Fatal(err)
	}
	token := trustEnable(t, home, ws, "z", map[string]string{
		".claude-plugin/plugin.json": `{"name": "z", "version": "1.0.0"}`,
		"skills/s/SKILL.md":          "---\nname: s\ndescription: a skill\n---\nbody\n",
	})
	// z's views directory is a file: its view cannot be made.
	if err := os.MkdirAll(filepath.Join(home, "views"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "views", token), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := hosts.Prepare(hosts.Options{Home: home, Workspace: ws, Exe: "/bin/bundlectl", Argv: []string{"claude"}, Environ: []string{"PATH=/usr/bin:/bin"}})
	if err == nil {
		if p.Launch.Cleanup != nil {
			p.Launch.Cleanup()
		}
		t.Fatalf("Prepare succeeded with z's views directory a file; views %+v", p.Views)
	}
	if !strings.Contains(err.Error(), `bundle "z"`) && !strings.Contains(err.Error(), "bundle z") {
		t.Fatalf("Prepare failed, but not at z's view: %v", err)
	}
	sessions, _ := os.ReadDir(filepath.Join(home, "views", "sessions"))
	for _, e := range sessions {
		t.Errorf("session %s is left after Prepare failed", e.Name())
	}
	filepath.WalkDir(filepath.Join(home, "views"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), secret) {
				t.Errorf("%s holds the value after Prepare failed", p)
			}
		}
		return nil
	})
}
