package agenttest

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// runInPlaceAndExec runs the session script with the plugin at
// <workspace>/.bundlectl/bundles/<name> twice: loaded in place
// (--plugin-dir) and through bundlectl exec after review, trust and
// enable. write writes the plugin into the directory it is given, naming
// record files under rec (and each of mustSee must reach the model); each run gets a fresh rec, which is returned
// with the plugin's directory of the in-place run. The script's last
// shell call must create rec/tool-ran.
func runInPlaceAndExec(t *testing.T, name string, write func(dir, rec string), script func(rec string) []Turn, mustSee ...string) (inPlace, viaExec, dirInPlace string) {
	t.Helper()
	run := func(exec bool) string {
		rec := t.TempDir()
		a := New(t, Claude, script(rec)...)
		dir := filepath.Join(a.Workdir, ".bundlectl", "bundles", name)
		write(dir, rec)
		// --debug: Claude Code logs the hooks a skill registers and each
		// hook it runs, printed below if the test fails.
		a.Args = []string{"--allowedTools", "Bash,Skill", "--debug"}
		if !exec {
			a.Args = append(a.Args, "--plugin-dir", dir)
			dirInPlace = dir
		} else {
			home := t.TempDir()
			t.Cleanup(func() { Writable(home) })
			trustBundle(t, home, a.Workdir, name)
			a.Launcher = execLauncher(t, home, a.Workdir)
		}
		res := a.Run(t, "hello")
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("exec=%v: Claude Code's debug lines on skills and hooks:\n%s", exec, debugLines(a, "hook", "Skill", "skill"))
			}
		})
		if !exists(filepath.Join(rec, "tool-ran")) {
			t.Fatalf("exec=%v: the tool did not run\n%s", exec, res)
		}
		for _, m := range mustSee {
			if !requestsHold(a, m) {
				t.Errorf("exec=%v: %q never reached the model", exec, m)
			}
		}
		return rec
	}
	inPlace = run(false)
	return inPlace, run(true), dirInPlace
}

// TestClaudeSkillHookPluginVars: what Claude Code 2.1.332 gives the
// front-matter hooks of a plugin's skills and commands:
//   - a skill's hooks get CLAUDE_PLUGIN_ROOT, the plugin's root (not the
//     skill's directory), in the environment and as ${CLAUDE_PLUGIN_ROOT}
//     in exec-form args, and no CLAUDE_PLUGIN_DATA; a skill's hook whose
//     command or args hold ${CLAUDE_PLUGIN_DATA} does not run ("only
//     ${CLAUDE_PLUGIN_ROOT} is available for skill hooks"), while the
//     skill's other hooks do and the tool goes ahead;
//   - a command's front-matter hooks never run, though the command loads.
//
// bundlectl exec runs the same hooks with the same variables: the root is
// the snapshot's, as --plugin-dir's is the plugin's.
func TestClaudeSkillHookPluginVars(t *testing.T) {
	t.Parallel()
	write := func(dir, rec string) {
		out := func(n string) string { return filepath.Join(rec, n) }
		writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": "fmvars", "version": "1.0.0"})
		writeFile(t, dir, "skills/probe/SKILL.md", "---\nname: probe\ndescription: probe skill\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n"+
			"        - type: command\n          command: \"echo \\\"$CLAUDE_PLUGIN_ROOT|${CLAUDE_PLUGIN_DATA-unset}\\\" > "+out("skill-env")+"\"\n"+
			"        - type: command\n          command: sh\n          args: [\"-c\", 'echo \"$1\" > \"$2\"', sh, \"${CLAUDE_PLUGIN_ROOT}\", \""+out("skill-exec")+"\"]\n"+
			"        - type: command\n          command: \"echo \\\"${CLAUDE_PLUGIN_DATA}\\\" > "+out("skill-data")+"\"\n"+
			"        - type: command\n          command: sh\n          args: [\"-c\", 'echo \"$1\" > \"$2\"', sh, \"${CLAUDE_PLUGIN_DATA}\", \""+out("skill-data-exec")+"\"]\n"+
			"        - type: command\n          command: \"echo ran > "+out("skill-sibling")+"\"\n"+
			"---\n\nprobe body\n", 0o644)
		writeFile(t, dir, "commands/cmdp.md", "---\ndescription: command probe\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n"+
			"        - type: command\n          command: \"echo ran > "+out("command-hook")+"\"\n"+
			"---\n\ncommand-probe-body\n", 0o644)
	}
	script := func(rec string) []Turn {
		return []Turn{Call("Skill", map[string]any{"skill": "fmvars:probe"}), Call("Skill", map[string]any{"skill": "fmvars:cmdp"}),
			ShellCall(Claude, "touch "+filepath.Join(rec, "tool-ran")), Say("done")}
	}
	inPlace, viaExec, dir := runInPlaceAndExec(t, "fmvars", write, script, "probe body", "command-probe-body")
	names := []string{"skill-env", "skill-exec", "skill-data", "skill-data-exec", "skill-sibling", "command-hook"}
	got := ranFiles(inPlace, names...)
	root := "<root>"
	norm := func(ran []string, dir string) []string {
		out := make([]string, len(ran))
		for i, r := range ran {
			out[i] = strings.ReplaceAll(r, dir, root)
		}
		return out
	}
	want := []string{"skill-env=<root>|unset", "skill-exec=<root>", "skill-sibling=ran"}
	if g := norm(got, dir); !slices.Equal(g, want) {
		t.Errorf("in place, the hooks that ran: %q, want %q", g, want)
	}
	gotExec := ranFiles(viaExec, names...)
	snap := ""
	if b, err := os.ReadFile(filepath.Join(viaExec, "skill-exec")); err == nil {
		snap = strings.TrimSpace(string(b))
	}
	if g := norm(gotExec, snap); snap == "" || !slices.Equal(g, want) {
		t.Errorf("through bundlectl exec, the hooks that ran: %q, want %q", gotExec, want)
	}
	if b, _ := os.ReadFile(filepath.Join(viaExec, "skill-env")); !strings.HasPrefix(string(b), snap+"|") {
		t.Errorf("through bundlectl exec, $CLAUDE_PLUGIN_ROOT is %q, ${CLAUDE_PLUGIN_ROOT} in args %q: want the same root", b, snap)
	}
}

// debugLines returns the lines of a's Claude Code debug logs (its
// --debug files under HOME) that hold any of words.
func debugLines(a *Agent, words ...string) string {
	var out strings.Builder
	filepath.WalkDir(a.Home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || !strings.Contains(p, "debug") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		for _, l := range strings.Split(string(b), "\n") {
			for _, w := range words {
				if strings.Contains(l, w) {
					out.WriteString(l + "\n")
					break
				}
			}
		}
		return nil
	})
	return out.String()
}

// requestsHold reports whether any request to the model stand-in holds s.
func requestsHold(a *Agent, s string) bool {
	for _, r := range a.Model.Requests() {
		if strings.Contains(string(r.Body), s) {
			return true
		}
	}
	return false
}
