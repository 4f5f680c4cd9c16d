package agenttest

import (
	"github.com/bundlectl/bundlectl/internal/testtree"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeminiSandboxArgSpellings: Gemini CLI 0.61 parses -s/--sandbox with
// yargs as a boolean, so a short group (-ds), the alias written long
// (--s) and -s=true turn the container sandbox on too, and --sandbox=docker
// or "--sandbox false" turn it off (a boolean's value is true only when
// written "true"). It merges tools.sandbox across its settings files key
// by key, so the user's {"command": "docker"} over the system defaults'
// {"enabled": true} is a docker sandbox. A stand-in docker records whether
// Gemini CLI started a container; bundlectl exec refuses exactly the
// launches that start one.
func TestGeminiSandboxArgSpellings(t *testing.T) {
	t.Parallel()
	path, log, started := standInDocker(t)
	sandbox := map[string]any{"tools": map[string]any{"sandbox": "docker"}}
	defaults := filepath.Join(testtree.RootOwnedDir(t), "system-defaults.json")
	if err := os.WriteFile(defaults, []byte(`{"tools": {"sandbox": {"enabled": true}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args      []string
		settings  map[string]any
		container bool
		defaults  bool // GEMINI_CLI_SYSTEM_DEFAULTS_PATH is the file above
	}{
		{[]string{"-ds"}, nil, true, false},
		{nil, map[string]any{"tools": map[string]any{"sandbox": map[string]any{"command": "docker"}}}, true, true},
		{[]string{"--s"}, nil, true, false},
		{[]string{"-s=true"}, nil, true, false},
		{[]string{"--sandbox=docker"}, sandbox, false, false},
		{[]string{"--sandbox", "false"}, sandbox, false, false},
		{[]string{"-s", "false"}, sandbox, false, false},
		{[]string{"--no-s"}, sandbox, false, false},
	} {
		env := []string{path}
		if tc.defaults {
			env = append(env, "GEMINI_CLI_SYSTEM_DEFAULTS_PATH="+defaults)
		}
		os.Remove(log)
		a := New(t, GeminiCLI, Say("done"))
		a.Env, a.Args, a.Settings = env, tc.args, tc.settings
		res := a.Run(t, "hello")
		if started() != tc.container {
			t.Errorf("gemini %q: container started %v, want %v\n%s", tc.args, started(), tc.container, res)
		}

		marker := filepath.Join(t.TempDir(), markerName)
		a = New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+marker), Say("done"))
		f := newTrustedFixture(t, a, marker)
		a.Launcher = f.launcher(t)
		os.Remove(log)
		a.Env, a.Args, a.Settings = env, tc.args, tc.settings
		res = a.Run(t, "tell me about owls")
		refused := res.Exit == 1 && strings.Contains(res.Stderr, "sandbox, which sees the working directory and your settings but no extension")
		if refused != tc.container || started() {
			t.Errorf("bundlectl exec -- gemini %q: refused %v, want %v (container started %v)\n%s", tc.args, refused, tc.container, started(), res)
		}
		if !refused {
			f.checkGuard(t, a, res, 0)
		}
	}
}

// TestGeminiSandboxDotEnv: Gemini CLI 0.61 loads a .env file (the
// workspace's .gemini/.env or .env, a parent's, or the home directory's)
// into its environment before it decides on a sandbox, so a repository's
// .env with GEMINI_SANDBOX=docker runs it in a container as the variable
// would. bundlectl exec refuses that launch too, and GEMINI_SANDBOX set
// empty, as its hint sets it, keeps the file's out.
func TestGeminiSandboxDotEnv(t *testing.T) {
	t.Parallel()
	path, log, started := standInDocker(t)
	a := New(t, GeminiCLI, Say("done"))
	writeFile(t, a.Workdir, ".env", "# the project's\nexport GEMINI_SANDBOX = \"Docker\" # a container\n", 0o644)
	a.Env = []string{path}
	res := a.Run(t, "hello")
	if !started() {
		t.Fatalf("Gemini CLI did not start a container for GEMINI_SANDBOX in .env\n%s", res)
	}

	marker := filepath.Join(t.TempDir(), markerName)
	a = New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+marker), Say("done"))
	f := newTrustedFixture(t, a, marker)
	a.Launcher = f.launcher(t)
	writeFile(t, a.Workdir, ".env", "# the project's\nexport GEMINI_SANDBOX = \"Docker\" # a container\n", 0o644)
	a.Env = []string{path}
	os.Remove(log)
	res = a.Run(t, "tell me about owls")
	if res.Exit != 1 || started() || !strings.Contains(res.Stderr, `.env", which sets GEMINI_SANDBOX=Docker`) {
		t.Errorf("bundlectl exec with GEMINI_SANDBOX in .env: not refused (container started %v)\n%s", started(), res)
	}

	// The user's ~/.gemini/.env, which exec's session home links, counts
	// too: Gemini CLI looks for one in its home when no folder has one.
	os.Remove(filepath.Join(a.Workdir, ".env"))
	writeFile(t, a.ConfigDir(), ".env", "GEMINI_SANDBOX=docker\n", 0o644)
	os.Remove(log)
	res = a.Run(t, "tell me about owls")
	if res.Exit != 1 || started() || !strings.Contains(res.Stderr, `.gemini/.env", which sets GEMINI_SANDBOX=docker`) {
		t.Errorf("bundlectl exec with GEMINI_SANDBOX in ~/.gemini/.env: not refused (container started %v)\n%s", started(), res)
	}
	a.Env = []string{path, "GEMINI_SANDBOX="}
	res = a.Run(t, "tell me about owls")
	if started() {
		t.Errorf("GEMINI_SANDBOX set empty: a container was started\n%s", res)
	}
	f.checkGuard(t, a, res, 0)
}

// standInDocker puts a docker in front of PATH that records what it is
// asked in log: path is the PATH assignment, started whether a container
// was run since log was last removed.
func standInDocker(t *testing.T) (path, log string, started func() bool) {
	bin := t.TempDir()
	log = filepath.Join(t.TempDir(), "docker.log")
	writeFile(t, bin, "docker", "#!/bin/sh\necho \"docker $*\" >> "+shellQuote(log)+"\ncase \"$1\" in images) echo abc123;; esac\nexit 0\n", 0o755)
	return "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), log, func() bool {
		data, _ := os.ReadFile(log)
		return strings.Contains(string(data), "docker run ")
	}
}
