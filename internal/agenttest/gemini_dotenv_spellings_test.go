package agenttest

import (
	"os"
	"testing"
)

// TestGeminiDotEnvSpellings: Gemini CLI 0.61 reads a .env file with the
// dotenv package, which ends a line at a lone CR as at LF and whose
// pattern's \s (JavaScript's) takes a byte order mark: a GEMINI_SANDBOX
// after either starts a container in a trusted folder
// (hosts/gemini dotEnvParse reads both the same way).
func TestGeminiDotEnvSpellings(t *testing.T) {
	t.Parallel()
	path, log, started := standInDocker(t)
	for name, text := range map[string]string{
		"BOM": "\ufeffGEMINI_SANDBOX=docker\n",
		"CR":  "FOO=1\rGEMINI_SANDBOX=docker\r",
	} {
		a := New(t, GeminiCLI, Say("done"))
		writeFile(t, a.Workdir, ".env", text, 0o644)
		a.Env = []string{path}
		os.Remove(log)
		res := a.Run(t, "hello")
		if !started() {
			t.Errorf("%s: no container started from the .env's GEMINI_SANDBOX\n%s", name, res)
		}
	}
}
