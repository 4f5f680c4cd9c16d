package agenttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExecGeminiSandbox: with a container sandbox (here GEMINI_SANDBOX=docker,
// -s, or tools.sandbox in the settings), Gemini CLI 0.61 runs itself again
// in a container to which it gives the working directory and a copy of the
// user's settings.json alone: no extension directory, so no view and none
// of its guards would load there. A stand-in docker records what Gemini
// CLI asks of it (no image is pulled here). bundlectl exec refuses such a
// launch (hosts/gemini sandboxOff) and starts with --no-sandbox, which
// Gemini CLI takes over the settings.
func TestExecGeminiSandbox(t *testing.T) {
	t.Parallel()
	path, log, started := standInDocker(t)

	a := New(t, GeminiCLI, Say("done"))
	ext := filepath.Join(a.ConfigDir(), "extensions", "ext1")
	writeJSONFile(t, ext, "gemini-extension.json", map[string]any{"name": "ext1", "version": "1.0.0"})
	a.Env = []string{path}
	a.Settings = map[string]any{"tools": map[string]any{"sandbox": true}}
	res := a.Run(t, "hello")
	data, _ := os.ReadFile(log)
	run := ""
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "docker run ") {
			run = l
		}
	}
	if run == "" {
		t.Fatalf("Gemini CLI did not start a docker sandbox\n%s\n%s", res, data)
	}
	if strings.Contains(run, a.ConfigDir()) || strings.Contains(run, ext) || strings.Contains(run, a.Home) {
		t.Errorf("the container is given the user's extensions after all: %s", run)
	}
	if !strings.Contains(run, "--volume "+a.Workdir+":") {
		t.Errorf("the container is not given the working directory: %s", run)
	}

	marker := filepath.Join(t.TempDir(), markerName)
	a = New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+marker), Say("done"))
	f := newTrustedFixture(t, a, marker)
	a.Launcher = f.launcher(t)
	for _, tc := range []struct {
		name     string
		env      []string
		args     []string
		settings map[string]any
	}{
		{"env", []string{path, "GEMINI_SANDBOX=docker"}, nil, nil},
		{"flag", []string{path}, []string{"-s"}, nil},
		{"settings", []string{path}, nil, map[string]any{"tools": map[string]any{"sandbox": true}}},
	} {
		os.Remove(log)
		a.Env, a.Args, a.Settings = tc.env, tc.args, tc.settings
		res := a.Run(t, "tell me about owls")
		if res.Exit != 1 || len(a.Model.Requests()) > 0 || !strings.Contains(res.Stderr, "sandbox, which sees the working directory and your settings but no extension") {
			t.Errorf("%s: exec did not refuse (exit %d, %d model requests)\n%s", tc.name, res.Exit, len(a.Model.Requests()), res)
		}
		if started() {
			data, _ := os.ReadFile(log)
			t.Errorf("%s: a container was started: %s", tc.name, data)
		}
	}
	a.Env, a.Args, a.Settings = []string{path}, []string{"--no-sandbox"}, map[string]any{"tools": map[string]any{"sandbox": true}}
	res = a.Run(t, "tell me about owls")
	if res.Exit != 0 {
		t.Fatalf("exec with --no-sandbox: %s", res)
	}
	f.checkGuard(t, a, res, 0)
}
