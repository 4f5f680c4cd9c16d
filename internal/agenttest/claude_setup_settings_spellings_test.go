package agenttest

import (
	"os"
	"testing"
)

// TestSetupClaudeSettingsSpellings: how Claude Code 2.1.332 reads a
// settings file of the workspace for disableAllHooks. It skips a leading
// byte order mark, and ignores whole a file that is not plain JSON (a
// comment, a trailing comma, a bare "{"), as if it were not there: the
// local file's false written beside a comment does not undo the
// project's true, and the project's true behind a byte order mark holds.
// bundlectl setup and list say the same (hosts/claude readSettings,
// disableAllHooksOff). Setup once wrote its lines beside the commented
// false (reading comments, as Gemini CLI does), and list said nothing of
// a workspace holding a file it could not parse, stopping there before
// the project's true.
func TestSetupClaudeSettingsSpellings(t *testing.T) {
	t.Parallel()
	const bom = "\ufeff"
	projectTrue := `.claude/settings.json" sets "disableAllHooks": true`
	for _, c := range []struct {
		name, project, local string
		off                  bool
	}{
		{name: "local false beside a comment", project: `{"disableAllHooks": true}`, local: "{\"disableAllHooks\": false /* mine */}", off: true},
		{name: "local not JSON", project: `{"disableAllHooks": true}`, local: `{`, off: true},
		{name: "project behind a byte order mark", project: bom + `{"disableAllHooks": true}`, off: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			marker := t.TempDir() + "/" + markerName
			a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
			f := newTrustedFixture(t, a, marker)
			f.runSetup(t, a, "owls")
			writeFile(t, f.ws, ".claude/settings.json", c.project, 0o644)
			if c.local != "" {
				// Over setup's approvals, which do not matter here.
				writeFile(t, f.ws, ".claude/settings.local.json", c.local, 0o644)
			}
			a.Args = append(a.Args, "--allowedTools", "Bash")
			res := a.Run(t, "touch the marker")
			if _, err := os.Stat(marker); (err == nil) != c.off {
				t.Fatalf("the guarded command ran: %v, want %v: this test's premise (Claude Code 2.1.332) no longer holds\n%s", err == nil, c.off, res)
			}
			refuse := ""
			if c.off {
				refuse = projectTrue
			}
			checkVerdict(t, a, f, nil, setupEnv(a), c.name, offVerdict(c.off, refuse, ""))
		})
	}
}
