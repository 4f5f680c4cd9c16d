package gemini

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/harness"
	"github.com/bundlectl/bundlectl/hosts"
	"github.com/bundlectl/bundlectl/inventory"
)

var re = hosts.Reentry{Exe: "/usr/bin/bundlectl", Home: "/h", Workspace: "/w"}

func TestMatcherFor(t *testing.T) {
	for in, want := range map[string]string{"": "", "*": "*", "Bash": "run_shell_command", "Edit|Write": "replace|write_file"} {
		if got, ok := matcherFor(in); !ok || got != want {
			t.Errorf("matcherFor(%q) = %q %v", in, got, ok)
		}
	}
	for _, bad := range []string{"Bash(rm *)", "mcp__x__y", "Unknown"} {
		if _, ok := matcherFor(bad); ok {
			t.Errorf("matcherFor(%q) translated", bad)
		}
	}
}

// TestHooks: Gemini CLI's own hooks keep their event and matcher;
// bundlectl's own are translated; timeouts are milliseconds; what Gemini
// CLI cannot run is noted.
func TestHooks(t *testing.T) {
	inv := &inventory.Inventory{Hooks: []inventory.Hook{
		{ID: "g1", Event: "BeforeTool", Matcher: "run_shell_command", Type: "command", Command: "x", Hosts: []string{"gemini"}},
		{ID: "b1", Event: "PreToolUse", Matcher: "Bash", Type: "command", Command: "./y", TimeoutSec: 10},
		{ID: "b2", Event: "PermissionRequest", Type: "command", Command: "./z"},
		{ID: "c1", Event: "PreToolUse", Type: "command", Command: "./c", Hosts: []string{"claude"}},
	}}
	b := hosts.NewBundle(harness.ActiveBundle{Name: "g", Inventory: inv}, "gemini")
	v, err := Host{}.View(b, re)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := v.File("hooks/hooks.json")
	var hj struct {
		Hooks map[string][]struct {
			Matcher string           `json:"matcher"`
			Hooks   []map[string]any `json:"hooks"`
		} `json:"hooks"`
	}
	json.Unmarshal(data, &hj)
	bt := hj.Hooks["BeforeTool"]
	if len(bt) != 1 || len(bt[0].Hooks) != 2 || bt[0].Matcher != "run_shell_command" {
		t.Fatalf("BeforeTool: %s", data)
	}
	if c := bt[0].Hooks[1]["command"]; c != "/usr/bin/bundlectl --home /h --workspace /w hooks exec g b1" || bt[0].Hooks[1]["timeout"] != float64(40000) {
		t.Errorf("bundlectl's own hook: %v", bt[0].Hooks[1])
	}
	if len(hj.Hooks) != 1 || !strings.Contains(strings.Join(b.Notes, "\n"), "PermissionRequest") {
		t.Errorf("hooks %s, notes %v", data, b.Notes)
	}
}

// TestSettingHint: the note on a setting Gemini CLI will not ask for
// gives a configure command that works: a sensitive value is prompted
// for, since configure refuses one on the command line.
func TestSettingHint(t *testing.T) {
	inv := &inventory.Inventory{UserConfig: []inventory.UserOption{
		{Key: "region", EnvVar: "REGION", Hosts: []string{"gemini"}},
		{Key: "apiKey", EnvVar: "API_KEY", Sensitive: true, Hosts: []string{"gemini"}},
	}}
	b := hosts.NewBundle(harness.ActiveBundle{Name: "g", Inventory: inv}, "gemini")
	if _, err := (Host{}).View(b, re); err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(b.Notes, "\n")
	for _, want := range []string{"set it with bundlectl configure g region=VALUE", "set it with bundlectl configure g apiKey (it asks"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if strings.Contains(notes, "apiKey=VALUE") {
		t.Errorf("a sensitive setting is hinted on the command line:\n%s", notes)
	}
}

// TestLaunch: the session home links the user's .gemini entries, keeps
// the user's extensions but a same-named one, adds the views, and copies
// the enablement file without the views' names.
func TestLaunch(t *testing.T) {
	viewsDir := t.TempDir()
	user := t.TempDir()
	dot := filepath.Join(user, ".gemini")
	os.MkdirAll(filepath.Join(dot, "extensions", "theirs"), 0o700)
	os.MkdirAll(filepath.Join(dot, "extensions", "agentguard"), 0o700)
	os.WriteFile(filepath.Join(dot, "settings.json"), []byte(`{"security":{"auth":{}}}`), 0o600)
	os.WriteFile(filepath.Join(dot, "extensions", enablementFile), []byte(`{"agentguard":{"overrides":["!/*"]},"theirs":{"overrides":[]}}`), 0o600)
	view := filepath.Join(t.TempDir(), "view")
	os.Mkdir(view, 0o500)
	s := hosts.NewSession(viewsDir)
	l, err := Host{}.Launch(s, []hosts.BuiltView{{Bundle: "agentguard", Dir: view}}, []string{"gemini", "-p", "x"}, []string{"HOME=" + user, "PATH=/bin"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Remove()
	var home string
	for _, kv := range l.Env {
		if v, ok := strings.CutPrefix(kv, "GEMINI_CLI_HOME="); ok {
			home = v
		}
	}
	sdot := filepath.Join(home, ".gemini")
	if target, _ := os.Readlink(filepath.Join(sdot, "settings.json")); target != filepath.Join(dot, "settings.json") {
		t.Errorf("settings.json links to %q", target)
	}
	if target, _ := os.Readlink(filepath.Join(sdot, "extensions", "theirs")); target != filepath.Join(dot, "extensions", "theirs") {
		t.Errorf("the user's extension links to %q", target)
	}
	if target, _ := os.Readlink(filepath.Join(sdot, "extensions", "agentguard")); target != view {
		t.Errorf("agentguard links to %q, want the view", target)
	}
	en, _ := os.ReadFile(filepath.Join(sdot, "extensions", enablementFile))
	if strings.Contains(string(en), "agentguard") || !strings.Contains(string(en), "theirs") {
		t.Errorf("enablement copy: %s", en)
	}
	if !strings.Contains(strings.Join(l.Notes, "\n"), "left out") {
		t.Errorf("notes: %v", l.Notes)
	}
	if ents, _ := os.ReadDir(filepath.Join(dot, "extensions")); len(ents) != 3 {
		t.Errorf("the user's extensions directory changed: %v", ents)
	}
}
