package agenttest

import (
	"os"
	"strings"
	"testing"
)

// TestSetupCodexConfigSpellings: how Codex 0.171 reads the files that
// decide features.hooks for a session started in the workspace. It skips
// a byte order mark at the start of a config.toml (go-toml refuses one),
// so a trusted project's false behind one runs no hook; and it takes a
// [projects."…"] key as the directory written, compared with the
// session's real working directory: "WORK/" or "WORK/../work" trusts
// nothing, so the project's true does not undo the user's false. bundlectl
// setup and list say the same (hosts/codex readTOML, readProjectTrust): setup
// once took the file it could not parse for no setting, and folded the
// key as a path, writing its lines beside a false that held.
func TestSetupCodexConfigSpellings(t *testing.T) {
	t.Parallel()
	const off, on = "[features]\nhooks = false\n", "[features]\nhooks = true\n"
	trust := func(key string) string { return "[projects.\"" + key + "\"]\ntrust_level = \"trusted\"\n" }
	for _, c := range []struct {
		name, user, project, refuseSays string
	}{
		{"trusted project false behind a byte order mark", trust("WORK"), "\ufeff" + off, `work/.codex/config.toml" sets features.hooks = false`},
		{"trust key with a trailing slash", trust("WORK/") + off, on, `.codex/config.toml" sets features.hooks = false`},
		{"trust key through ..", trust("WORK/../work") + off, on, `.codex/config.toml" sets features.hooks = false`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			marker := t.TempDir() + "/" + markerName
			a := New(t, Codex, ShellCall(Codex, "touch "+marker), Say("done"))
			f := newTrustedFixture(t, a, marker)
			f.runSetup(t, a, "hello")
			a.CodexConfig = strings.ReplaceAll(c.user, "WORK", f.ws) + "\n" + a.CodexConfig
			writeFile(t, f.ws, ".codex/config.toml", c.project, 0o644)
			res := a.Run(t, "touch the marker")
			if res.Exit != 0 {
				t.Fatalf("codex failed\n%s", res)
			}
			if _, err := os.Stat(marker); err != nil {
				t.Fatalf("the guard blocked the command: this test's premise (Codex 0.171 runs no hook here) no longer holds\n%s", res)
			}
			checkVerdict(t, a, f, nil, setupEnv(a), c.name, offVerdict(true, c.refuseSays, ""))
		})
	}
}
