package agenttest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCodexReviewTrustFlag: `codex review --trust` (the top-level review,
// not only `codex exec review`) trusts a project no entry decides for as
// `codex exec --trust` does (TestCodexTrustFlagSavesEntry), saving the
// entry and reading the project's .codex/config.toml in that session, so
// a plugin of the user's own that the file enables loads beside the
// views: bundlectl exec -- codex review --trust names it. exec once took
// --trust for Codex's only after exec (or e) and read the project as the
// saved configuration left it, and said nothing of the plugin that
// loaded.
func TestCodexReviewTrustFlag(t *testing.T) {
	t.Parallel()
	a := New(t, Codex, Say("done"), Say("done"))
	installOwnPlugin(t, a, ownMarketplace, ownPlugin, "")
	f := newTrustedFixture(t, a, filepath.Join(t.TempDir(), markerName))
	gitRun(t, "init", "-q", a.Workdir) // review runs in a git repository only
	writeFile(t, a.Workdir, ".codex/config.toml", fmt.Sprintf("[plugins.%q]\nenabled = true\n", ownPluginID), 0o644)
	if modelLoads(t, a) {
		t.Fatal("bundlectl takes the project file for read before the project is trusted")
	}
	res := runReview(t, a, f.launcher(t), "--trust")
	if res.Exit != 0 {
		t.Fatalf("bundlectl exec -- codex review --trust failed\n%s", res)
	}
	saved, err := os.ReadFile(filepath.Join(a.ConfigDir(), "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	ws, err := filepath.EvalSymlinks(a.Workdir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(saved), fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n", ws)) || !ownLoaded(a, ownPlugin) {
		t.Fatalf("codex review --trust saved no entry for the workspace, or did not load the plugin its file enables: this test's premise (Codex 0.171) no longer holds\n%s\n%s", saved, res)
	}
	note := fmt.Sprintf("bundlectl: codex: your own plugin %q loads beside the views", ownPluginID)
	if !strings.Contains(res.Stderr, note) {
		t.Errorf("stderr does not name the own plugin that loaded\n%s", res)
	}
}

// runReview runs `codex <a's -c flags> review <args> <prompt>` through
// launcher in a's working directory, the plugins feature on: a.Run's
// argv, whose exec options review does not take left out.
func runReview(t *testing.T, a *Agent, launcher []string, args ...string) *Result {
	t.Helper()
	const prompt = "look at this"
	argv, env := a.Command(t, prompt)
	out := append(slices.Clone(launcher), argv[0])
	for i := 1; i < len(argv)-1; i++ {
		switch argv[i] {
		case "exec", "--skip-git-repo-check":
		case "--sandbox":
			i++
		case "features.plugins=false":
			out = append(out, "features.plugins=true")
		default:
			out = append(out, argv[i])
		}
	}
	out = append(append(append(out, "review"), args...), prompt)
	cmd := exec.Command(out[0], out[1:]...)
	cmd.Env, cmd.Dir = env, a.Workdir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := &Result{Stdout: stdout.String(), Stderr: stderr.String(), Requests: a.Model.Requests()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		res.Exit = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %s: %v", strings.Join(out, " "), err)
	}
	return res
}
