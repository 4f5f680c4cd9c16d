package claude

import (
	"testing"

	"github.com/bundlectl/bundlectl/hosts"
)

// TestReadSettingsEmpty: Claude Code 2.1.332 reads an empty settings
// file, or one of white space only, as {} (agenttest
// TestClaudeSettingsEmpty); readSettings once took one of white space
// for a file Claude Code ignores, and setup refused it.
func TestReadSettingsEmpty(t *testing.T) {
	for _, text := range []string{"", " \n\t\r\n", "\ufeff", "\ufeff  \u00a0\u2028"} {
		h := newOwnHome(t)
		file := switchFiles(h)["local"]
		writeRaw(t, file, text)
		m, err := readSettings(file)
		if err != nil || m == nil || len(m) != 0 {
			t.Errorf("%q: %v, %v, want {}", text, m, err)
		}
		if err := (Host{}).SetupHooksOff(hosts.SetupInput{Environ: h.env(), Reentry: hosts.Reentry{Workspace: h.wd}}); err != nil {
			t.Errorf("%q: setup refused: %v", text, err)
		}
	}
}
