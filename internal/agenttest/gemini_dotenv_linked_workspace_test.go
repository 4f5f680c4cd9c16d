package agenttest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGeminiDotEnvLinkedWorkspace: Gemini CLI 0.61 walks up for its .env
// from its working directory as the kernel gives it, links resolved, so
// in a workspace named through a link a GEMINI_RESTRICTED_MODE=true in
// the .env of the real folder's parent (no parent of the link) stops a
// -p session as untrusted (exit 55), though rules trust both spellings;
// setup given the link's path must refuse and list say off (hosts/gemini
// TestDotEnvLinkedWorkspace).
func TestGeminiDotEnvLinkedWorkspace(t *testing.T) {
	t.Parallel()
	a := New(t, GeminiCLI, Say("done"))
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real, link := filepath.Join(root, "proj", "ws"), filepath.Join(root, "ln")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "proj"), ".env", "GEMINI_RESTRICTED_MODE=true\n", 0o644)
	a.Workdir = link
	a.Settings = map[string]any{}
	writeJSONFile(t, a.ConfigDir(), "trustedFolders.json", map[string]any{real: "TRUST_FOLDER", link: "TRUST_FOLDER"})
	a.Env = []string{"GEMINI_CLI_TRUST_WORKSPACE="}
	res := a.Run(t, "hello")
	if res.Exit != 55 {
		t.Fatalf("Gemini CLI did not stop untrusted (exit 55)\n%s", res)
	}
	f := newTrustedFixture(t, a, filepath.Join(t.TempDir(), markerName))
	senv := append(setupEnv(a), "GEMINI_CLI_TRUST_WORKSPACE=")
	if _, errOut, err := BundlectlEnv(t, f.home, senv, "--workspace", link, "setup", "gemini"); err == nil {
		t.Errorf("setup --workspace %s wired, want refused\n%s", link, errOut)
	}
}
