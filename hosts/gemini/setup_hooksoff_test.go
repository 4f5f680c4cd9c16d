package gemini

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/hosts"
)

// TestSetupHooksOffWorkspace: setup and list read the settings of the
// workspace they are given (a session started there reads its
// .gemini/settings.json), not those of their own working directory:
// setup once read the working directory's, and wrote its lines for a
// workspace whose settings turn hooks off. A workspace that turns them
// back on over the user's false, in a folder Gemini CLI is sure to
// trust, is no refusal there, and a caveat names the user's file.
func TestSetupHooksOffWorkspace(t *testing.T) {
	root := t.TempDir()
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	write := func(p, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	wsFile, userFile := filepath.Join(ws, ".gemini", "settings.json"), filepath.Join(home, ".gemini", "settings.json")
	write(wsFile, `{"hooksConfig": {"enabled": false}}`)
	env := []string{"GEMINI_CLI_HOME=" + home, "GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(root, "system.json")}
	in := hosts.SetupInput{Environ: env, Reentry: hosts.Reentry{Workspace: ws}}
	var off *hosts.HooksOffError
	if err := (Host{}).SetupHooksOff(in); !errors.As(err, &off) || off.File != wsFile || off.Pattern == "" || !strings.Contains(off.When, "once Gemini CLI trusts the folder (before, it runs no settings hook there") {
		t.Errorf("workspace off: %#v, want the workspace's file refused, read once the folder is trusted", err)
	}
	trusted := append(append([]string(nil), env...), "GEMINI_CLI_TRUST_WORKSPACE=true")
	if err := (Host{}).SetupHooksOff(hosts.SetupInput{Environ: trusted, Reentry: in.Reentry}); !errors.As(err, &off) || off.File != wsFile || off.When != "" {
		t.Errorf("workspace off, trusted: %#v, want the workspace's file refused", err)
	}
	if err := (Host{}).SetupHooksOff(hosts.SetupInput{Environ: env}); err != nil {
		t.Errorf("no workspace: %v, want nil", err)
	}

	write(userFile, `{"hooksConfig": {"enabled": false}}`)
	write(wsFile, `{"hooksConfig": {"enabled": true}}`)
	in.Environ = append(env, "GEMINI_CLI_TRUST_WORKSPACE=true")
	if err := (Host{}).SetupHooksOff(in); err != nil {
		t.Errorf("workspace on over the user's off, trusted: %v, want nil", err)
	}
	cs := hosts.SetupCaveats(Host{}, in)
	if len(cs) != 1 || cs[0].Off.File != userFile || !strings.Contains(cs[0].Message(), "whose own settings do not turn hooks back on") {
		t.Errorf("caveats: %+v", cs)
	}
	in.Environ = env // the folder may not be trusted: the user's off holds
	if err := (Host{}).SetupHooksOff(in); !errors.As(err, &off) || off.File != userFile {
		t.Errorf("workspace on over the user's off, not sure to be trusted: %v, want the user's file refused", err)
	}
}
