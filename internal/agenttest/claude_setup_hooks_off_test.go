package agenttest

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestSetupClaudeDisableAllHooks: with setup's hook lines in the user's
// settings.json and "disableAllHooks" beside them set to anything but
// false — true, and also "true", 1 or even "false" — Claude Code 2.1.332
// runs no guard and the guarded command runs, saying nothing. So setup
// refuses to write the lines under that switch, and list, for a switch
// turned on after setup, says the lines do not run. Setup once compared
// with true alone and said all was wired beside the others.
func TestSetupClaudeDisableAllHooks(t *testing.T) {
	for _, v := range []any{true, "true", 1, "false"} {
		marker := t.TempDir() + "/" + markerName
		a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
		f := newTrustedFixture(t, a, marker)
		f.runSetup(t, a, "owls")
		a.Settings["disableAllHooks"] = v
		a.Command(t, "owls") // writes the settings as the session reads them
		a.Args = append(a.Args, "--allowedTools", "Bash")
		res := a.Run(t, "touch the marker")
		if _, err := os.Stat(marker); err != nil {
			t.Fatalf("disableAllHooks %#v: the guarded command did not run: this test's premise no longer holds\n%s", v, res)
		}
		text, _ := json.Marshal(v)
		env := setupEnv(a)
		out, errOut, err := BundlectlEnv(t, f.home, env, "--workspace", f.ws, "list")
		if err != nil || !strings.Contains(errOut, `sets "disableAllHooks": `+string(text)+`, which keeps claude from running them`) {
			t.Errorf("disableAllHooks %#v: list did not say the lines do not run: %v\n%s%s", v, err, out, errOut)
		}
		out, errOut, err = BundlectlEnv(t, f.home, env, "--workspace", f.ws, "setup", "claude")
		if err == nil || !strings.Contains(errOut, "so setup wrote nothing") {
			t.Errorf("setup under disableAllHooks %#v: %v\n%s%s", v, err, out, errOut)
		}
	}
}
