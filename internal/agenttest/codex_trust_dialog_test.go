package agenttest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestExecCodexTrustDialog: Codex 0.171 started interactively, in a
// terminal, in a folder no [projects] entry decides, asks "Trust this
// folder?"; answered "Trust and continue", it saves the folder's entry
// and reads the folder's .codex/config.toml in that same session, so a
// plugin of the user's own that file enables loads beside the views.
// bundlectl exec cannot know the answer at launch: it names the plugin
// as loading if the user trusts the folder (it once said nothing, and
// the plugin loaded unnamed: hosts/codex FindOwnPlugins, OnTrust).
// bundlectl exec --exclusive keeps it out all the same (its -c plugins
// table disables every plugin any file names, an untrusted project's
// too, and the -c flags outrank the project file read after the
// answer), and names nothing. The answer is typed once the dialog is
// drawn, and again while config.toml lacks the entry it saves: a key
// typed as the TUI starts can be lost.
func TestExecCodexTrustDialog(t *testing.T) {
	t.Parallel()
	for _, exclusive := range []bool{false, true} {
		t.Run(fmt.Sprintf("exclusive=%v", exclusive), func(t *testing.T) {
			t.Parallel()
			checkTrustDialog(t, exclusive, nil)
		})
	}
}

// TestExecCodexTrustDialogImageArgs: Codex 0.171 takes every word after
// -i (--image) up to the next option for one more image, so `codex -i
// a.png exec …` is an interactive session, not codex exec: it asks
// "Trust this folder?" and, answered "Trust and continue", loads the
// plugin the folder's .codex/config.toml enables. bundlectl exec names
// it (it once read exec as the subcommand and said nothing; hosts/codex
// sessionArgs), and --exclusive keeps it out.
func TestExecCodexTrustDialogImageArgs(t *testing.T) {
	t.Parallel()
	for _, exclusive := range []bool{false, true} {
		t.Run(fmt.Sprintf("exclusive=%v", exclusive), func(t *testing.T) {
			t.Parallel()
			img := filepath.Join(t.TempDir(), "a.png")
			if err := os.WriteFile(img, onePixelPNG, 0o644); err != nil {
				t.Fatal(err)
			}
			checkTrustDialog(t, exclusive, []string{"-i", img, "exec"})
		})
	}
}

// onePixelPNG is a PNG image of one transparent pixel.
var onePixelPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82")

// checkTrustDialog runs TestExecCodexTrustDialog's session, with before
// put ahead of the agent's own arguments.
func checkTrustDialog(t *testing.T, exclusive bool, before []string) {
	t.Helper()
	a := New(t, Codex, Say("done"), Say("done"))
	f := newTrustedFixture(t, a, filepath.Join(t.TempDir(), markerName))
	allowExecTools(a)
	a.Launcher = f.launcher(t)
	if exclusive {
		a.Launcher = append(a.Launcher[:len(a.Launcher)-1], "--exclusive", "--")
	}
	installOwnPlugin(t, a, ownMarketplace, ownPlugin, "")
	writeFile(t, a.Workdir, ".codex/config.toml", fmt.Sprintf("[plugins.%q]\nenabled = true\n", ownPluginID), 0o644)
	argv, env := interactiveCommand(t, a, "hi")
	argv = slices.Concat(argv[:1], before, argv[1:])
	out, ws := answerCodexTrustDialog(t, a, argv, env)
	calls := sessionCalls(a, 0)
	offered := func(text string) bool {
		for _, r := range calls {
			if r.Contains(text) {
				return true
			}
		}
		return false
	}
	if !offered(skillDescription) {
		t.Fatalf("the view's skill was not offered to the model\n%s\n%s", out, a.Model.Dump())
	}
	loaded := offered(ownSkill(ownPlugin))
	if !exclusive && !loaded {
		t.Fatalf("the own plugin did not load once the folder was trusted: this test's premise (Codex 0.171 reads the project file in that session) no longer holds\n%s\n%s", out, a.Model.Dump())
	}
	if exclusive && loaded {
		t.Errorf("bundlectl exec --exclusive: the own plugin %s, enabled by the project file Codex read once the folder was trusted, loaded\n%s", ownPluginID, out)
	}
	note := fmt.Sprintf("bundlectl: codex: your own plugin %q loads beside the views if you answer \"Trust and continue\" when Codex asks whether to trust this folder (%q enables it)", ownPluginID, filepath.Join(ws, ".codex", "config.toml"))
	if named := strings.Contains(squash(out), squash(note)); named == exclusive {
		t.Errorf("exclusive=%v: the note %q shown: %v\n%s", exclusive, note, named, out)
	}
}

