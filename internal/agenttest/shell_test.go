package agenttest

import (
	"os"
	"path/filepath"
	"testing"
)

var hosts = []Host{Claude, Codex, GeminiCLI}

func TestMain(m *testing.M) {
	code := m.Run()
	CleanupFakeMCP()
	CleanupBundlectl()
	os.Exit(code)
}

// allowShell lets the host run its shell tool without asking.
func allowShell(a *Agent) {
	if a.Host == Claude {
		a.Args = append(a.Args, "--allowedTools", "Bash")
	}
}

// TestShellRuns: the stand-in's tool call makes the real agent run a shell
// command, which creates a marker file.
func TestShellRuns(t *testing.T) {
	for _, h := range hosts {
		t.Run(string(h), func(t *testing.T) {
			marker := filepath.Join(t.TempDir(), "marker")
			a := New(t, h, ShellCall(h, "touch "+marker), Say("made it"))
			allowShell(a)
			res := a.Run(t, "make the marker")
			if _, err := os.Stat(marker); err != nil {
				t.Fatalf("marker not created: %v\n%s\n%s", err, res, a.Model.Dump())
			}
			if len(a.Model.CallsAt(1)) == 0 {
				t.Fatalf("the tool result never reached the model\n%s\n%s", res, a.Model.Dump())
			}
			t.Logf("%s", res)
		})
	}
}
