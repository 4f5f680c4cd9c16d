package gemini

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/hosts"
)

// TestTrustsFolder: bundlectl takes a folder as trusted only where Gemini
// CLI 0.61 is sure to trust it, and so to read the workspace's settings.
func TestTrustsFolder(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	os.MkdirAll(filepath.Join(ws, "sub"), 0o700)
	user := filepath.Join(root, "user", ".gemini")
	os.MkdirAll(user, 0o700)
	sys := "GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(root, "system.json")
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(user, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	q := func(p string) string { return `"` + p + `"` }
	for _, tc := range []struct {
		name, rules, settings string
		env                   []string
		cwd                   string
		want                  bool
	}{
		{"no rules", "", "", nil, ws, false},
		{"folder", `{` + q(ws) + `: "TRUST_FOLDER"}`, "", nil, ws, true},
		{"below a trusted folder", `{` + q(ws) + `: "TRUST_FOLDER"}`, "", nil, filepath.Join(ws, "sub"), true},
		{"parent", `{` + q(filepath.Join(ws, "x")) + `: "TRUST_PARENT"}`, "", nil, ws, true},
		{"longest rule decides", `{` + q(root) + `: "TRUST_FOLDER", ` + q(ws) + `: "DO_NOT_TRUST"}`, "", nil, ws, false},
		{"not covering", `{` + q(filepath.Join(ws, "sub")) + `: "TRUST_FOLDER"}`, "", nil, ws, false},
		{"env", "", "", []string{"GEMINI_CLI_TRUST_WORKSPACE=true"}, ws, true},
		{"restricted wins", "", "", []string{"GEMINI_CLI_TRUST_WORKSPACE=true", "GEMINI_RESTRICTED_MODE=true"}, ws, false},
		{"env false", `{` + q(ws) + `: "TRUST_FOLDER"}`, "", []string{"GEMINI_CLI_TRUST_WORKSPACE=false"}, ws, false},
		{"folder trust off", "", `{"security": {"folderTrust": {"enabled": false}}}`, nil, ws, true},
		{"ide mode may decide", `{` + q(ws) + `: "TRUST_FOLDER"}`, `{"ide": {"enabled": true}}`, nil, ws, false},
	} {
		os.Remove(filepath.Join(user, "trustedFolders.json"))
		os.Remove(filepath.Join(user, "settings.json"))
		if tc.rules != "" {
			write("trustedFolders.json", tc.rules)
		}
		if tc.settings != "" {
			write("settings.json", tc.settings)
		}
		if got := trustsFolder(user, append([]string{sys}, tc.env...), tc.cwd); got != tc.want {
			t.Errorf("%s: trustsFolder = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestTrustsFolderNotUTF8: Gemini CLI 0.61 reads trustedFolders.json as
// Node.js decodes bytes that are not UTF-8, each maximal invalid subpart
// one U+FFFD (node 20: a key "ws\xe2\x82" read with readFileSync "utf-8"
// is "ws\ufffd"), so a rule written "ws\xe2\x82" covers the folder
// "ws\ufffd" (U+FFFD in its name, as UTF-8; internal/agenttest
// TestGeminiTrustedFolderNotUTF8). bundlectl read the key with
// encoding/json, one U+FFFD a byte, and missed it. A working directory
// whose own name is not UTF-8 is decoded the same way (realPath), though
// Gemini CLI 0.61 then stops at once: "Directory does not exist".
func TestTrustsFolderNotUTF8(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws\ufffd")
	os.MkdirAll(ws, 0o700)
	user := filepath.Join(root, "user", ".gemini")
	os.MkdirAll(user, 0o700)
	env := []string{"GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(root, "system.json")}
	for _, tc := range []struct {
		name, key, level string
		trusted, denied  bool
	}{
		{"U+FFFD as UTF-8", ws, "TRUST_FOLDER", true, false},
		{"one invalid byte", filepath.Join(root, "ws\xff"), "TRUST_FOLDER", true, false},
		{"a truncated sequence", filepath.Join(root, "ws\xe2\x82"), "TRUST_FOLDER", true, false},
		{"a truncated sequence denies", filepath.Join(root, "ws\xf0\x9f\x98"), "DO_NOT_TRUST", false, true},
		{"two invalid bytes", filepath.Join(root, "ws\xff\xfe"), "TRUST_FOLDER", false, false},
	} {
		data := append(append([]byte(`{"`), tc.key...), `": "`+tc.level+`"}`...)
		if err := os.WriteFile(filepath.Join(user, "trustedFolders.json"), data, 0o600); err != nil {
			t.Fatal(err)
		}
		if got := trustsFolder(user, env, ws); got != tc.trusted {
			t.Errorf("%s: trustsFolder = %v, want %v", tc.name, got, tc.trusted)
		}
		if _, got := distrustedByRule(user, env, ws); got != tc.denied {
			t.Errorf("%s: distrustedByRule = %v, want %v", tc.name, got, tc.denied)
		}
		// The same folder to Node.js, named in bytes that are not UTF-8.
		if got := trustsFolder(user, env, filepath.Join(root, "ws\xfe")); got != tc.trusted {
			t.Errorf("%s: trustsFolder of ws\\xfe = %v, want %v", tc.name, got, tc.trusted)
		}
	}
}

// TestTrustsFolderRuleLength: of the rules that cover the folder Gemini
// CLI 0.61 takes the longest as written by JavaScript's length (UTF-16
// code units: rulePath.length), not in bytes: "/ééé" is 4 to it and 7
// in UTF-8, so a 6-character link to the same folder decides.
func TestTrustsFolderRuleLength(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(root, "ééé")
	link := filepath.Join(root, "lnk123")
	os.MkdirAll(ws, 0o700)
	if err := os.Symlink(ws, link); err != nil {
		t.Skip(err)
	}
	user := filepath.Join(root, "user", ".gemini")
	os.MkdirAll(user, 0o700)
	env := []string{"GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(root, "system.json")}
	rules := `{"` + ws + `": "DO_NOT_TRUST", "` + link + `": "TRUST_FOLDER"}`
	if err := os.WriteFile(filepath.Join(user, "trustedFolders.json"), []byte(rules), 0o600); err != nil {
		t.Fatal(err)
	}
	if !trustsFolder(user, env, ws) {
		t.Errorf("the rule for %s, longer to JavaScript, did not decide", link)
	}
}

// TestDistrustedByRule: a folder counts as surely untrusted, where Gemini
// CLI 0.61 runs no settings hook (setup's lines included), only when the
// longest trustedFolders.json rule covering it says DO_NOT_TRUST and
// nothing else may decide: no rule (Gemini CLI asks), folder trust off
// or GEMINI_CLI_TRUST_WORKSPACE=true is not. With IDE mode on and no IDE
// connected the rule still holds (the report's when says so).
func TestDistrustedByRule(t *testing.T) {
	d := newTrustDir(t)
	ws, user, sys := d.ws, d.user, d.sys
	q := strconv.Quote
	deny := `{` + q(ws) + `: "DO_NOT_TRUST"}`
	for _, tc := range []struct {
		name, rules, settings string
		env                   []string
		cwd                   string
		want                  string // the rule named, "" for none
	}{
		{"no rules", "", "", nil, ws, ""},
		{"rule", deny, "", nil, ws, ws},
		{"below the rule", deny, "", nil, filepath.Join(ws, "sub"), ws},
		{"a longer rule trusts", `{` + q(ws) + `: "DO_NOT_TRUST", ` + q(filepath.Join(ws, "sub")) + `: "TRUST_FOLDER"}`, "", nil, filepath.Join(ws, "sub"), ""},
		{"env trusts", deny, "", []string{"GEMINI_CLI_TRUST_WORKSPACE=true"}, ws, ""},
		{"folder trust off", deny, `{"security": {"folderTrust": {"enabled": false}}}`, nil, ws, ""},
		{"ide may decide, none here", deny, `{"ide": {"enabled": true}}`, nil, ws, ws},
	} {
		d.put(t, tc.rules, tc.settings)
		rule, ok := distrustedByRule(user, append([]string{sys}, tc.env...), tc.cwd)
		if ok != (tc.want != "") || rule != tc.want && ok {
			t.Errorf("%s: distrustedByRule = %q %v, want %q", tc.name, rule, ok, tc.want)
		}
	}
}

// TestUndecided: a folder counts as undecided, where Gemini CLI 0.61
// asks and runs no settings hook until told to trust it, only when
// folder trust is on, no variable decides (IDE mode on with no IDE
// connected still asks), and a
// trustedFolders.json that reads (or none) holds no rule covering it.
func TestUndecided(t *testing.T) {
	d := newTrustDir(t)
	root, ws, user, sys := d.root, d.ws, d.user, d.sys
	q := strconv.Quote
	for _, tc := range []struct {
		name, rules, settings string
		env                   []string
		cwd                   string
		want                  bool
	}{
		{"no file", "", "", nil, ws, true},
		{"no rule for it", `{` + q(filepath.Join(root, "other")) + `: "TRUST_FOLDER"}`, "", nil, ws, true},
		{"trusted", `{` + q(ws) + `: "TRUST_FOLDER"}`, "", nil, ws, false},
		{"parent trusted", `{` + q(filepath.Join(ws, "sub")) + `: "TRUST_PARENT"}`, "", nil, ws, false},
		{"below a rule", `{` + q(ws) + `: "TRUST_FOLDER"}`, "", nil, filepath.Join(ws, "sub"), false},
		{"distrusted", `{` + q(ws) + `: "DO_NOT_TRUST"}`, "", nil, ws, false},
		{"file does not parse", `{` + q(ws) + `: "TRUST_FOLDER",}`, "", nil, ws, false},
		{"env trusts", "", "", []string{"GEMINI_CLI_TRUST_WORKSPACE=true"}, ws, false},
		{"env distrusts", "", "", []string{"GEMINI_CLI_TRUST_WORKSPACE=false"}, ws, false},
		{"restricted", "", "", []string{"GEMINI_RESTRICTED_MODE=true"}, ws, false},
		{"env empty", "", "", []string{"GEMINI_CLI_TRUST_WORKSPACE="}, ws, true},
		{"folder trust off", "", `{"security": {"folderTrust": {"enabled": false}}}`, nil, ws, false},
		{"ide may decide, none here", "", `{"ide": {"enabled": true}}`, nil, ws, true},
		{"no workspace", "", "", nil, "", false},
	} {
		d.put(t, tc.rules, tc.settings)
		if got := undecided(user, append([]string{sys}, tc.env...), tc.cwd); got != tc.want {
			t.Errorf("%s: undecided = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestLaunchUntrustedMCPNote: where Gemini CLI may not trust the working
// directory, exec names the views whose MCP servers it would not start
// there, and how to trust the folder; in a folder it is sure to trust, or
// for views without servers, it says nothing.
func TestLaunchUntrustedMCPNote(t *testing.T) {
	user := t.TempDir()
	os.MkdirAll(filepath.Join(user, ".gemini"), 0o700)
	withMCP := filepath.Join(t.TempDir(), "with")
	without := filepath.Join(t.TempDir(), "without")
	os.MkdirAll(withMCP, 0o700)
	os.MkdirAll(without, 0o700)
	os.WriteFile(filepath.Join(withMCP, "gemini-extension.json"), []byte(`{"name":"db","mcpServers":{"db":{"command":"bundlectl"}}}`), 0o600)
	os.WriteFile(filepath.Join(without, "gemini-extension.json"), []byte(`{"name":"lint"}`), 0o600)
	views := []hosts.BuiltView{{Bundle: "db", Dir: withMCP}, {Bundle: "lint", Dir: without}}
	base := []string{"HOME=" + user, "PATH=/bin", "GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(user, "none.json")}
	for _, tc := range []struct {
		name  string
		env   []string
		views []hosts.BuiltView
		want  bool
	}{
		{"untrusted", nil, views, true},
		{"trusted for the session", []string{"GEMINI_CLI_TRUST_WORKSPACE=true"}, views, false},
		{"no servers", nil, views[1:], false},
	} {
		s := hosts.NewSession(t.TempDir())
		l, err := Host{}.Launch(s, tc.views, []string{"gemini"}, append(slices.Clone(base), tc.env...))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		s.Remove()
		notes := strings.Join(l.Notes, "\n")
		got := strings.Contains(notes, "starts no MCP server")
		if got != tc.want {
			t.Errorf("%s: note %v, want %v: %s", tc.name, got, tc.want, notes)
		}
		if got && (!strings.Contains(notes, `the bundles "db" would not start`) || strings.Contains(notes, `"lint"`) || !strings.Contains(notes, "GEMINI_CLI_TRUST_WORKSPACE=true bundlectl exec -- gemini")) {
			t.Errorf("%s: the note names the wrong bundles or no fix: %s", tc.name, notes)
		}
	}
}

// TestLaunchSettingsMCPNotes: exec names a settings mcpServers entry of
// the same name as a view's server (which Gemini CLI merges over it), an
// mcp.excluded entry naming it and mcp.allowed lists leaving it out
// (internal/agenttest TestGeminiSettingsMCPOverView), each with its file;
// and says nothing of other names, or of allowed lists whose common part
// is empty (Gemini CLI then allows every server).
func TestLaunchSettingsMCPNotes(t *testing.T) {
	user := t.TempDir()
	dot := filepath.Join(user, ".gemini")
	os.MkdirAll(dot, 0o700)
	view := filepath.Join(t.TempDir(), "db")
	os.MkdirAll(view, 0o700)
	os.WriteFile(filepath.Join(view, "gemini-extension.json"), []byte(`{"name":"db","mcpServers":{"db":{"command":"bundlectl"}}}`), 0o600)
	views := []hosts.BuiltView{{Bundle: "db", Dir: view}}
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".gemini"), 0o700)
	t.Chdir(ws)
	wd, _ := os.Getwd()
	wsFile := filepath.Join(wd, ".gemini", "settings.json")
	base := []string{"HOME=" + user, "PATH=/bin", "GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(user, "none.json"), "GEMINI_CLI_TRUST_WORKSPACE=true"}
	userFile := filepath.Join(dot, "settings.json")
	for _, tc := range []struct {
		name            string
		user, workspace string   // system: the workspace's
		want            []string // in the notes; none when empty
		args            []string // the user's, after "gemini"
	}{
		{"nothing", `{"mcpServers": {"other": {"command": "x"}}, "mcp": {"excluded": ["other"], "allowed": ["db"]}}`, "", nil, nil},
		{"same name", `{"mcpServers": {"db": {"trust": true}}}`, "", []string{`the settings file "` + userFile + `" defines an MCP server "db", which Gemini CLI merges over the bundle "db"'s server`}, nil},
		{"excluded", `{"mcp": {"excluded": ["db"]}}`, "", []string{`the settings file "` + userFile + `" excludes the MCP server "db" (mcp.excluded)`}, nil},
		{"excluded by the workspace", "", `{"mcp": {"excluded": ["x", "db"]}}`, []string{`the settings file "` + wsFile + `" excludes the MCP server "db"`}, nil},
		{"allowed leaves it out", `{"mcp": {"allowed": ["other"]}}`, "", []string{`the mcp.allowed list of the settings file "` + userFile + `" leaves out the MCP server "db"`}, nil},
		{"allowed lists intersect without it", `{"mcp": {"allowed": ["db", "other"]}}`, `{"mcp": {"allowed": ["other"]}}`, []string{`the mcp.allowed list of the settings file "` + wsFile + `" leaves out`}, nil},
		{"allowed lists intersect to nothing", `{"mcp": {"allowed": ["a"]}}`, `{"mcp": {"allowed": ["b"]}}`, nil, nil},
		// --allowed-mcp-server-names (internal/agenttest
		// TestGeminiAllowedMCPServerNamesFlag).
		{"flag leaves it out", "", "", []string{`your --allowed-mcp-server-names list leaves out the MCP server "db": the bundle "db"'s server`}, []string{"--allowed-mcp-server-names", "other"}},
		{"flag, = form", "", "", []string{`your --allowed-mcp-server-names list leaves out the MCP server "db"`}, []string{"-p", "x", "--allowed-mcp-server-names=a,b"}},
		{"flag, camel case", "", "", []string{`your --allowed-mcp-server-names list leaves out the MCP server "db"`}, []string{"--allowedMcpServerNames", "a"}},
		{"flag, single empty value", "", "", []string{`your --allowed-mcp-server-names list leaves out the MCP server "db"`}, []string{"--allowed-mcp-server-names="}},
		{"flag names it", "", "", nil, []string{"--allowed-mcp-server-names", " a, db "}},
		{"flag repeated names it", "", "", nil, []string{"--allowed-mcp-server-names", "a", "--allowed-mcp-server-names=db"}},
		{"flag only commas", "", "", nil, []string{"--allowed-mcp-server-names", ","}},
		{"flag after --", "", "", nil, []string{"-p", "x", "--", "--allowed-mcp-server-names", "a"}},
		{"flag over mcp.excluded and mcp.allowed", `{"mcp": {"excluded": ["db"], "allowed": ["other"]}}`, "", nil, []string{"--allowed-mcp-server-names", "db"}},
		{"flag, merged entry still said", `{"mcpServers": {"db": {"trust": true}}}`, "", []string{`defines an MCP server "db"`}, []string{"--allowed-mcp-server-names", "db"}},
	} {
		os.Remove(userFile)
		os.Remove(wsFile)
		if tc.user != "" {
			os.WriteFile(userFile, []byte(tc.user), 0o600)
		}
		if tc.workspace != "" {
			os.WriteFile(wsFile, []byte(tc.workspace), 0o600)
		}
		s := hosts.NewSession(t.TempDir())
		l, err := Host{}.Launch(s, views, append([]string{"gemini"}, tc.args...), base)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		s.Remove()
		notes := strings.Join(l.Notes, "\n")
		if len(tc.want) == 0 && strings.Contains(notes, "MCP server") {
			t.Errorf("%s: an MCP note: %s", tc.name, notes)
		}
		for _, w := range tc.want {
			if !strings.Contains(notes, w) {
				t.Errorf("%s: the notes do not say %s: %s", tc.name, w, notes)
			}
		}
	}
}

// TestLaunchSharedServerNotes: a server name a view declares that another
// view or one of the user's own loaded extensions declares too is named
// (internal/agenttest TestGeminiSameServerTwoExtensions); with
// --exclusive the user's own are out, and a name only one declares is not
// named.
func TestLaunchSharedServerNotes(t *testing.T) {
	user := t.TempDir()
	ext := filepath.Join(user, ".gemini", "extensions")
	write := func(dir, body string) {
		os.MkdirAll(dir, 0o700)
		os.WriteFile(filepath.Join(dir, "gemini-extension.json"), []byte(body), 0o600)
	}
	write(filepath.Join(ext, "mine"), `{"name":"mine","version":"1","mcpServers":{"db":{"command":"x"},"own":{"command":"y"}}}`)
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	write(a, `{"name":"a","mcpServers":{"db":{"command":"bundlectl"},"solo":{"command":"bundlectl"}}}`)
	write(b, `{"name":"b","mcpServers":{"db":{"command":"bundlectl"}}}`)
	base := []string{"HOME=" + user, "PATH=/bin", "GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(user, "none.json"), "GEMINI_CLI_TRUST_WORKSPACE=true"}
	for _, tc := range []struct {
		name      string
		views     []hosts.BuiltView
		exclusive bool
		want      string
	}{
		{"two views and your own", []hosts.BuiltView{{Bundle: "a", Dir: a}, {Bundle: "b", Dir: b}}, false, `the MCP server "db" is declared by the bundle "a" and the bundle "b" and your own extension "mine"`},
		{"a view and your own", []hosts.BuiltView{{Bundle: "a", Dir: a}}, false, `the MCP server "db" is declared by the bundle "a" and your own extension "mine"`},
		{"exclusive", []hosts.BuiltView{{Bundle: "a", Dir: a}, {Bundle: "b", Dir: b}}, true, `the MCP server "db" is declared by the bundle "a" and the bundle "b":`},
		{"exclusive, one view", []hosts.BuiltView{{Bundle: "a", Dir: a}}, true, ""},
	} {
		s := hosts.NewSession(t.TempDir())
		l, err := launch(s, tc.views, []string{"gemini"}, base, tc.exclusive)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		s.Remove()
		notes := strings.Join(l.Notes, "\n")
		if tc.want == "" && strings.Contains(notes, "is declared by") || tc.want != "" && !strings.Contains(notes, tc.want) {
			t.Errorf("%s: notes %s, want %q", tc.name, notes, tc.want)
		}
		if strings.Contains(notes, `"solo"`) || strings.Contains(notes, `"own"`) {
			t.Errorf("%s: a server only one declares is named: %s", tc.name, notes)
		}
	}
}

// TestTrustRuleSpellings: bundlectl reads a trustedFolders.json rule as
// Gemini CLI 0.61 holds it, normalized against its working directory,
// not as written. Each verdict here is what Gemini CLI did with the same
// file (internal/agenttest TestGeminiTrustRuleSpellings): a rule's
// length is its normalized folder's ("/p/./././" is "/p", shorter than
// "/p/ws"), keys that name one folder are one rule with the level
// written last, TRUST_PARENT on "/p/other/" covers "/p", a relative key
// is resolved in the workspace, and a level Gemini CLI does not know or
// a file that is no object stops it at its start, where no rule is
// missing and none trusts.
func TestTrustRuleSpellings(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "p")
	ws := filepath.Join(p, "ws")
	os.MkdirAll(ws, 0o700)
	os.MkdirAll(filepath.Join(p, "other"), 0o700)
	if err := os.Symlink(ws, filepath.Join(p, "lnk")); err != nil {
		t.Skip(err)
	}
	user := filepath.Join(root, "user", ".gemini")
	os.MkdirAll(user, 0o700)
	for _, tc := range trustRuleSpellings {
		env := []string{"GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(root, "system.json"), tc.env}
		rules := strings.ReplaceAll(tc.rules, "@P", p)
		if err := os.WriteFile(filepath.Join(user, "trustedFolders.json"), []byte(rules), 0o600); err != nil {
			t.Fatal(err)
		}
		os.RemoveAll(filepath.Join(ws, ".gemini"))
		os.Remove(filepath.Join(user, "settings.json"))
		switch tc.name {
		case "folder trust off in the workspace":
			os.MkdirAll(filepath.Join(ws, ".gemini"), 0o700)
			os.WriteFile(filepath.Join(ws, ".gemini", "settings.json"), []byte(`{"security": {"folderTrust": {"enabled": false}}}`), 0o600)
		case "folder trust off for the user":
			os.WriteFile(filepath.Join(user, "settings.json"), []byte(`{"security": {"folderTrust": {"enabled": false}}}`), 0o600)
		case "folder trust off as the string false":
			os.WriteFile(filepath.Join(user, "settings.json"), []byte(`{"security": {"folderTrust": {"enabled": "false"}}}`), 0o600)
		}
		want := tc.want
		if tc.name == "other letter case" && (runtime.GOOS == "darwin" || runtime.GOOS == "windows") {
			want = "trusted" // Gemini CLI lowers the case of both there
		}
		if got := trustVerdict(user, env, ws); got != want {
			t.Errorf("%s: %s reads as %s, want %s (as Gemini CLI 0.61)", tc.name, rules, got, want)
		}
	}
}

// trustRuleSpellings are trustedFolders.json files, @P standing for the
// workspace's parent, with what Gemini CLI 0.61 did in the workspace
// @P/ws (internal/agenttest TestGeminiTrustRuleSpellings runs the same
// files: -p starts where trusted, stops with exit 55 where not, and with
// an error naming the file where it refuses it).
var trustRuleSpellings = []struct{ name, rules, want, env string }{
	{"dot segments make no rule longer", `{"@P/ws": "DO_NOT_TRUST", "@P/./././././././": "TRUST_FOLDER"}`, "distrusted", ""},
	{"dot segments make no rule longer, trust", `{"@P/ws": "TRUST_FOLDER", "@P/./././././././": "DO_NOT_TRUST"}`, "trusted", ""},
	{"one folder twice, the last wins", `{"@P/ws/": "TRUST_FOLDER", "@P/ws": "DO_NOT_TRUST"}`, "distrusted", ""},
	{"one folder twice, the last trusts", `{"@P/ws": "DO_NOT_TRUST", "@P/ws/": "TRUST_FOLDER"}`, "trusted", ""},
	{"a key written twice", `{"@P/ws": "TRUST_FOLDER", "@P/ws": "DO_NOT_TRUST"}`, "distrusted", ""},
	{"parent of a rule with a trailing slash", `{"@P/other/": "TRUST_PARENT"}`, "trusted", ""},
	{"relative key", `{".": "TRUST_FOLDER"}`, "trusted", ""},
	{"relative key up", `{"../ws": "DO_NOT_TRUST"}`, "distrusted", ""},
	{"unknown level", `{"@P/ws": "TRUST_FOLDER", "/x": "trust"}`, "refused", ""},
	{"level not a string", `{"/x": 1}`, "refused", ""},
	{"not an object", `null`, "refused", ""},
	{"no rule", `{}`, "undecided", ""},
	{"a symbolic link to it", `{"@P/lnk": "TRUST_FOLDER"}`, "trusted", ""},
	{"other letter case", `{"@P/WS": "TRUST_FOLDER"}`, "undecided", ""},
	{"root trusted, parent not", `{"/": "TRUST_FOLDER", "@P": "DO_NOT_TRUST"}`, "distrusted", ""},
	{"env TRUE", `{}`, "undecided", "GEMINI_CLI_TRUST_WORKSPACE=TRUE"},
	{"env 1", `{}`, "undecided", "GEMINI_CLI_TRUST_WORKSPACE=1"},
	{"folder trust off in the workspace", `{}`, "undecided", ""},
	{"folder trust off for the user", `{}`, "trusted", ""},
	// Gemini CLI makes the string "false" false in a file that passes its
	// schema (agenttest TestGeminiTrustRuleSpellings), a true string in
	// one that fails it anywhere (TestGeminiFolderTrustSettingForms):
	// bundlectl, which does not check the schema, takes either.
	{"folder trust off as the string false", `{}`, "undecided", ""},
}

// trustVerdict is how bundlectl reads cwd's trust: trusted,
// distrusted by a rule, undecided, or refused (none of them: Gemini CLI
// does not start).
func trustVerdict(user string, env []string, cwd string) string {
	if trustsFolder(user, env, cwd) {
		return "trusted"
	}
	if _, ok := distrustedByRule(user, env, cwd); ok {
		return "distrusted"
	}
	if undecided(user, env, cwd) {
		return "undecided"
	}
	return "refused"
}

// trustDir is a root holding a workspace ws (with a folder sub) and a
// user's .gemini directory, user; sys points Gemini CLI's system
// settings at a file that is not there.
type trustDir struct{ root, ws, user, sys string }

func newTrustDir(t *testing.T) trustDir {
	root := t.TempDir()
	d := trustDir{root: root, ws: filepath.Join(root, "ws"), user: filepath.Join(root, "user", ".gemini"),
		sys: "GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(root, "system.json")}
	for _, dir := range []string{filepath.Join(d.ws, "sub"), d.user} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// put writes the user's trustedFolders.json and settings.json for one
// case, removing either where it is "".
func (d trustDir) put(t *testing.T, rules, settings string) {
	for name, data := range map[string]string{"trustedFolders.json": rules, "settings.json": settings} {
		p := filepath.Join(d.user, name)
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if data != "" {
			if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
}
