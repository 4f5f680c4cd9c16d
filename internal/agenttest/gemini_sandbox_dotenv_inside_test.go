package agenttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeminiDotEnvSandboxInside: Gemini CLI 0.61 reads SANDBOX (which
// tells it it is inside a sandbox already) after it has loaded the .env
// file, so a SANDBOX there keeps a GEMINI_SANDBOX container from being
// started, in a trusted folder; in one it does not trust it loads only the
// API key variables from a .env, GEMINI_SANDBOX neither, and no container
// starts. bundlectl exec lets the first start (the guard runs). It
// refuses the second, a headless (-p) session that --skip-trust starts in
// a folder no rule trusts: Gemini CLI reads the .env again, trusted, when
// it checks the auth method, and a GEMINI_SANDBOX alone there would start
// a container (TestGeminiSkipTrustDotEnvSandbox); here SANDBOX keeps it
// out, but bundlectl is not sure of that. It lets through only a session
// surely untrusted (GEMINI_RESTRICTED_MODE, GEMINI_CLI_TRUST_WORKSPACE=false,
// or -p without --skip-trust: hosts/gemini TestSandboxDotEnvInside), and
// refuses an interactive one, as the folder may be trusted in the
// session: Gemini CLI asks, then starts itself again, loading the whole
// file.
func TestGeminiDotEnvSandboxInside(t *testing.T) {
	t.Parallel()
	path, log, started := standInDocker(t)
	marker := filepath.Join(t.TempDir(), markerName)
	a := New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+marker), Say("done"))
	writeFile(t, a.Workdir, ".env", "GEMINI_SANDBOX=docker\nSANDBOX=outer-container\n", 0o644)
	a.Env = []string{path}
	res := a.Run(t, "hello")
	if started() {
		t.Fatalf("Gemini CLI started a container although SANDBOX is set in .env\n%s", res)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("Gemini CLI did not run the command in place\n%s", res)
	}
	os.Remove(marker)

	// Untrusted: no rule trusts the folder, --skip-trust starts the session.
	a.Env = []string{path, "GEMINI_CLI_TRUST_WORKSPACE="}
	a.Args = []string{"--skip-trust"}
	os.Remove(log)
	res = a.Run(t, "hello")
	if started() {
		t.Fatalf("untrusted folder: Gemini CLI started a container from the .env's GEMINI_SANDBOX\n%s", res)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("untrusted folder: Gemini CLI did not run the command in place\n%s", res)
	}
	os.Remove(marker)

	a = New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+marker), Say("done"))
	f := newTrustedFixture(t, a, marker)
	a.Launcher = f.launcher(t)
	writeFile(t, a.Workdir, ".env", "GEMINI_SANDBOX=docker\nSANDBOX=outer-container\n", 0o644)
	a.Env = []string{path}
	os.Remove(log)
	res = a.Run(t, "tell me about owls")
	if started() {
		t.Errorf("bundlectl exec: a container was started\n%s", res)
	}
	f.checkGuard(t, a, res, 0)

	a.Env = []string{path, "GEMINI_CLI_TRUST_WORKSPACE="}
	a.Args = []string{"--skip-trust"}
	os.Remove(log)
	os.Remove(filepath.Join(f.rec, "hook-argv.txt"))
	res = a.Run(t, "tell me about owls")
	if res.Exit != 1 || started() || !strings.Contains(res.Stderr, "GEMINI_SANDBOX=docker") {
		t.Errorf("bundlectl exec in an untrusted folder, headless, --skip-trust: not refused (container started %v)\n%s", started(), res)
	}
}
