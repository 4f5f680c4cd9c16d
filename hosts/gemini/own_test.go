package gemini

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/harness"
	"github.com/bundlectl/bundlectl/hosts"
	"github.com/bundlectl/bundlectl/inventory"
)

// TestExtensionsArgs: the -e/--extensions arguments as Gemini CLI's
// parser (yargs-parser) reads them, and the list it makes of them
// (coerceCommaSeparated).
func TestExtensionsArgs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{nil, nil},
		{[]string{"-p", "hi"}, nil},
		{[]string{"-e", "a"}, []string{"a"}},
		{[]string{"-e", "a, b", "--extensions", "c"}, []string{"a", "b", "c"}},
		{[]string{"-e=a", "--extensions=b", "--e=c", "--e", "d"}, []string{"a", "b", "c", "d"}},
		{[]string{"-ye", "a"}, []string{"a"}},     // a short group ending in e
		{[]string{"-ye=a"}, []string{"a"}},        // = inside a group
		{[]string{"-e", "-p", "x"}, nil},          // no value: Gemini CLI refuses it
		{[]string{"-e a"}, []string{"a"}},         // one argument: e, then a non-word character: the rest is its value
		{[]string{"-e", ""}, []string{""}},        // one empty value enables nothing
		{[]string{"--extensions="}, []string{""}}, // so does this
		{[]string{"-e", "", "-e", "a"}, []string{"a"}},
		{[]string{"-e", "none"}, []string{"none"}},
		{[]string{"-p", "x", "--", "-e", "a"}, nil}, // the prompt's
		{[]string{"query", "-e", "a"}, []string{"a"}},
		{[]string{"--extension", "a", "-m", "e"}, nil}, // neither is -e
		{[]string{"-", "-e", "a"}, []string{"a"}},      // "-" alone is positional
		{[]string{"-e-"}, []string{"-"}},               // e takes a lone "-" after it: only "-" loads
		{[]string{"-ye-", "a"}, []string{"-"}},
	} {
		got := extensionsList(extensionsArgs(tc.args))
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: list %q, want %q", tc.args, got, tc.want)
		}
	}
	if a := extensionsArgs([]string{"-p", "x", "-e", "Own"}); len(a) != 1 || a[0].Arg != "-e Own" {
		t.Errorf("written as %+v", a)
	}
}

// TestSelects: "none" alone enables nothing; otherwise the names, in any
// case.
func TestSelects(t *testing.T) {
	for _, tc := range []struct {
		list []string
		name string
		want bool
	}{
		{[]string{"none"}, "none", false},
		{[]string{"NONE"}, "x", false},
		{[]string{"none", "x"}, "x", true},
		{[]string{"X"}, "x", true},
		{[]string{""}, "x", false},
		{[]string{"y"}, "x", false},
	} {
		if got := selects(tc.list, tc.name); got != tc.want {
			t.Errorf("selects(%q, %q) = %v", tc.list, tc.name, got)
		}
	}
}

// TestEnablement: extension-enablement.json's rules as Gemini CLI reads
// them: the last that matches the working directory decides, "/p/*"
// covers p and below, "/p/" p alone; the name is matched as written; a
// file of another shape is ignored whole (everything enabled).
func TestEnablement(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, enablementFile)
	os.WriteFile(p, []byte(`{
		"sub":   {"overrides": ["!/w/*"]},
		"exact": {"overrides": ["!/w/"]},
		"back":  {"overrides": ["!/*", "/w/p/*"]},
		"glob":  {"overrides": ["!/w/*/deep/*"]},
		"dot":   {"overrides": ["!/w.x/*"]},
		"extra": {"overrides": [], "note": 1},
		"case":  {"overrides": [], "Overrides": ["!/*"], "OVERRIDES": ["!/*"]}
	}`), 0o600)
	en := readEnablement(p)
	for _, tc := range []struct {
		name, cwd string
		want      bool
	}{
		{"sub", "/w", false}, {"sub", "/w/p", false}, {"sub", "/wx", true},
		{"exact", "/w", false}, {"exact", "/w/p", true},
		{"back", "/w/p/q", true}, {"back", "/w", false},
		{"glob", "/w/a/deep/b", false}, {"glob", "/w/a/shallow", true},
		{"dot", "/wax", true}, {"dot", "/w.x/y", false},
		{"Sub", "/w", true}, // another name
		{"extra", "/w", true},
		// Gemini CLI's schema reads "overrides" by its exact name; an
		// "Overrides" after it once decided here, so an extension Gemini
		// CLI loaded was taken for one it does not, and not named
		{"case", "/w", true},
		{"unlisted", "/w", true},
	} {
		if got := en.enabled(tc.name, tc.cwd); got != tc.want {
			t.Errorf("%s in %s: enabled %v, want %v", tc.name, tc.cwd, got, tc.want)
		}
	}
	for _, bad := range []string{`{"sub": {"overrides": "!/w/*"}}`, `{"sub": {}}`, `{"sub": {"Overrides": ["!/w/*"]}}`, `{"sub": ["!/w/*"]}`, `{"sub": {"overrides": [1]}}`, `[]`, `null`, `{`} {
		os.WriteFile(p, []byte(bad), 0o600)
		if !readEnablement(p).enabled("sub", "/w") {
			t.Errorf("%s: not ignored whole", bad)
		}
	}
}

