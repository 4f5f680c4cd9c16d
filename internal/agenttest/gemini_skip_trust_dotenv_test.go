package agenttest

import (
	"os"
	"testing"
)

// TestGeminiSkipTrustDotEnvSandbox: Gemini CLI 0.61 reads the .env file
// twice: when it loads its settings (untrusted folder: only the API key
// variables) and again when it checks the auth method, headless
// (validateNonInteractiveAuth) as interactive, after --skip-trust has set
// GEMINI_CLI_TRUST_WORKSPACE=true: then the whole file loads, and a
// GEMINI_SANDBOX there starts a container, before the folder trust check.
// --skip-trust overwrites a GEMINI_CLI_TRUST_WORKSPACE=false of the
// environment too. A -p session with --skip-trust in a folder no rule trusts is therefore
// not one where the .env's GEMINI_SANDBOX surely stays out (hosts/gemini
// distrusts).
func TestGeminiSkipTrustDotEnvSandbox(t *testing.T) {
	t.Parallel()
	path, log, started := standInDocker(t)
	a := New(t, GeminiCLI, Say("done"))
	writeFile(t, a.Workdir, ".env", "GEMINI_SANDBOX=docker\n", 0o644)
	a.Env = []string{path, "GEMINI_CLI_TRUST_WORKSPACE="}
	a.Args = []string{"--skip-trust"}
	os.Remove(log)
	res := a.Run(t, "hello")
	if !started() {
		t.Fatalf("-p --skip-trust in an untrusted folder: no container started from the .env's GEMINI_SANDBOX\n%s", res)
	}
	// --skip-trust overwrites GEMINI_CLI_TRUST_WORKSPACE=false as well.
	a.Env = []string{path, "GEMINI_CLI_TRUST_WORKSPACE=false"}
	os.Remove(log)
	res = a.Run(t, "hello")
	if !started() {
		t.Fatalf("-p --skip-trust with GEMINI_CLI_TRUST_WORKSPACE=false: no container started\n%s", res)
	}
	a.Env = []string{path, "GEMINI_CLI_TRUST_WORKSPACE="}
	// Without --skip-trust the file is read untrusted both times: no
	// container (the session then stops: the folder is not trusted).
	a.Args = nil
	os.Remove(log)
	res = a.Run(t, "hello")
	if started() {
		t.Fatalf("-p in an untrusted folder: a container started\n%s", res)
	}
}
