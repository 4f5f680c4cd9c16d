package agenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetupClaudeCowork: under CLAUDE_CODE_USE_COWORK_PLUGINS Claude Code
// 2.1.332 reads the user's cowork_settings.json instead of settings.json
// (TestClaudeGuardSwitches' cowork cases), so hook lines setup wrote into
// settings.json never ran and the guarded command did. Setup, run in the
// same environment, writes them where Claude Code reads them, and the
// guard blocks.
func TestSetupClaudeCowork(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), markerName)
	a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
	f := newTrustedFixture(t, a, marker)
	const cowork = "CLAUDE_CODE_USE_COWORK_PLUGINS=1"
	a.Env = append(a.Env, cowork)
	a.Command(t, "owls") // the agent's own offline settings.json
	if out, errOut, err := BundlectlEnv(t, f.home, append(setupEnv(a), cowork), "--workspace", f.ws, "setup", "claude"); err != nil {
		t.Fatalf("bundlectl setup claude: %v\n%s%s", err, out, errOut)
	}
	// The launcher rewrites settings.json from Settings at each run: hand
	// it whatever setup wrote there, so that lines setup put there stay.
	if data, err := os.ReadFile(filepath.Join(a.ConfigDir(), "settings.json")); err == nil {
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		a.Settings = m
	}
	data, _ := os.ReadFile(filepath.Join(a.ConfigDir(), "cowork_settings.json"))
	if !strings.Contains(string(data), "hooks run PreToolUse --host claude") {
		t.Errorf("cowork_settings.json holds no hook line of setup's:\n%s", data)
	}
	a.Args = append(a.Args, "--allowedTools", "Bash")
	res := a.Run(t, "touch the marker")
	f.checkBlockedFromSnapshot(t, a, res)
}