// TestExecCodexTrustDialogFeatureFromProject: with no bundle to load,
// bundlectl exec leaves the plugins feature as the user's files set it.
// config.toml turns it off; the folder's .codex/config.toml turns it on
// and enables a plugin of the user's own. Codex 0.171 asks "Trust this
// folder?" and, answered "Trust and continue", reads that file and loads
// the plugin: exec names it on that condition (it once followed the
// feature as config.toml left it, and said nothing).
func TestExecCodexTrustDialogFeatureFromProject(t *testing.T) {
	t.Parallel()
	a := New(t, Codex, Say("done"), Say("done"))
	f := newExecFixture(t, a) // no bundle trusted: no view
	a.Launcher = f.launcher(t)
	installOwnPlugin(t, a, ownMarketplace, ownPlugin, "")
	writeFile(t, a.Workdir, ".codex/config.toml", fmt.Sprintf("[features]\nplugins = true\n\n[plugins.%q]\nenabled = true\n", ownPluginID), 0o644)
	a.CodexConfig = "[features]\nplugins = false\n"
	argv, env := interactiveCommand(t, a, "hi")
	// Command turns the feature off with a -c flag, which would outrank
	// the project file: config.toml turns it off here instead.
	i := slices.Index(argv, "features.plugins=false")
	if i < 1 || argv[i-1] != "-c" {
		t.Fatalf("agenttest: no -c features.plugins=false in %q", argv)
	}
	argv = slices.Delete(argv, i-1, i+1)
	out, ws := answerCodexTrustDialog(t, a, argv, env)
	loaded := false
	for _, r := range sessionCalls(a, 0) {
		loaded = loaded || r.Contains(ownSkill(ownPlugin))
	}
	if !loaded {
		t.Fatalf("the own plugin did not load once the folder was trusted: this test's premise (Codex 0.171 takes the project file's features.plugins) no longer holds\n%s\n%s", out, a.Model.Dump())
	}
	note := fmt.Sprintf("bundlectl: codex: your own plugin %q loads beside the views if you answer \"Trust and continue\" when Codex asks whether to trust this folder (%q enables it)", ownPluginID, filepath.Join(ws, ".codex", "config.toml"))
	if !strings.Contains(squash(out), squash(note)) {
		t.Errorf("the note %q not shown\n%s", note, out)
	}
}

