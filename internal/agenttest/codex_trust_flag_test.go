package agenttest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/hosts/codex"
)

// TestCodexTrustFlagSavesEntry records which [projects] entry Codex 0.171
// saves when it trusts a project (`codex exec --trust`, what a user
// answering yes to "Trust this folder?" does), and that it then reads the
// project file it left out, in that session and every later one started
// there without the flag:
//
//   - a folder with no git top and no marker: the folder itself, below a
//     workspace as in it (the working directory is the project root);
//   - below a marker root: the root;
//   - in or below a linked worktree: its main checkout;
//   - below a git top inside another: the inner top;
//   - below a marker root inside a git top: the git top, not the root;
//   - below a workspace marked untrusted, in a git top with no entry: the
//     top, whose file the folder's session then reads (the workspace's
//     entry covers the workspace alone); in the workspace itself Codex
//     stops ("is marked as untrusted. Update its trust setting first"),
//     saving nothing.
//
// The interactive "Trust this folder?" dialog, answered "Trust and
// continue", saved the same entry in the folder, below a worktree and
// below a marker root inside a git top (tried in a terminal; the folder
// is TestExecCodexTrustDialog, which types the answer once the dialog is
// drawn whole and again while the entry is not saved).
//
// bundlectl counts each such file before the project is trusted (setup
// refuses a features.hooks = false in it: TestSetupCodexHooksLayers), as
// a later session reads it; hosts/codex FindOwnPlugins, run here on the
// same tree, names the plugin the file enables as loading once the entry
// is saved, and not before but for a session given --trust, where Codex
// saves it (bundlectl exec -- codex exec --trust once left that plugin
// unnamed: TestExecCodexOwnPluginTrustFlag).
func TestCodexTrustFlagSavesEntry(t *testing.T) {
	t.Parallel()
	const on = "[plugins.\"" + ownPluginID + "\"]\nenabled = true\n"
	markers := func(m ...string) string {
		return "project_root_markers = [\"" + strings.Join(m, "\", \"") + "\"]\n"
	}
	for _, c := range []struct {
		name   string
		user   string // config.toml; WORK and TOP stand for the workspace and its parent
		layout string // "git": TOP a git top; "worktree": WORK a worktree of TOP/main; "nested": TOP and WORK git tops
		make   []string
		from   string // where the session starts, under TOP
		file   string // whose .codex/config.toml enables the plugin, under TOP; from when ""
		saved  string // the entry Codex saves, under TOP ("." for TOP); "" when it stops
	}{
		{name: "folder with no git top and no marker", from: "work", saved: "work"},
		{name: "folder below it", make: []string{"work/sub"}, from: "work/sub", saved: "work/sub"},
		{name: "below a marker root", user: markers(rootMarker), make: []string{"work/" + rootMarker, "work/sub"}, from: "work/sub", saved: "work"},
		{name: "worktree", layout: "worktree", from: "work", saved: "main"},
		{name: "below a worktree", layout: "worktree", make: []string{"work/sub"}, from: "work/sub", saved: "main"},
		{name: "below a git top inside another", layout: "nested", make: []string{"work/sub"}, from: "work/sub", saved: "work"},
		{name: "below a marker root inside a git top", user: markers(".git", rootMarker), layout: "git", make: []string{"work/" + rootMarker, "work/sub"}, from: "work/sub", saved: "."},
		{name: "below a workspace marked untrusted, the git top's file", user: "[projects.\"WORK\"]\ntrust_level = \"untrusted\"\n", layout: "git", make: []string{"work/sub"}, from: "work/sub", file: ".", saved: "."},
		{name: "workspace marked untrusted, the git top's file", user: "[projects.\"WORK\"]\ntrust_level = \"untrusted\"\n", layout: "git", from: "work", file: "."},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := New(t, Codex, Say("done"), Say("done"))
			installOwnPlugin(t, a, ownMarketplace, ownPlugin, "")
			top, err := filepath.EvalSymlinks(filepath.Dir(a.Workdir))
			if err != nil {
				t.Fatal(err)
			}
			a.CodexConfig = strings.NewReplacer("WORK", filepath.Join(top, "work"), "TOP", top).Replace(c.user)
			switch c.layout {
			case "git":
				gitRun(t, "init", "-q", top)
			case "worktree":
				worktreeOf(t, filepath.Join(top, "main"), a.Workdir)
			case "nested":
				gitRun(t, "init", "-q", top)
				gitRun(t, "init", "-q", a.Workdir)
			}
			for _, p := range c.make {
				if strings.HasSuffix(p, rootMarker) {
					writeFile(t, top, p, "", 0o644)
				} else if err := os.MkdirAll(filepath.Join(top, p), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			file := c.file
			if file == "" {
				file = c.from
			}
			writeFile(t, filepath.Join(top, file), ".codex/config.toml", on, 0o644)
			a.Workdir = filepath.Join(top, c.from)
			if modelLoads(t, a) {
				t.Fatalf("bundlectl takes %s/.codex/config.toml for read before the project is trusted", file)
			}
			if got := modelLoads(t, a, "exec", "--trust"); got != (c.saved != "") {
				t.Errorf("bundlectl takes %s/.codex/config.toml for read by a session with --trust: %v, want %v", file, got, c.saved != "")
			}

			a.Args = []string{"-c", "features.plugins=true", "--trust"}
			res := a.Run(t, "hi")
			saved, err := os.ReadFile(filepath.Join(a.ConfigDir(), "config.toml"))
			if err != nil {
				t.Fatal(err)
			}
			if c.saved == "" {
				if res.Exit == 0 || !strings.Contains(res.Stderr, "is marked as untrusted. Update its trust setting first") {
					t.Fatalf("codex --trust started in a workspace marked untrusted: this test's premise (Codex 0.171) no longer holds\n%s", res)
				}
				if string(saved) != a.CodexConfig {
					t.Errorf("codex --trust changed config.toml where it stopped:\n%s", saved)
				}
				return
			}
			if res.Exit != 0 {
				t.Fatalf("codex --trust failed\n%s", res)
			}
			entry := fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n", filepath.Join(top, c.saved))
			if !strings.Contains(string(saved), entry) {
				t.Fatalf("codex --trust saved no entry for %s: this test's premise (Codex 0.171) no longer holds\n%s\n%s", c.saved, saved, res)
			}
			if !ownLoaded(a, ownPlugin) {
				t.Fatalf("codex --trust did not read %s/.codex/config.toml: this test's premise no longer holds\n%s", file, res)
			}
			a.CodexConfig = string(saved)
			a.Args = []string{"-c", "features.plugins=true"}
			if res := a.Run(t, "hi"); res.Exit != 0 || !ownLoaded(a, ownPlugin) {
				t.Fatalf("a later session without --trust did not read %s/.codex/config.toml: this test's premise no longer holds\n%s", file, res)
			}
			if !modelLoads(t, a) {
				t.Errorf("bundlectl does not take %s/.codex/config.toml for read once Codex saved %s", file, strings.TrimSpace(entry))
			}
		})
	}
}

// modelLoads reports whether hosts/codex FindOwnPlugins names the own
// plugin as loading in a session started in a's working directory with
// args, with the config.toml a's next run writes.
func modelLoads(t *testing.T, a *Agent, args ...string) bool {
	t.Helper()
	if err := os.WriteFile(filepath.Join(a.ConfigDir(), "config.toml"), []byte(a.CodexConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	got := codex.FindOwnPlugins(a.ConfigDir(), a.Workdir, args)
	return slices.ContainsFunc(got.Load, func(p codex.OwnPlugin) bool { return p.ID == ownPluginID })
}
