package agenttest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestClaudeSettingsEmpty: Claude Code 2.1.332 reads an empty user
// settings.json, or one of white space only, as {}: setup wires into it,
// and its lines run. setup once refused one of white space as a file
// Claude Code ignores.
func TestClaudeSettingsEmpty(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"", " \n\t\n"} {
		marker := t.TempDir() + "/" + markerName
		a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
		f := newTrustedFixture(t, a, marker)
		a.SettingsFile = []byte(text)
		a.Command(t, "owls") // writes the file as text
		if out, errOut, err := BundlectlEnv(t, f.home, setupEnv(a), "--workspace", f.ws, "setup", "claude"); err != nil {
			t.Fatalf("%q: setup refused: %v\n%s%s", text, err, out, errOut)
		}
		wrote, err := os.ReadFile(filepath.Join(a.ConfigDir(), "settings.json"))
		if err != nil {
			t.Fatal(err)
		}
		a.SettingsFile = wrote
		a.Args = append(a.Args, "--allowedTools", "Bash")
		res := a.Run(t, "touch the marker")
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%q: the guarded command ran: setup's lines did not\n%s", text, res)
		}
	}
}
