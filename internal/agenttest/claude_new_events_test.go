package agenttest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Claude Code 2.1.332's hook events that bundlectl took for unknown ones
// (PreSkillShellCommand, PreModelSwitch, PostModelSwitch, DirectoryAdded,
// MessageDisplay), tried with the real CLI where a -p session fires them.

// skillShellPlugin writes a plugin into src whose skill "probe" holds one
// inline shell command ("!" and a command in backquotes) that creates
// made, and whose hooks are events.
func skillShellPlugin(t *testing.T, src, rec, made string, events map[string][]matcherCase) {
	t.Helper()
	writeJSONFile(t, src, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
	writeFile(t, src, "skills/probe/SKILL.md", "---\nname: probe\ndescription: probe skill\n---\n\nResult: !`touch "+made+"`\n", 0o644)
	writeJSONFile(t, src, "hooks/hooks.json", matcherHooks(rec, events))
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestClaudePreSkillShellCommand: Claude Code 2.1.332 fires
// PreSkillShellCommand for a plugin's hooks before a skill's inline shell
// command runs, with tool_name "Bash" and tool_input.command; it matches
// the matcher against tool_name as on PreToolUse ("PowerShell, Bash" is a
// list). bundlectl's review shows the matchers and hooks run --host
// claude runs the same hooks on the input Claude Code gave.
func TestClaudePreSkillShellCommand(t *testing.T) {
	rec := t.TempDir()
	made := filepath.Join(t.TempDir(), "skill-shell-ran")
	events := map[string][]matcherCase{"PreSkillShellCommand": append(matchedCases("skillshell", "Bash"),
		matcherCase{"skillshell-list", "PowerShell, Bash"})}
	a := New(t, Claude, Say("done"))
	src := filepath.Join(a.Workdir, ".bundlectl", "bundles", pluginName)
	skillShellPlugin(t, src, rec, made, events)
	ran, inputs := runSession(t, a, rec, []string{"--plugin-dir", src, "--allowedTools", "Bash"}, []string{"/" + pluginName + ":probe"})
	want := append(matchedRan("skillshell"), "skillshell-list")
	slices.Sort(want)
	if !slices.Equal(ran, want) {
		t.Fatalf("Claude Code ran the hooks %q, want %q (found by trying Claude Code 2.1.332)", ran, want)
	}
	if !exists(made) {
		t.Fatal("the skill's inline shell command did not run")
	}
	in := string(inputs["skillshell-value"])
	for _, s := range []string{`"hook_event_name":"PreSkillShellCommand"`, `"tool_name":"Bash"`, "touch " + made, `"command_name":"` + pluginName + `:probe"`} {
		if !strings.Contains(in, s) {
			t.Errorf("the hook's input lacks %s:\n%s", s, in)
		}
	}
	checkMatcherParity(t, Claude, a.Workdir, rec, events, want, inputs)
}
