package gemini

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/hosts"
)

// TestSandboxArgs: the -s/--sandbox arguments are read as yargs-parser
// reads a boolean (internal/agenttest TestGeminiSandboxArgSpellings tries
// them with the real CLI): a short group and --s turn it on, a value other
// than "true" and a following "false" turn it off, the last one decides.
func TestSandboxArgs(t *testing.T) {
	bin := fakeDockerDir(t)
	env := []string{"PATH=" + bin, "GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(bin, "none.json")}
	user := t.TempDir()
	for _, tc := range []struct {
		args []string
		at   []int // the refused argument's indexes; nil: not refused
	}{
		{[]string{"-s", "-p", "hi"}, []int{0}},
		{[]string{"-ds", "-p", "hi"}, []int{0}},
		{[]string{"-sd", "-p", "hi"}, []int{0}},
		{[]string{"-p", "hi", "--s"}, []int{2}},
		{[]string{"-s=true"}, []int{0}},
		{[]string{"--sandbox", "true", "-p", "hi"}, []int{0, 1}},
		{[]string{"--sandbox=true"}, []int{0}},
		{[]string{"--sandbox=docker"}, nil},
		{[]string{"--sandbox", "false"}, nil},
		{[]string{"-s", "false"}, nil},
		{[]string{"-s=docker"}, nil},
		{[]string{"-s", "--no-s"}, nil},
		{[]string{"--no-sandbox", "-ds"}, []int{1}},
		{[]string{"-p", "hi", "--", "-s"}, nil},
		{[]string{"-d"}, nil},
	} {
		err := sandboxOff(user, env, tc.args, "")
		var off *hosts.HooksOffError
		switch {
		case tc.at == nil && err != nil:
			t.Errorf("%q: refused: %v", tc.args, err)
		case tc.at != nil && (!errors.As(err, &off) || !slices.Equal(off.Args, tc.at)):
			t.Errorf("%q: %v, want a refusal of the arguments %v", tc.args, err, tc.at)
		}
	}
}

// TestSandboxSettingsMerged: tools.sandbox is merged across the settings
// layers as Gemini CLI merges them, an object key by key: a system file
// that names the command does not hide the user's enabled, and a launch in
// a working directory that is gone does not panic.
func TestSandboxSettingsMerged(t *testing.T) {
	bin := fakeDockerDir(t)
	sys := filepath.Join(bin, "none.json")
	user := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		upper, lower string
		refused      bool
	}{
		{`{"tools": {"sandbox": {"command": "docker"}}}`, `{"tools": {"sandbox": {"enabled": true}}}`, true},
		{`{"tools": {"sandbox": {"networkAccess": false}}}`, `{"tools": {"sandbox": {"enabled": true, "command": "podman"}}}`, true},
		{`{"tools": {"sandbox": {"enabled": false}}}`, `{"tools": {"sandbox": {"enabled": true, "command": "docker"}}}`, false},
		{`{"tools": {"sandbox": false}}`, `{"tools": {"sandbox": "docker"}}`, false},
		{`{"tools": {"sandbox": {"enabled": true}}}`, `{"tools": {"sandbox": "lxc"}}`, true},
		{`{"tools": {"sandbox": {"enabled": true, "command": ""}}}`, `{}`, false},
		{`{"tools": {"sandbox": {"enabled": true, "command": 1}}}`, `{}`, false},
		{`{"tools": 1}`, `{"tools": {"sandbox": "docker"}}`, false},
	} {
		// The user's settings sit above the system defaults.
		write(filepath.Join(user, "settings.json"), tc.upper)
		write(filepath.Join(bin, "system-defaults.json"), tc.lower)
		layers := []string{"", filepath.Join(user, "settings.json"), filepath.Join(bin, "system-defaults.json")}
		v, files := mergedSandbox(layers)
		c := sandboxCommand(sandboxValue(v), []string{"PATH=" + bin})
		if got := containerSandboxes[c]; got != tc.refused {
			t.Errorf("%s over %s: merged %v from %v, sandbox %q; container %v, want %v", tc.upper, tc.lower, v, files, c, got, tc.refused)
		}
	}

	// A working directory that is gone leaves three layers.
	dir := t.TempDir()
	gone := filepath.Join(dir, "gone")
	if err := os.Mkdir(gone, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Chdir(gone)
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(user, "settings.json"), `{"tools": {"sandbox": "docker"}}`)
	err := sandboxOff(user, []string{"PATH=" + bin, "GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + sys}, nil, "")
	if err == nil || !strings.Contains(err.Error(), `"tools": {"sandbox": "docker"}`) {
		t.Errorf("in a working directory that is gone: %v", err)
	}
	if trustsFolder(user, []string{"PATH=" + bin, "GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + sys}, workingDir()) {
		t.Errorf("a working directory that is gone is trusted")
	}
}

// TestSandboxDotEnv: a GEMINI_SANDBOX from the .env file Gemini CLI loads
// counts as the variable, unless the environment sets it (even empty);
// the hint sets it empty for the session (internal/agenttest
// TestGeminiSandboxDotEnv tries it with the real CLI).
func TestSandboxDotEnv(t *testing.T) {
	bin := fakeDockerDir(t)
	user, ws := t.TempDir(), t.TempDir() // user: the user's .gemini
	t.Chdir(ws)
	env := []string{"PATH=" + bin, "GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(bin, "none.json")}
	for _, tc := range []struct {
		file, text string
		env        []string
		refused    bool
	}{
		{".env", "A=1\nexport GEMINI_SANDBOX = 'podman' # here\n", nil, true},
		{".env", "GEMINI_SANDBOX=docker\nGEMINI_SANDBOX=false\n", nil, false},
		{".env", "GEMINI_SANDBOX=docker\n", []string{"GEMINI_SANDBOX="}, false},
		{".gemini/.env", "GEMINI_SANDBOX: true\n", nil, true},
		{"../user/.env", "GEMINI_SANDBOX=\"runsc\"\n", nil, true},
		{".env", "# GEMINI_SANDBOX=docker\n", nil, false},
	} {
		os.RemoveAll(filepath.Join(ws, ".env"))
		os.RemoveAll(filepath.Join(ws, ".gemini"))
		os.RemoveAll(filepath.Join(user, ".env"))
		p := filepath.Join(ws, tc.file)
		if strings.HasPrefix(tc.file, "../user/") {
			p = filepath.Join(user, ".env")
		}
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(tc.text), 0o600); err != nil {
			t.Fatal(err)
		}
		err := sandboxOff(user, append(slices.Clone(env), tc.env...), nil, "")
		var off *hosts.HooksOffError
		switch {
		case !tc.refused && err != nil:
			t.Errorf("%s %q: refused: %v", tc.file, tc.text, err)
		case tc.refused && (!errors.As(err, &off) || off.SetEnv != "GEMINI_SANDBOX=" || !strings.Contains(err.Error(), "the .env file "+`"`+p+`"`)):
			t.Errorf("%s %q: %v, want a refusal naming the file", tc.file, tc.text, err)
		}
	}
}

// TestSandboxHomeDotEnv: the .env in the user's home, which the session
// home links and Gemini CLI loads when no folder from the working
// directory up has one, counts too.
func TestSandboxHomeDotEnv(t *testing.T) {
	bin := fakeDockerDir(t)
	home, ws := filepath.Join(t.TempDir(), "home"), filepath.Join(t.TempDir(), "work")
	user := filepath.Join(home, ".gemini")
	os.MkdirAll(user, 0o700)
	os.MkdirAll(ws, 0o700)
	t.Chdir(ws)
	p := filepath.Join(home, ".env")
	if err := os.WriteFile(p, []byte("GEMINI_API_KEY=k\nGEMINI_SANDBOX=docker\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := sandboxOff(user, []string{"PATH=" + bin, "GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(bin, "none.json")}, nil, "")
	if err == nil || !strings.Contains(err.Error(), "the .env file "+`"`+p+`"`) {
		t.Errorf("GEMINI_SANDBOX in the home's .env: %v, want a refusal naming the file", err)
	}
}

// TestSandboxDotEnvInside: a SANDBOX in the .env file lets a launch
// through only when Gemini CLI surely loads it (internal/agenttest
// TestGeminiDotEnvSandboxInside): in a trusted folder, from the file both
// picks load, not excluded by advanced.excludedEnvVars; GEMINI_SANDBOX is
// still read from a .env Gemini CLI may load.
func TestSandboxDotEnvInside(t *testing.T) {
	bin := fakeDockerDir(t)
	home, ws := filepath.Join(t.TempDir(), "home"), filepath.Join(t.TempDir(), "work")
	user := filepath.Join(home, ".gemini")
	os.MkdirAll(user, 0o700)
	os.MkdirAll(filepath.Join(ws, ".gemini"), 0o700)
	t.Chdir(ws)
	base := []string{"PATH=" + bin, "GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(bin, "none.json")}
	trusted := append(slices.Clone(base), "GEMINI_CLI_TRUST_WORKSPACE=true")
	for _, tc := range []struct {
		name    string
		files   map[string]string // relative to ws; ~/ for home
		env     []string
		refused bool
		args    []string
	}{
		{"trusted, SANDBOX in .env", map[string]string{".env": "GEMINI_SANDBOX=docker\nSANDBOX=outer\n"}, trusted, false, nil},
		{"trusted, SANDBOX empty", map[string]string{".env": "GEMINI_SANDBOX=docker\nSANDBOX=\n"}, trusted, true, nil},
		{"not surely trusted", map[string]string{".env": "GEMINI_SANDBOX=docker\nSANDBOX=outer\n"}, base, true, nil},
		// dotenv ends a line at a CR too, and JavaScript's \s takes a BOM
		// (TestGeminiDotEnvSpellings).
		{"a BOM before the name", map[string]string{".env": "\ufeffGEMINI_SANDBOX=docker\n"}, base, true, nil},
		{"a BOM after the value", map[string]string{".env": "GEMINI_SANDBOX=docker\ufeff\n"}, base, true, nil},
		{"lines ended by CR", map[string]string{".env": "FOO=1\rGEMINI_SANDBOX=docker\r"}, base, true, nil},
		// Surely untrusted: Gemini CLI loads only the API keys from a .env.
		{"untrusted by the environment", map[string]string{".env": "GEMINI_SANDBOX=docker\n"}, append(slices.Clone(trusted), "GEMINI_RESTRICTED_MODE=true"), false, nil},
		{"untrusted by GEMINI_CLI_TRUST_WORKSPACE=false", map[string]string{"~/.env": "GEMINI_SANDBOX=docker\n"}, append(slices.Clone(base), "GEMINI_CLI_TRUST_WORKSPACE=false"), false, []string{"-i", "hi"}},
		{"headless, no rule", map[string]string{".env": "GEMINI_SANDBOX=docker\n"}, base, false, []string{"-p", "hi"}},
		// --skip-trust: Gemini CLI reads the .env again, trusted, before
		// it decides on a sandbox (TestGeminiSkipTrustDotEnvSandbox).
		{"headless, --skip-trust", map[string]string{".env": "GEMINI_SANDBOX=docker\n"}, base, true, []string{"--skip-trust", "-p", "hi"}},
		{"headless, --skipTrust=true", map[string]string{".env": "GEMINI_SANDBOX=docker\n"}, base, true, []string{"-p", "hi", "--skipTrust=true"}},
		{"GEMINI_CLI_TRUST_WORKSPACE=false, --skip-trust", map[string]string{".env": "GEMINI_SANDBOX=docker\n"}, append(slices.Clone(base), "GEMINI_CLI_TRUST_WORKSPACE=false"), true, []string{"--skip-trust", "-p", "hi"}},
		{"restricted, --skip-trust", map[string]string{".env": "GEMINI_SANDBOX=docker\n"}, append(slices.Clone(base), "GEMINI_RESTRICTED_MODE=true"), false, []string{"--skip-trust", "-p", "hi"}},
		{"headless, --no-skip-trust", map[string]string{".env": "GEMINI_SANDBOX=docker\n"}, base, true, []string{"--no-skip-trust", "-p", "hi"}},
		{"headless, DO_NOT_TRUST", map[string]string{".env": "GEMINI_SANDBOX=docker\n", "~/.gemini/trustedFolders.json": `{"WS": "DO_NOT_TRUST"}`}, base, false, []string{"--prompt", "hi"}},
		{"headless, --prompt=hi", map[string]string{".env": "GEMINI_SANDBOX=docker\n"}, base, false, []string{"--prompt=hi"}},
		{"headless, CI=true", map[string]string{".env": "GEMINI_SANDBOX=docker\n"}, append(slices.Clone(base), "CI=true"), false, []string{"hi"}},
		// Not sure: an interactive session may trust the folder and start again.
		{"a positional prompt in a terminal", map[string]string{".env": "GEMINI_SANDBOX=docker\n"}, base, true, []string{"hi"}},
		{"--prompt= empty", map[string]string{".env": "GEMINI_SANDBOX=docker\n"}, base, true, []string{"--prompt="}},
		{"-p with --promptInteractive", map[string]string{".env": "GEMINI_SANDBOX=docker\n"}, base, true, []string{"-p", "", "--promptInteractive", "hi"}},
		{"-p with --acp", map[string]string{".env": "GEMINI_SANDBOX=docker\n"}, base, true, []string{"--acp", "-p", "hi"}},
		{"interactive, no rule", map[string]string{".env": "GEMINI_SANDBOX=docker\n"}, base, true, []string{"-i", "hi"}},
		{"-p with -i", map[string]string{".env": "GEMINI_SANDBOX=docker\n"}, base, true, []string{"-p", "hi", "-i", "hi"}},
		{"headless, trusted by a rule", map[string]string{".env": "GEMINI_SANDBOX=docker\n", "~/.gemini/trustedFolders.json": `{"WS": "TRUST_FOLDER"}`}, base, true, []string{"-p", "hi"}},
		{"headless, trust rules unreadable", map[string]string{".env": "GEMINI_SANDBOX=docker\n", "~/.gemini/trustedFolders.json": `{`}, base, true, []string{"-p", "hi"}},
		{"excluded", map[string]string{".env": "GEMINI_SANDBOX=docker\nSANDBOX=outer\n", "~/.gemini/settings.json": `{"advanced": {"excludedEnvVars": ["SANDBOX"]}}`}, trusted, true, nil},
		// "$X" is filled in from the environment before the lists merge.
		{"excluded by a variable", map[string]string{".env": "GEMINI_SANDBOX=docker\nSANDBOX=outer\n", "~/.gemini/settings.json": `{"advanced": {"excludedEnvVars": ["$X"]}}`}, append(slices.Clone(trusted), "X=SANDBOX"), true, nil},
		// A string over a replaced "advanced" is includes()'s substring test.
		{"excluded by a substring", map[string]string{".env": "GEMINI_SANDBOX=docker\nSANDBOX=outer\n", "~/.gemini/settings.json": `{"advanced": 1}`, ".gemini/settings.json": `{"advanced": {"excludedEnvVars": "NOSANDBOXES"}}`}, trusted, true, nil},
		// GEMINI_SANDBOX surely kept out of the folder's file starts none.
		{"GEMINI_SANDBOX excluded", map[string]string{".env": "GEMINI_SANDBOX=docker\n", "~/.gemini/settings.json": `{"advanced": {"excludedEnvVars": ["GEMINI_SANDBOX"]}}`}, base, false, nil},
		// An entry of another type fails Gemini CLI's schema, and the file
		// is used as written: the list still keeps GEMINI_SANDBOX out
		// (TestGeminiEnvSettingsForms link-gemini-target, where a 5 beside
		// GEMINI_RESTRICTED_MODE left the exclusion standing).
		{"GEMINI_SANDBOX excluded beside a number", map[string]string{".env": "GEMINI_SANDBOX=docker\n", "~/.gemini/settings.json": `{"advanced": {"excludedEnvVars": ["GEMINI_SANDBOX", 5]}}`}, base, false, nil},
		{"GEMINI_SANDBOX excluded, but from .gemini/.env", map[string]string{".gemini/.env": "GEMINI_SANDBOX=docker\n", "~/.gemini/settings.json": `{"advanced": {"excludedEnvVars": ["GEMINI_SANDBOX"]}}`}, base, true, nil},
		{"excluded, but from .gemini/.env", map[string]string{".gemini/.env": "GEMINI_SANDBOX=docker\nSANDBOX=outer\n", "~/.gemini/settings.json": `{"advanced": {"excludedEnvVars": ["SANDBOX"]}}`}, trusted, false, nil},
		// --ignore-env skips the working directory's .env for the home's.
		{"the picks differ, no --ignore-env", map[string]string{".env": "SANDBOX=outer\n", "~/.env": "GEMINI_SANDBOX=docker\n"}, trusted, false, nil},
		{"the picks differ", map[string]string{".env": "SANDBOX=outer\n", "~/.env": "GEMINI_SANDBOX=docker\n"}, trusted, true, []string{"--ignore-env"}},
		{"the picks differ, ignoreLocalEnv", map[string]string{".env": "SANDBOX=outer\n", "~/.env": "GEMINI_SANDBOX=docker\n", "~/.gemini/settings.json": `{"advanced": {"ignoreLocalEnv": true}}`}, trusted, true, nil},
		// In a file that fails the schema the string "false" is on
		// (TestGeminiEnvSettingsForms invalid-false-string).
		{"the picks differ, ignoreLocalEnv \"false\"", map[string]string{".env": "SANDBOX=outer\n", "~/.env": "GEMINI_SANDBOX=docker\n", "~/.gemini/settings.json": `{"advanced": {"ignoreLocalEnv": "false", "excludedEnvVars": 5}}`}, trusted, true, nil},
		{"--ignore-env after --", map[string]string{".env": "SANDBOX=outer\n", "~/.env": "GEMINI_SANDBOX=docker\n"}, trusted, false, []string{"--", "--ignore-env"}},
		{"the picks differ in value", map[string]string{".env": "GEMINI_SANDBOX=docker\nSANDBOX=\n", "~/.env": "SANDBOX=outer\n"}, trusted, true, []string{"--ignore-env"}},
		{"both picks", map[string]string{".env": "SANDBOX=outer\n", "~/.env": "GEMINI_SANDBOX=docker\nSANDBOX=outer\n"}, trusted, false, []string{"--ignore-env"}},
		{"the environment sets it empty", map[string]string{".env": "GEMINI_SANDBOX=docker\nSANDBOX=outer\n"}, append(slices.Clone(trusted), "SANDBOX="), true, nil},
	} {
		for _, p := range []string{filepath.Join(ws, ".env"), filepath.Join(ws, ".gemini", ".env"), filepath.Join(ws, ".gemini", "settings.json"), filepath.Join(home, ".env"), filepath.Join(user, "settings.json"), filepath.Join(user, "trustedFolders.json")} {
			os.Remove(p)
		}
		for name, text := range tc.files {
			p := filepath.Join(ws, name)
			if rest, ok := strings.CutPrefix(name, "~/"); ok {
				p = filepath.Join(home, rest)
			}
			if err := os.WriteFile(p, []byte(strings.ReplaceAll(text, "WS", realPath(ws))), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		err := sandboxOff(user, tc.env, tc.args, "")
		if tc.refused != (err != nil) {
			t.Errorf("%s: refused %v, want %v (%v)", tc.name, err != nil, tc.refused, err)
		}
	}
}

// fakeDockerDir is a directory holding an executable "docker", for a PATH
// in which Gemini CLI would find a container runtime.
func fakeDockerDir(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "docker"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestSandboxSessionHomeDotEnv: under exec Gemini CLI reads the user's
// ~/.env through the session home's link, at a path under bundlectl's
// views directory, and keeps advanced.excludedEnvVars out of no file
// whose path holds ".gemini": with that directory under one, the home's
// GEMINI_SANDBOX=docker an exclusion names still starts a container, so
// the launch is refused; elsewhere the exclusion holds.
func TestSandboxSessionHomeDotEnv(t *testing.T) {
	bin := fakeDockerDir(t)
	root := t.TempDir()
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "work")
	user := filepath.Join(home, ".gemini")
	os.MkdirAll(ws, 0o700)
	t.Chdir(ws)
	writeTestFile(t, filepath.Join(home, ".env"), "GEMINI_SANDBOX=docker\n")
	writeTestFile(t, filepath.Join(user, "settings.json"), `{"advanced": {"excludedEnvVars": ["GEMINI_SANDBOX"]}}`)
	writeTestFile(t, filepath.Join(user, "trustedFolders.json"), `{"`+realPath(ws)+`": "TRUST_FOLDER"}`)
	env := []string{"HOME=" + home, "PATH=" + bin + ":/usr/bin:/bin", "GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(bin, "none.json")}
	view := t.TempDir()
	for _, tc := range []struct {
		views   string
		refused bool
	}{
		{filepath.Join(root, "data", "bundlectl", "views"), false},
		{filepath.Join(home, ".gemini-tools", "bundlectl", "views"), true},
	} {
		os.MkdirAll(tc.views, 0o700)
		s := hosts.NewSession(tc.views)
		_, err := launch(s, []hosts.BuiltView{{Bundle: "guard", Dir: view, Hooks: true}}, []string{"gemini"}, env, true)
		s.Remove()
		if refused := err != nil; refused != tc.refused {
			t.Errorf("views in %s: refused %v, want %v (%v)", tc.views, refused, tc.refused, err)
		}
	}
}
