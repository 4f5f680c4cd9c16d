package agenttest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeMegabyteEventBlocked: real Claude Code 2.1.332, set up by
// `bundlectl setup claude`, runs a Bash command of over 1 MiB whose
// guarded part — the marker the plugin's guard blocks — comes last,
// after a 1 MiB quoted string. Claude Code writes the whole PreToolUse
// event (over 1 MiB of JSON) to `bundlectl hooks run`, which must read
// it to its end, hand it whole to the guard from the snapshot, and
// block the command: the marker is not created, the guard's reason
// reaches the model. No real-host test sent an event this big before;
// the event reader was rewritten. (The test fails on what ran and what
// reached the model, not on a time.)
func TestClaudeMegabyteEventBlocked(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), markerName)
	pad := strings.Repeat("owl ", 1<<18) // 1 MiB
	command := ": '" + pad + "'; touch " + marker
	a := New(t, Claude, ShellCall(Claude, command), Say("done"))
	f := newTrustedFixture(t, a, marker)
	f.runSetup(t, a, "look up owl")
	res := a.Run(t, "look up owl")
	f.checkGuard(t, a, res, 0)
	event, err := os.ReadFile(filepath.Join(f.rec, "hook-stdin.json"))
	if err != nil {
		t.Fatalf("the guard recorded no event: %v\n%s", err, res)
	}
	if len(event) < len(command) || !bytes.Contains(event, []byte(pad)) || !bytes.Contains(event, []byte("touch "+marker)) {
		t.Errorf("the guard got an event of %d bytes, not the whole %d-byte command\n%s", len(event), len(command), res)
	}
	t.Logf("the guard got a PreToolUse event of %d bytes", len(event))
}
