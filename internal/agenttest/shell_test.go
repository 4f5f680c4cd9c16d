package agenttest

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

var hosts = []Host{Claude, Codex, GeminiCLI}

// defaultParallel is how many of this package's tests run at once when
// go test is given no -parallel (whose default is GOMAXPROCS, 2 on CI):
// a real-CLI test spends most of its time waiting (on node's start, on
// the stand-ins, on a host's own timeouts), not on a core.
const defaultParallel = 6

func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", strconv.Itoa(defaultParallel))
	}
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
	t.Parallel()
	for _, h := range hosts {
		t.Run(string(h), func(t *testing.T) {
			t.Parallel()
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
