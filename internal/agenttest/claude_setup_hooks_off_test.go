package agenttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetupClaudeHooksSwitches: with setup's hook lines in the user's
// settings.json, Claude Code 2.1.332 runs no guard, and the guarded command
// runs, saying nothing, beside a "disableAllHooks" set to anything but
// false (true, and also "true", 1 or even "false") or CLAUDE_CODE_SIMPLE
// in the user's "env"; beside an "allowManagedHooksOnly" in the user's,
// the project's or the local settings, which only managed settings can
// set, the guard runs. So setup refuses under the first (and list, for one turned on
// after setup, says the lines do not run), and wires under the second.
// Setup once compared disableAllHooks with true alone, did not read the
// "env", and refused allowManagedHooksOnly wherever it was.
func TestSetupClaudeHooksSwitches(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		user    map[string]any
		project string
		off     bool
	}{
		{"disableAllHooks true", map[string]any{"disableAllHooks": true}, "", true},
		{`disableAllHooks "true"`, map[string]any{"disableAllHooks": "true"}, "", true},
		{"disableAllHooks 1", map[string]any{"disableAllHooks": 1}, "", true},
		{`disableAllHooks "false"`, map[string]any{"disableAllHooks": "false"}, "", true},
		{"env CLAUDE_CODE_SIMPLE", map[string]any{"env": map[string]any{"CLAUDE_CODE_SIMPLE": "1"}}, "", true},
		{"user allowManagedHooksOnly", map[string]any{"allowManagedHooksOnly": true}, "", false},
		{"project allowManagedHooksOnly", nil, `{"allowManagedHooksOnly": true}`, false},
		{"local allowManagedHooksOnly", nil, `{"allowManagedHooksOnly": true}`, false},
	} {
		marker := t.TempDir() + "/" + markerName
		a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
		f := newTrustedFixture(t, a, marker)
		f.runSetup(t, a, "owls")
		for k, v := range c.user {
			a.Settings[k] = v
		}
		if c.project != "" {
			file := "settings.json"
			if strings.HasPrefix(c.name, "local") {
				file = "settings.local.json" // over setup's approvals, which do not matter here
			}
			if err := os.WriteFile(filepath.Join(f.ws, ".claude", file), []byte(c.project), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		a.Command(t, "owls") // writes the settings as the session reads them
		a.Args = append(a.Args, "--allowedTools", "Bash")
		res := a.Run(t, "touch the marker")
		if _, err := os.Stat(marker); (err == nil) != c.off {
			t.Fatalf("%s: the guarded command ran: %v, want %v: this test's premise no longer holds\n%s", c.name, err == nil, c.off, res)
		}
		env := setupEnv(a)
		out, errOut, err := BundlectlEnv(t, f.home, env, "--workspace", f.ws, "setup", "claude")
		switch {
		case c.off && (err == nil || !strings.Contains(errOut, "so setup wrote nothing")):
			t.Errorf("setup under %s: %v\n%s%s", c.name, err, out, errOut)
		case !c.off && err != nil:
			t.Errorf("setup beside %s, where its lines run: %v\n%s%s", c.name, err, out, errOut)
		}
		if !c.off || c.project != "" {
			continue
		}
		out, errOut, err = BundlectlEnv(t, f.home, env, "--workspace", f.ws, "list")
		if err != nil || !strings.Contains(errOut, "which keeps claude from running them") {
			t.Errorf("%s: list did not say the lines do not run: %v\n%s%s", c.name, err, out, errOut)
		}
	}
}