// answerCodexTrustDialog runs argv (interactiveCommand's, in a terminal)
// in a folder no [projects] entry decides — interactiveCommand trusts
// it, so the entry is taken out of config.toml first — answers Codex's
// "Trust this folder?" with "Trust and continue" once the dialog is
// drawn whole (again while config.toml lacks the entry the answer saves:
// a key typed as the TUI starts can be lost), and waits for the model's
// first call. It fails the test when Codex saves no entry: the premise
// of every caller. ws is the folder, symbolic links resolved, as Codex
// names it.
func answerCodexTrustDialog(t *testing.T, a *Agent, argv, env []string) (out, ws string) {
	t.Helper()
	ws, err := filepath.EvalSymlinks(a.Workdir)
	if err != nil {
		t.Fatal(err)
	}
	entry := fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n", ws)
	cfgFile := filepath.Join(a.ConfigDir(), "config.toml")
	if err := os.WriteFile(cfgFile, []byte(strings.Replace(a.CodexConfig, entry, "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	saved := func() bool {
		b, _ := os.ReadFile(cfgFile)
		return bytes.Contains(b, []byte(entry))
	}
	// "Trust this folder?" drawn whole: its choices and its last line.
	// Enter takes the first choice, "Trust and continue".
	trust := ptyAnswer{prompt: "1. Trust and continue 2. Back to Agent Command Center enter continue · esc back", keys: "\r", taken: saved}
	out = runPtyAnswers(t, a, argv, env, interactiveDialogs, []ptyAnswer{trust}, func() bool { return len(sessionCalls(a, 0)) > 0 })
	if !saved() {
		t.Fatalf("Codex saved no entry for the folder: this test's premise (Codex 0.171 asks \"Trust this folder?\" and saves the answer) no longer holds\n%s", out)
	}
	return out, ws
}

// TestExecCodexTrustDialogProjectsFlag: a -c
// 'projects={"<dir>"={trust_level="trusted"}}' flag of the user's own
// decides the folder's trust for Codex 0.171 as a config.toml entry
// does: started interactively where config.toml has no entry, Codex
// does not ask "Trust this folder?" (the dialog would fail the test),
// saves no entry, and reads the folder's .codex/config.toml, so the
// plugin of the user's own it enables loads. bundlectl exec names it as
// loading, without the "if you answer" condition (hosts/codex
// configLayers merges the flag's entries over the files').
func TestExecCodexTrustDialogProjectsFlag(t *testing.T) {
	t.Parallel()
	a := New(t, Codex, Say("done"), Say("done"))
	f := newTrustedFixture(t, a, filepath.Join(t.TempDir(), markerName))
	allowExecTools(a)
	a.Launcher = f.launcher(t)
	installOwnPlugin(t, a, ownMarketplace, ownPlugin, "")
	writeFile(t, a.Workdir, ".codex/config.toml", fmt.Sprintf("[plugins.%q]\nenabled = true\n", ownPluginID), 0o644)
	argv, env := interactiveCommand(t, a, "hi")
	ws, err := filepath.EvalSymlinks(a.Workdir)
	if err != nil {
		t.Fatal(err)
	}
	entry := fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n", ws)
	cfgFile := filepath.Join(a.ConfigDir(), "config.toml")
	if err := os.WriteFile(cfgFile, []byte(strings.Replace(a.CodexConfig, entry, "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	argv = slices.Concat(argv[:1], []string{"-c", fmt.Sprintf("projects={%q={trust_level=\"trusted\"}}", ws)}, argv[1:])
	dialogs := append([]string{"Trust this folder?"}, interactiveDialogs...)
	out := runPtyAnswers(t, a, argv, env, dialogs, nil, func() bool { return len(sessionCalls(a, 0)) > 0 })
	if b, _ := os.ReadFile(cfgFile); bytes.Contains(b, []byte(entry)) {
		t.Errorf("Codex saved an entry for the folder, which the -c flag trusts\n%s", b)
	}
	loaded := false
	for _, r := range sessionCalls(a, 0) {
		loaded = loaded || r.Contains(ownSkill(ownPlugin))
	}
	if !loaded {
		t.Fatalf("the own plugin did not load: this test's premise (Codex 0.171 reads the project file the -c flag trusts) no longer holds\n%s\n%s", out, a.Model.Dump())
	}
	note := fmt.Sprintf("bundlectl: codex: your own plugin %q loads beside the views, never reviewed by bundlectl", ownPluginID)
	if !strings.Contains(squash(out), squash(note)) || strings.Contains(squash(out), squash("if you answer")) {
		t.Errorf("want the note %q, without a condition\n%s", note, out)
	}
}
