package agenttest

import (
	"path/filepath"
	"testing"
)

// TestExecGeminiExtensionsDash: yargs-parser reads -e- as -e with the
// value "-", so Gemini CLI 0.61 loads only an extension named "-": exec
// must put the views in that list too, or their guards would not run.
func TestExecGeminiExtensionsDash(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), markerName)
	a := New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+marker), Say("done"))
	f := newTrustedFixture(t, a, marker)
	a.Launcher = f.launcher(t)
	a.Args = []string{"-e-"}
	res := a.Run(t, "tell me about owls")
	f.checkGuard(t, a, res, 0)
}
