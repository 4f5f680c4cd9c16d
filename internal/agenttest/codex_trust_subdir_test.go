package agenttest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCodexTrustedWorkspaceSubdirAsks: Codex 0.171 started
// interactively in a folder below a workspace trusted by its own
// [projects] entry, under a git top that has none, asks whether to trust
// the folder (that entry covers the workspace alone); trusted, it writes
// its entry for the git top and reads the top's .codex/config.toml,
// whose features.hooks = false keeps setup's lines from running: the
// marker command runs. So setup refuses such a workspace and list says
// the lines are off "in a folder below" it, as they did before a commit
// took an entry for the workspace alone to decide for every session
// started there (hosts/codex projectTrust.decides). Where the git top's
// own entry says untrusted, Codex does not ask below either (tried by
// hand in a terminal: it offers only to open the folder restricted) and
// reads no such file: no refusal.
func TestCodexTrustedWorkspaceSubdirAsks(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, top string }{
		{name: "top with no entry"},
		{name: "top untrusted", top: "untrusted"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a, f := newHooksOffTopFixture(t, c.top)
			top := filepath.Dir(a.Workdir)
			ws, err := filepath.EvalSymlinks(a.Workdir)
			if err != nil {
				t.Fatal(err)
			}
			a.CodexConfig += fmt.Sprintf("\n[projects.%q]\ntrust_level = \"trusted\"\n", ws)
			if err := os.WriteFile(filepath.Join(a.ConfigDir(), "config.toml"), []byte(a.CodexConfig), 0o644); err != nil {
				t.Fatal(err)
			}
			if c.top != "" {
				checkVerdict(t, a, f, nil, setupEnv(a), c.name, offVerdict(false, "", ""))
				return // TestCodexTrustedWorkspaceNoAskForTop and the restricted dialog below show the rest
			}
			checkVerdict(t, a, f, nil, setupEnv(a), c.name, offVerdict(true, "in a folder below the workspace", ""))
			sub := filepath.Join(a.Workdir, "sub")
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			// codex exec --trust: what a user answering yes in a terminal
			// does ("You're in a subdirectory of a Git project. Trusting
			// will apply to the repository root", tried by hand), without
			// a terminal to wait on.
			a.Workdir = sub
			a.Args = append(a.Args, "--trust")
			res := a.Run(t, "touch the marker")
			out := res.String()
			cfg, err := os.ReadFile(filepath.Join(a.ConfigDir(), "config.toml"))
			if err != nil {
				t.Fatal(err)
			}
			realTop, _ := filepath.EvalSymlinks(top)
			if !strings.Contains(string(cfg), fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"", realTop)) {
				t.Fatalf("Codex wrote no trust entry for the git top %s: this test's premise (it asks below a workspace trusted alone, and trusts the top) no longer holds\n%s\n%s", realTop, cfg, out)
			}
			if _, err := os.Stat(f.marker); err != nil {
				t.Fatalf("the marker command did not run: this test's premise (the trusted top's features.hooks = false keeps setup's lines from running) no longer holds\n%s", out)
			}
		})
	}
}
