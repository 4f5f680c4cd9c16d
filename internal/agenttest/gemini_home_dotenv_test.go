package agenttest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGeminiHomeDotEnv: Gemini CLI 0.61 loads the .env in its home
// (GEMINI_CLI_HOME, else HOME) when no folder from the working directory
// up has one (its findEnvFile), as users keep an API key there. Under
// bundlectl exec its home is the session's, which links the user's .env,
// so the file still loads when the working directory is outside the home.
func TestGeminiHomeDotEnv(t *testing.T) {
	t.Parallel()
	run := func(t *testing.T, exec bool) string {
		out := filepath.Join(t.TempDir(), "seen.txt")
		a := New(t, GeminiCLI, ShellCall(GeminiCLI, `printf %s "$AGENTTEST_DOTENV" > `+out), Say("done"))
		writeFile(t, a.Home, ".env", "AGENTTEST_DOTENV=from-home-dotenv\n", 0o600)
		if exec {
			f := newTrustedFixture(t, a, filepath.Join(t.TempDir(), markerName))
			a.Launcher = f.launcher(t)
		}
		res := a.Run(t, "hello")
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatalf("the shell command did not run: %v\n%s", err, res)
		}
		return string(data)
	}
	if got := run(t, false); got != "from-home-dotenv" {
		t.Fatalf("Gemini CLI alone: the home's .env gave %q, want it loaded", got)
	}
	if got := run(t, true); got != "from-home-dotenv" {
		t.Errorf("under bundlectl exec: the home's .env gave %q, want it loaded as without exec", got)
	}
}