// TestOwnExtensions: an entry loads when it is a directory (or a link to
// one) whose manifest — or, for a link record, its source's — has a name
// Gemini CLI accepts and a version; the name is the manifest's.
func TestOwnExtensions(t *testing.T) {
	ext := t.TempDir()
	src := t.TempDir()
	write := func(rel, data string) {
		p := filepath.Join(ext, rel)
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte(data), 0o600)
	}
	write("dir-a/gemini-extension.json", `{"name": "alpha", "version": "1"}`)
	write("noversion/gemini-extension.json", `{"name": "nov"}`)
	write("zero/gemini-extension.json", `{"name": "zero", "version": 0}`)
	write("under/gemini-extension.json", `{"name": "un_der", "version": "1"}`)
	write("nomanifest/README", ``)
	write("linked/"+installMetadataFile, `{"type": "link", "source": "`+src+`"}`)
	os.WriteFile(filepath.Join(src, "gemini-extension.json"), []byte(`{"name": "from-src", "version": "2"}`), 0o600)
	write("badlink/"+installMetadataFile, `{"type": "link", "source": "`+filepath.Join(src, "gone")+`"}`)
	write("badlink/gemini-extension.json", `{"name": "local-copy", "version": "1"}`)
	// Gemini CLI reads the record's "type" by its exact name: this is no
	// link, and it loads the directory's own manifest (bundlectl once read
	// "Type" and named the source's extension, a name Gemini CLI never
	// loads, so a view of that name would not have displaced it).
	write("notlink/"+installMetadataFile, `{"type": "local", "Type": "link", "source": "`+src+`"}`)
	write("notlink/gemini-extension.json", `{"name": "its-own", "version": "1"}`)
	write(enablementFile, `{}`)
	os.Symlink(filepath.Join(ext, "dir-a"), filepath.Join(ext, "symlinked"))
	own, err := ownExtensions(ext)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range own {
		got = append(got, o.entry+"="+o.name)
	}
	want := []string{"dir-a=alpha", "linked=from-src", "notlink=its-own", "symlinked=alpha"}
	if !slices.Equal(got, want) {
		t.Errorf("own extensions %q, want %q", got, want)
	}
	if own, err := ownExtensions(filepath.Join(ext, "missing")); err != nil || own != nil {
		t.Errorf("a missing directory: %v %v", own, err)
	}
}

// ownHome is a user's .gemini with own extensions: "theirs" (enabled),
// "off" (disabled for every directory), "agentguard" (a bundle's name).
func ownHome(t *testing.T) (user, dot string) {
	t.Helper()
	user = t.TempDir()
	dot = filepath.Join(user, ".gemini")
	for _, n := range []string{"theirs", "off", "agentguard"} {
		d := filepath.Join(dot, "extensions", n)
		os.MkdirAll(d, 0o700)
		os.WriteFile(filepath.Join(d, "gemini-extension.json"), []byte(`{"name": "`+n+`", "version": "1"}`), 0o600)
	}
	os.WriteFile(filepath.Join(dot, "extensions", enablementFile), []byte(`{"off": {"overrides": ["!/*"]}}`), 0o600)
	os.WriteFile(filepath.Join(dot, "settings.json"), []byte(`{}`), 0o600)
	os.MkdirAll(filepath.Join(user, ".agents", "skills"), 0o700)
	os.WriteFile(filepath.Join(user, ".env"), []byte("GEMINI_API_KEY=k\n"), 0o600)
	return user, dot
}

