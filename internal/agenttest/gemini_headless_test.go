package agenttest

import (
	"os"
	"os/exec"
	"slices"
	"testing"
)

// TestGeminiHeadlessSpellings: what makes Gemini CLI 0.61 headless (its
// isHeadlessMode: CI=true or GITHUB_ACTIONS=true, stdin or stdout not a
// terminal, a -p/--prompt value, or a literal -p/--prompt argument), so
// that it shows no trust dialog and, in a folder no rule trusts, never
// loads the workspace's .env beyond the API keys: a GEMINI_SANDBOX there
// starts no container. In a terminal: --prompt=hello, and a positional
// prompt with CI=true; with stdin not a terminal: a positional prompt
// alone. hosts/gemini headless counts each.
func TestGeminiHeadlessSpellings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		pty  bool
		args func(prompt string) []string // after Command's argv without "-p prompt"
		env  []string
		want bool // a container starts
	}{
		// The control: a trusted folder loads the whole .env.
		{"trusted-control-in-a-terminal", true, func(p string) []string { return []string{"--prompt=" + p} }, []string{"GEMINI_CLI_TRUST_WORKSPACE=true"}, true},
		{"prompt-equals-in-a-terminal", true, func(p string) []string { return []string{"--prompt=" + p} }, nil, false},
		{"positional-with-CI-in-a-terminal", true, func(p string) []string { return []string{p} }, []string{"CI=true"}, false},
		{"positional-piped", false, func(p string) []string { return []string{p} }, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path, log, started := standInDocker(t)
			a := New(t, GeminiCLI, Say("done"))
			writeFile(t, a.Workdir, ".env", "GEMINI_SANDBOX=docker\n", 0o644)
			a.Env = append([]string{path, "GEMINI_CLI_TRUST_WORKSPACE="}, tc.env...) // the last wins
			argv, env := a.Command(t, "hello")
			if argv[len(argv)-2] != "-p" {
				t.Fatalf("agenttest: unexpected gemini command %q", argv)
			}
			argv = append(slices.Clone(argv[:len(argv)-2]), tc.args("hello")...)
			os.Remove(log)
			if tc.pty {
				runPty(t, a, argv, append(env, "TERM=xterm-256color"), []string{"Do you trust"}, started)
			} else {
				cmd := exec.Command(argv[0], argv[1:]...)
				cmd.Env, cmd.Dir = env, a.Workdir
				cmd.Stdin = nil // /dev/null
				out, _ := cmd.CombinedOutput()
				t.Logf("%s", out)
			}
			if started() != tc.want {
				t.Fatalf("%s: a container started: %v, want %v", tc.name, started(), tc.want)
			}
		})
	}
}
