package agenttest

import (
	"os"
	"strings"
	"testing"
)

// TestSetupClaudeDisableAllHooks: with setup's hook lines in the user's
// settings.json and "disableAllHooks": true beside them, Claude Code
// 2.1.332 runs no guard and the guarded command runs, saying nothing. So
// setup refuses to write the lines under that switch, and list, for a
// switch turned on after setup, says the lines do not run.
func TestSetupClaudeDisableAllHooks(t *testing.T) {
	marker := t.TempDir() + "/" + markerName
	a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
	f := newTrustedFixture(t, a, marker)
	f.runSetup(t, a, "owls")
	a.Settings["disableAllHooks"] = true
	a.Command(t, "owls") // writes the settings as the session reads them
	a.Args = append(a.Args, "--allowedTools", "Bash")
	res := a.Run(t, "touch the marker")
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the guarded command did not run under disableAllHooks: this test's premise no longer holds\n%s", res)
	}
	env := setupEnv(a)
	out, errOut, err := BundlectlEnv(t, f.home, env, "--workspace", f.ws, "list")
	if err != nil || !strings.Contains(errOut, `sets "disableAllHooks": true, which keeps claude from running them`) {
		t.Errorf("list did not say the lines do not run: %v\n%s%s", err, out, errOut)
	}
	out, errOut, err = BundlectlEnv(t, f.home, env, "--workspace", f.ws, "setup", "claude")
	if err == nil || !strings.Contains(errOut, "so setup wrote nothing") {
		t.Errorf("setup under disableAllHooks: %v\n%s%s", err, out, errOut)
	}
}

// TestSetupClaudeDisableAllHooksValues: Claude Code 2.1.332 runs no hook
// line of setup's beside a disableAllHooks that is not false but not true
// either: "true", 1, and even "false". Setup refuses each; it once
// compared with true alone and said all was wired.
func TestSetupClaudeDisableAllHooksValues(t *testing.T) {
	for _, v := range []any{"true", 1, "false"} {
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
		out, errOut, err := BundlectlEnv(t, f.home, setupEnv(a), "--workspace", f.ws, "setup", "claude")
		if err == nil || !strings.Contains(errOut, "so setup wrote nothing") {
			t.Errorf("setup under disableAllHooks %#v: %v\n%s%s", v, err, out, errOut)
		}
	}
}