func sessionHome(t *testing.T, l *hosts.Launch) string {
	t.Helper()
	for _, kv := range l.Env {
		if v, ok := strings.CutPrefix(kv, "GEMINI_CLI_HOME="); ok {
			return v
		}
	}
	t.Fatalf("no GEMINI_CLI_HOME in %q", l.Env)
	return ""
}

// TestLaunchNamesOwn: without --exclusive each own extension that loads
// is named, in one line of the shape every host uses; a disabled one, and
// one a bundle of the same name replaces, are not; a -e list decides
// instead of the enablement file, and gets the views added to it.
func TestLaunchNamesOwn(t *testing.T) {
	user, _ := ownHome(t)
	view := t.TempDir()
	env := []string{"HOME=" + user}
	note := func(n string) string {
		return `gemini: your own extension "` + n + `" loads beside the views, never reviewed by bundlectl (bundlectl exec --exclusive -- gemini keeps it out)`
	}
	for _, tc := range []struct {
		args  []string
		named []string
		argv  []string
	}{
		{nil, []string{"theirs"}, []string{"gemini"}},
		{[]string{"-e", "OFF"}, []string{"off"}, []string{"gemini", "--extensions=agentguard", "-e", "OFF"}},
		{[]string{"-e", "none"}, nil, []string{"gemini", "--extensions=agentguard", "-e", "none"}},
		{[]string{"-e", "agentguard,theirs"}, []string{"theirs"}, []string{"gemini", "-e", "agentguard,theirs"}},
	} {
		s := hosts.NewSession(t.TempDir())
		l, err := launch(s, []hosts.BuiltView{{Bundle: "agentguard", Dir: view}}, append([]string{"gemini"}, tc.args...), env, false)
		if err != nil {
			t.Fatal(err)
		}
		s.Remove()
		var named []string
		for _, n := range l.Notes {
			for _, o := range []string{"theirs", "off", "agentguard"} {
				if n == note(o) {
					named = append(named, o)
				}
			}
		}
		if !slices.Equal(named, tc.named) || !slices.Equal(l.Argv, tc.argv) {
			t.Errorf("%q: named %q, argv %q; want %q, %q\nnotes: %q", tc.args, named, l.Argv, tc.named, tc.argv, l.Notes)
		}
	}
	// No view: Gemini CLI starts as it is, and the note still names them.
	l, err := launch(hosts.NewSession(t.TempDir()), nil, []string{"gemini"}, env, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Notes) != 2 || l.Notes[0] != note("agentguard") || l.Notes[1] != note("theirs") || l.Cleanup != nil || !slices.Equal(l.Env, env) {
		t.Errorf("without views: %+v", l)
	}
}

