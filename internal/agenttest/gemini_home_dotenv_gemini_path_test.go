package agenttest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGeminiHomeDotEnvGeminiPath: Gemini CLI 0.61 keeps
// advanced.excludedEnvVars out of no .env whose path, as it writes it
// (its home joined with .env), holds ".gemini": with GEMINI_CLI_HOME
// named through a link whose name holds one, an excluded
// GEMINI_RESTRICTED_MODE=true in ~/.env stops a -p session as untrusted
// (exit 55), as it does not with the home named plainly
// (TestGeminiDotEnvExcluded home-env); setup refuses. Under exec the
// user's ~/.env is read through the session home, under bundlectl's
// views directory: hosts/gemini TestSandboxSessionHomeDotEnv.
func TestGeminiHomeDotEnvGeminiPath(t *testing.T) {
	t.Parallel()
	a, _ := dotEnvHooksSession(t, "~/.env", "GEMINI_RESTRICTED_MODE=true", map[string]any{
		"advanced": map[string]any{"excludedEnvVars": []any{"GEMINI_RESTRICTED_MODE"}},
	})
	link := filepath.Join(t.TempDir(), "x.gemini-home")
	if err := os.Symlink(a.Home, link); err != nil {
		t.Fatal(err)
	}
	a.Env = []string{"GEMINI_CLI_TRUST_WORKSPACE=", "GEMINI_CLI_HOME=" + link}
	res := a.Run(t, "hello")
	if res.Exit != 55 {
		t.Fatalf("Gemini CLI did not stop untrusted (exit 55)\n%s", res)
	}
	f := newTrustedFixture(t, a, filepath.Join(t.TempDir(), markerName))
	senv := append(setupEnv(a), "GEMINI_CLI_TRUST_WORKSPACE=", "GEMINI_CLI_HOME="+link)
	if _, errOut, err := BundlectlEnv(t, f.home, senv, "--workspace", f.ws, "setup", "gemini"); err == nil {
		t.Errorf("setup wired, want refused\n%s", errOut)
	}
}
