package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
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
	if c := bt[0].Hooks[1]["command"]; c != "/usr/bin/bundlectl --home /h --workspace /w hooks exec --host gemini --event BeforeTool g b1" || bt[0].Hooks[1]["timeout"] != float64(40000) {
		t.Errorf("bundlectl's own hook: %v", bt[0].Hooks[1])
	}
	if len(hj.Hooks) != 1 || !strings.Contains(strings.Join(b.Notes, "\n"), "PermissionRequest") {
		t.Errorf("hooks %s, notes %v", data, b.Notes)
	}
}

// TestHooksSequential: a hook's "sequential": true group stays one in the
// view, and hooks keep the order declared: Gemini CLI 0.61 then gives
// each later hook (each a hooks exec line) the input the earlier ones
// changed, and which came first decides what each judges
// (internal/agenttest TestGeminiSequentialChain). The view once dropped
// "sequential", so Gemini CLI ran the hooks in parallel on the original
// input, and merged groups of one matcher, reordering the hooks.
func TestHooksSequential(t *testing.T) {
	seq := map[string]json.RawMessage{bundle.GeminiSequentialKey: json.RawMessage("true")}
	inv := &inventory.Inventory{Hooks: []inventory.Hook{
		{ID: "rewrite", Event: "BeforeModel", Type: "command", Command: "a", Hosts: []string{"gemini"}, Other: seq},
		{ID: "guard", Event: "BeforeModel", Type: "command", Command: "b", Hosts: []string{"gemini"}, Other: seq},
		{ID: "t1", Event: "BeforeTool", Matcher: "x", Type: "command", Command: "c", Hosts: []string{"gemini"}},
		{ID: "t2", Event: "BeforeTool", Matcher: "y", Type: "command", Command: "d", Hosts: []string{"gemini"}},
		{ID: "t3", Event: "BeforeTool", Matcher: "x", Type: "command", Command: "e", Hosts: []string{"gemini"}},
	}}
	b := hosts.NewBundle(harness.ActiveBundle{Name: "g", Inventory: inv}, "gemini")
	v, err := Host{}.View(b, re)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := v.File("hooks/hooks.json")
	var hj struct {
		Hooks map[string][]struct {
			Matcher    string           `json:"matcher"`
			Sequential *bool            `json:"sequential"`
			Hooks      []map[string]any `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &hj); err != nil {
		t.Fatal(err)
	}
	bm := hj.Hooks["BeforeModel"]
	if len(bm) != 1 || bm[0].Sequential == nil || !*bm[0].Sequential || len(bm[0].Hooks) != 2 ||
		!strings.HasSuffix(bm[0].Hooks[0]["command"].(string), " g rewrite") || !strings.HasSuffix(bm[0].Hooks[1]["command"].(string), " g guard") {
		t.Errorf("BeforeModel: want one sequential group, the rewriter first: %s", data)
	}
	var order []string
	for _, g := range hj.Hooks["BeforeTool"] {
		if g.Sequential != nil {
			t.Errorf("BeforeTool group made sequential: %s", data)
		}
		for _, h := range g.Hooks {
			c := h["command"].(string)
			order = append(order, g.Matcher+":"+c[strings.LastIndexByte(c, ' ')+1:])
		}
	}
	if strings.Join(order, ",") != "x:t1,y:t2,x:t3" {
		t.Errorf("BeforeTool hooks in the order %v, want as declared: %s", order, data)
	}
}

// TestSettingHint: the note on a setting Gemini CLI will not ask for
// gives a configure command that works as printed: it prompts for the
// value (configure refuses a sensitive one on the command line, and a
// KEY=VALUE placeholder pasted as printed would be stored), and a key that
// begins with "-" comes after "--", where configure reads it as a key.
func TestSettingHint(t *testing.T) {
	inv := &inventory.Inventory{UserConfig: []inventory.UserOption{
		{Key: "region", EnvVar: "REGION", Hosts: []string{"gemini"}},
		{Key: "apiKey", EnvVar: "API_KEY", Sensitive: true, Hosts: []string{"gemini"}},
		{Key: "-dash", EnvVar: "DASH", Hosts: []string{"gemini"}},
	}}
	b := hosts.NewBundle(harness.ActiveBundle{Name: "g", Inventory: inv}, "gemini")
	if _, err := (Host{}).View(b, re); err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(b.Notes, "\n")
	for _, want := range []string{"asks for the value without echo: bundlectl configure g region)", "asks for the value without echo: bundlectl configure g apiKey)", "asks for the value without echo: bundlectl configure -- g -dash)"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if strings.Contains(notes, "=VALUE") {
		t.Errorf("a setting is hinted with a placeholder value:\n%s", notes)
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

// TestOptionRefs: the references Gemini CLI resolves, as its own pattern
// matches them.
func TestOptionRefs(t *testing.T) {
	s := "a $KEY-${B}/${C:-d}$ $$ ${} $-"
	got := OptionRefs(s)
	want := []hosts.OptionRef{
		{Start: 2, End: 6, Key: "KEY"},
		{Start: 7, End: 11, Key: "B"},
		{Start: 12, End: 19, Key: "C", Default: "d", HasDefault: true},
	}
	if len(got) != len(want) {
		t.Fatalf("OptionRefs(%q) = %+v, want %+v", s, got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("ref %d = %+v, want %+v (%q)", i, got[i], want[i], s[got[i].Start:got[i].End])
		}
	}
}

// TestViewRemoteSettings: a remote server's httpUrl and headers get the
// configured values of the extension's settings (by envVar), a reference's
// own default when none is configured; a setting with no value, or one
// Gemini CLI would expand again, keeps the server out with a note that
// names the configure command, never the value.
func TestViewRemoteSettings(t *testing.T) {
	inv := func() *inventory.Inventory {
		return &inventory.Inventory{
			UserConfig: []inventory.UserOption{{Key: "SVC_KEY", EnvVar: "SVC_KEY", Sensitive: true, Hosts: []string{"gemini"}}, {Key: "SVC_ORG", EnvVar: "SVC_ORG", Hosts: []string{"gemini"}}},
			MCPServers: []inventory.MCPServer{{Name: "svc", Transport: "streamable-http", Hosts: []string{"gemini"},
				URL: "https://svc.test/${SVC_ORG:-public}/mcp", Headers: map[string]string{"X-Api-Key": "$SVC_KEY", "X-Home": "${HOME}"}}},
		}
	}
	entry := func(t *testing.T, v *hosts.View) map[string]any {
		data, _ := v.File("gemini-extension.json")
		var m struct {
			MCPServers map[string]map[string]any `json:"mcpServers"`
		}
		json.Unmarshal(data, &m)
		return m.MCPServers["svc"]
	}

	b := hosts.NewBundle(harness.ActiveBundle{Name: "g", Inventory: inv(), Options: map[string]string{"SVC_KEY": "s3cret$"}}, "gemini")
	v, err := Host{}.View(b, re)
	if err != nil {
		t.Fatal(err)
	}
	e := entry(t, v)
	if e == nil {
		t.Fatalf("the server is not in the view; notes %q", b.Notes)
	}
	h, _ := e["headers"].(map[string]any)
	if e["httpUrl"] != "https://svc.test/public/mcp" || h["X-Api-Key"] != "s3cret$" || h["X-Home"] != "${HOME}" {
		t.Errorf("httpUrl %v, headers %v", e["httpUrl"], h)
	}
	if !v.HoldsValues() {
		t.Error("the view holds a configured value but is not marked as holding values")
	}

	for name, opts := range map[string]map[string]string{
		"unset":   {"SVC_ORG": "acme"},
		"expands": {"SVC_KEY": "x$HOME"},
	} {
		b := hosts.NewBundle(harness.ActiveBundle{Name: "g", Inventory: inv(), Options: opts}, "gemini")
		v, err := Host{}.View(b, re)
		if err != nil {
			t.Fatal(err)
		}
		if e := entry(t, v); e != nil {
			t.Errorf("%s: the server is in the view: %v", name, e)
		}
		notes := strings.Join(b.Notes, "\n")
		if !strings.Contains(notes, "bundlectl configure g SVC_KEY") || strings.Contains(notes, "x$HOME") {
			t.Errorf("%s: notes do not name the command, or hold the value:\n%s", name, notes)
		}
	}
}

// TestViewRemoteSettingJoinRefused: a value that holds no reference of its
// own but makes one with the reviewed text after it ("x$" before "HOME")
// is refused as a value Gemini CLI would expand again; the same text with
// a plain value loads.
func TestViewRemoteSettingJoinRefused(t *testing.T) {
	view := func(value string) (*hosts.Bundle, map[string]any) {
		inv := &inventory.Inventory{
			UserConfig: []inventory.UserOption{{Key: "SVC_KEY", EnvVar: "SVC_KEY", Sensitive: true, Hosts: []string{"gemini"}}},
			MCPServers: []inventory.MCPServer{{Name: "svc", Transport: "streamable-http", Hosts: []string{"gemini"},
				URL: "https://svc.test/mcp", Headers: map[string]string{"X-Api-Key": "${SVC_KEY}HOME"}}},
		}
		b := hosts.NewBundle(harness.ActiveBundle{Name: "g", Inventory: inv, Options: map[string]string{"SVC_KEY": value}}, "gemini")
		v, err := Host{}.View(b, re)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := v.File("gemini-extension.json")
		var m struct {
			MCPServers map[string]map[string]any `json:"mcpServers"`
		}
		json.Unmarshal(data, &m)
		return b, m.MCPServers["svc"]
	}
	b, e := view("x$")
	if e != nil {
		t.Fatalf("the server is in the view, where Gemini CLI would expand $HOME: %v", e)
	}
	if notes := strings.Join(b.Notes, "\n"); !strings.Contains(notes, "bundlectl configure g SVC_KEY") || strings.Contains(notes, "x$") {
		t.Errorf("notes do not name the command, or hold the value:\n%s", notes)
	}
	b, e = view("x")
	if h, _ := e["headers"].(map[string]any); h["X-Api-Key"] != "xHOME" {
		t.Errorf("with a plain value: entry %v, notes %q", e, b.Notes)
	}
}

// TestLaunchAllowListRefused: with security.allowedExtensions set, Gemini
// CLI stops at startup on an extension without an install record — every
// view (tried: "Failed to load extension …: The
// .gemini-extension-install.json file is missing or misconfigured") — so
// exec refuses first, naming the file and the setting. An empty list, or
// a launch with no views, starts.
func TestLaunchAllowListRefused(t *testing.T) {
	for _, c := range []struct {
		name, settings string
		views, refused bool
	}{
		{"set", `{"security":{"allowedExtensions":["x"]}}`, true, true},
		{"empty", `{"security":{"allowedExtensions":[]}}`, true, false},
		{"git only", `{"security":{"blockGitExtensions":true}}`, true, false},
		{"no views", `{"security":{"allowedExtensions":["x"]}}`, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			user := t.TempDir()
			dot := filepath.Join(user, ".gemini")
			os.MkdirAll(dot, 0o700)
			os.WriteFile(filepath.Join(dot, "settings.json"), []byte(c.settings), 0o600)
			s := hosts.NewSession(t.TempDir())
			defer s.Remove()
			sd, err := s.Dir()
			if err != nil {
				t.Fatal(err)
			}
			var views []hosts.BuiltView
			if c.views {
				view := filepath.Join(sd, "views", "0")
				os.MkdirAll(view, 0o700)
				views = append(views, hosts.BuiltView{Bundle: "r", Dir: view})
			}
			_, err = Host{}.Launch(s, views, []string{"gemini", "-p", "x"}, []string{"HOME=" + user, "PATH=/bin", "GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(user, "none.json")})
			var al *AllowListError
			switch {
			case c.refused && (!errors.As(err, &al) || !strings.Contains(err.Error(), filepath.Join(dot, "settings.json"))):
				t.Errorf("launch = %v, want an AllowListError naming the user's settings", err)
			case c.refused:
				// The hint shows the setting's line.
				if out, err := exec.Command("sh", "-c", al.Hint()).Output(); err != nil || !strings.Contains(string(out), `"allowedExtensions"`) {
					t.Errorf("hint %q printed %q (%v), want the setting's line", al.Hint(), out, err)
				}
			case !c.refused && err != nil:
				t.Errorf("launch = %v, want a start", err)
			}
		})
	}
}

// TestViewRemoteAuth: a remote server of the extension's own manifest
// keeps how Gemini CLI authenticates to it (oauth, authProviderType,
// targetAudience, targetServiceAccount, as real extensions write them),
// so a server that takes the user's Google credentials works under exec
// as it does without it; a field Gemini CLI does not read stays out.
func TestViewRemoteAuth(t *testing.T) {
	other := map[string]json.RawMessage{
		"authProviderType":     json.RawMessage(`"service_account_impersonation"`),
		"targetAudience":       json.RawMessage(`"aud.apps.example"`),
		"targetServiceAccount": json.RawMessage(`"sa@p.iam.example"`),
		"oauth":                json.RawMessage(`{"scopes":["https://www.googleapis.com/auth/cloud-platform"]}`),
		"tcp":                  json.RawMessage(`"h:1"`),
	}
	inv := &inventory.Inventory{MCPServers: []inventory.MCPServer{{Name: "svc", Transport: "streamable-http", Hosts: []string{"gemini"}, URL: "https://svc.test/mcp", Other: other}}}
	b := hosts.NewBundle(harness.ActiveBundle{Name: "g", Inventory: inv}, "gemini")
	v, err := Host{}.View(b, re)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := v.File("gemini-extension.json")
	var m struct {
		MCPServers map[string]map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	e := m.MCPServers["svc"]
	for _, k := range []string{"authProviderType", "targetAudience", "targetServiceAccount", "oauth"} {
		var got bytes.Buffer
		if json.Compact(&got, e[k]) != nil || got.String() != string(other[k]) {
			t.Errorf("%s = %s in the view, want %s", k, e[k], other[k])
		}
	}
	if _, ok := e["tcp"]; ok {
		t.Errorf("a field Gemini CLI does not read is in the view: %s", data)
	}
}

// TestHooksOffSpellings: every value of hooksConfig that Gemini CLI 0.61
// reads as hooks off is refused, not only a JSON false, and the values it
// reads as on are not (internal/agenttest TestExecGeminiHooksOffSpellings
// finds these with the real CLI).
func TestHooksOffSpellings(t *testing.T) {
	sys := filepath.Join(t.TempDir(), "system.json")
	env := []string{"GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + sys, "HOOKS_OFF=False", "HOOKS_ON=true"}
	for _, tc := range []struct {
		settings string
		off      bool
	}{
		{`{}`, false},
		{`{"hooksConfig": {"enabled": true}}`, false},
		{`{"hooksConfig": {"enabled": "TRUE"}}`, false},
		{`{"hooksConfig": {"enabled": "yes"}}`, false},
		{`{"hooksConfig": {"enabled": 1}}`, false},
		{`{"hooksConfig": {"enabled": "$HOOKS_ON"}}`, false},
		{`{"hooksConfig": {"enabled": "$UNSET_VAR"}}`, false},
		{`{"hooksConfig": {"disabled": "mine"}}`, false},
		{`{"hooksConfig": {"enabled": false}}`, true},
		{`{"hooksConfig": {"enabled": "false"}}`, true},
		{`{"hooksConfig": {"enabled": "False"}}`, true},
		{`{"hooksConfig": {"enabled": 0}}`, true},
		{`{"hooksConfig": {"enabled": ""}}`, true},
		{`{"hooksConfig": {"enabled": null}}`, true},
		{`{"hooksConfig": {"enabled": "$HOOKS_OFF"}}`, true},
		{`{"hooksConfig": {"enabled": "${UNSET_VAR:-false}"}}`, true},
		{`{"hooksConfig": false}`, true},
		{`{"hooksConfig": null}`, true},
		{`{"hooksConfig": []}`, true},
		{`{"hooksConfig": "on"}`, true},
		{`{"hooksConfig": {"disabled": "/usr/bin/bundlectl hooks exec g b1"}}`, true},
		{`{"hooksConfig": {"disabled": ["${BIN:-/usr/bin/bundlectl} hooks exec g b1"]}}`, true},
	} {
		user := t.TempDir()
		if err := os.WriteFile(filepath.Join(user, "settings.json"), []byte(tc.settings), 0o600); err != nil {
			t.Fatal(err)
		}
		err := hooksOff(user, env)
		var off *hosts.HooksOffError
		if got := errors.As(err, &off); got != tc.off {
			t.Errorf("%s: refused %v, want %v (%v)", tc.settings, got, tc.off, err)
		}
	}
}