// TestLaunchExclusive: with --exclusive the session's extensions
// directory holds the views alone — even with no view at all — and the
// user's own extensions directory is untouched; a -e naming an own
// extension is refused as a usage error that names it, one naming a view
// is not, and a -e list gets the views.
func TestLaunchExclusive(t *testing.T) {
	user, dot := ownHome(t)
	view := t.TempDir()
	env := []string{"HOME=" + user}
	for _, views := range [][]hosts.BuiltView{{{Bundle: "guard", Dir: view}}, nil} {
		s := hosts.NewSession(t.TempDir())
		l, err := launch(s, views, []string{"gemini", "-p", "x"}, env, true)
		if err != nil {
			t.Fatal(err)
		}
		ents, _ := os.ReadDir(filepath.Join(sessionHome(t, l), ".gemini", "extensions"))
		var got []string
		for _, e := range ents {
			got = append(got, e.Name())
		}
		want := []string(nil)
		if len(views) > 0 {
			want = []string{"guard"}
		}
		if !slices.Equal(got, want) || len(l.Notes) != 0 {
			t.Errorf("views %v: the session's extensions are %q, want %q; notes %q", views, got, want, l.Notes)
		}
		if target, _ := os.Readlink(filepath.Join(sessionHome(t, l), ".gemini", "settings.json")); target != filepath.Join(dot, "settings.json") {
			t.Errorf("the user's settings are not linked: %q", target)
		}
		if target, _ := os.Readlink(filepath.Join(sessionHome(t, l), ".agents")); target != filepath.Join(user, ".agents") {
			t.Errorf("the user's .agents (skills) is not linked: %q", target)
		}
		if target, _ := os.Readlink(filepath.Join(sessionHome(t, l), ".env")); target != filepath.Join(user, ".env") {
			t.Errorf("the user's .env (which Gemini CLI loads from its home) is not linked: %q", target)
		}
		s.Remove()
	}
	s := hosts.NewSession(t.TempDir())
	defer s.Remove()
	_, err := launch(s, []hosts.BuiltView{{Bundle: "guard", Dir: view}}, []string{"gemini", "-p", "x", "--extensions=guard,Theirs"}, env, true)
	var ae *hosts.ArgumentError
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), `the argument "--extensions=guard,Theirs" names your own extension "theirs"`) || ae.Hint() != "bundlectl exec --exclusive -- gemini" {
		t.Errorf("a -e naming an own extension: %v", err)
	} else if !slices.Equal(ae.Args, []int{2}) {
		t.Errorf("the refused argument's indexes: %v, want [2] (exec's hint repeats the command without it)", ae.Args)
	}
	// A short group's other letters are other options: no hint can drop it.
	_, err = launch(s, []hosts.BuiltView{{Bundle: "guard", Dir: view}}, []string{"gemini", "-ye", "theirs"}, env, true)
	if !errors.As(err, &ae) || ae.Args != nil {
		t.Errorf("-ye naming an own extension: %v (args %v), want an ArgumentError without indexes", err, ae.Args)
	}
	// agentguard is a bundle's name too: -e selects the view.
	l, err := launch(s, []hosts.BuiltView{{Bundle: "agentguard", Dir: view}, {Bundle: "guard", Dir: view}}, []string{"gemini", "-e", "agentguard"}, env, true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(l.Argv, []string{"gemini", "--extensions=guard", "-e", "agentguard"}) {
		t.Errorf("argv %q", l.Argv)
	}
	if ents, _ := os.ReadDir(filepath.Join(dot, "extensions")); len(ents) != 4 {
		t.Errorf("the user's extensions directory changed: %v", ents)
	}
}

// TestViewName: a bundle whose name Gemini CLI would refuse as an
// extension's (an "_" or a ".") gets no view, and a note, rather than a
// view Gemini CLI skips with its hooks.
func TestViewName(t *testing.T) {
	for name, loads := range map[string]bool{"repo-guard": true, "Repo9": true, "repo_guard": false, "repo.guard": false} {
		inv := &inventory.Inventory{Hooks: []inventory.Hook{{ID: "h1", Event: "BeforeTool", Type: "command", Command: "x", Hosts: []string{"gemini"}}}}
		b := hosts.NewBundle(harness.ActiveBundle{Name: name, Inventory: inv}, "gemini")
		v, err := Host{}.View(b, re)
		if err != nil {
			t.Fatal(err)
		}
		noted := strings.Contains(strings.Join(b.Notes, "\n"), "not loaded into gemini")
		if v.Empty() == loads || noted == loads {
			t.Errorf("%s: view empty %v, noted %v; want it to load: %v", name, v.Empty(), noted, loads)
		}
	}
}

// FuzzExtensionsArgs: no argument list makes the -e reader panic, and
// every name it returns is trimmed and holds no comma.
func FuzzExtensionsArgs(f *testing.F) {
	for _, s := range []string{"-e\x00a", "-\x00-e", "-ye=a,b", "--extensions=\x00-e\x00 x ", "-e a", "-", "--", "-\u00e9e\x00x", "-e=\x00-5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, n := range extensionsList(extensionsArgs(strings.Split(s, "\x00"))) {
			if n != "" && (n != strings.TrimSpace(n) || strings.Contains(n, ",")) {
				t.Errorf("%q: name %q", s, n)
			}
		}
	})
}

// TestManifestServersExactName: the servers an extension's manifest
// declares are those of "mcpServers", the name Gemini CLI reads; encoding/json
// also merged in an "MCPServers" written after it.
func TestManifestServersExactName(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "gemini-extension.json"), []byte(`{"name":"x","version":"1","mcpServers":{"a":{"command":"a"}},"MCPServers":{"b":{"command":"b"}}}`), 0o600)
	if got := manifestServers(dir); !slices.Equal(got, []string{"a"}) {
		t.Errorf("servers %q, want [a]", got)
	}
}
