package agenttest

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestClaudeSkillHookFieldType: in a skill's front matter, a hook whose
// "timeout" is no number or whose "async" is no boolean makes Claude Code
// 2.1.332 run none of that skill's hooks (its PreToolUse and PostToolUse
// hooks alike), as a bad "shell" does (TestClaudeHookShellScope); the
// skill still loads. A SKILL.md in a folder of commands/ is a skill to
// Claude Code, and its front-matter hooks run. bundlectl's review shows
// for Claude Code exactly the hooks that ran.
func TestClaudeSkillHookFieldType(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, field, file string
		want              []string
	}{
		{"timeout", "          timeout: abc\n", "skills/sk/SKILL.md", []string{"SKILL"}},
		{"async", "          async: yes-please\n", "skills/sk/SKILL.md", []string{"SKILL"}},
		{"onFailure", "          onFailure: sometimes\n", "skills/sk/SKILL.md", []string{"SKILL"}},
		{"commands-dir", "", "commands/sk/SKILL.md", []string{"SKILL", "bad", "post", "sibling"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := t.TempDir()
			dir := filepath.Join(t.TempDir(), "sp")
			writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": "sp", "version": "1.0.0"})
			writeFile(t, dir, tc.file, "---\nname: sk\ndescription: sk\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n"+
				"        - type: command\n          command: \"echo ran > "+filepath.Join(rec, "bad")+"\"\n"+tc.field+
				"        - type: command\n          command: \"echo ran > "+filepath.Join(rec, "sibling")+"\"\n"+
				"  PostToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: \"echo ran > "+filepath.Join(rec, "post")+"\"\n"+
				"---\n\nsp-skill-body\n", 0o644)
			a := New(t, Claude, Call("Skill", map[string]any{"skill": "sp:sk"}), ShellCall(Claude, "touch "+filepath.Join(rec, "tool-ran")), Say("done"))
			a.Args = []string{"--plugin-dir", dir, "--allowedTools", "Bash,Skill"}
			res := a.Run(t, "hello")
			got := slices.DeleteFunc(recorded(t, rec), func(n string) bool { return n == "tool-ran" })
			if requestsHold(a, "sp-skill-body") {
				got = append(got, "SKILL")
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("Claude Code ran %q, want %q (found by trying Claude Code 2.1.332)\n%s", got, tc.want, res)
			}
			var review struct {
				Components struct {
					Hooks []struct {
						Command string
						Hosts   []string
					}
				}
			}
			out := BundlectlRun(t, t.TempDir(), "review", "--json", dir)
			if err := json.Unmarshal([]byte(out), &review); err != nil {
				t.Fatalf("review --json: %v\n%s", err, out)
			}
			shown := []string{"SKILL"}
			for _, h := range review.Components.Hooks {
				if slices.Contains(h.Hosts, "claude") {
					shown = append(shown, filepath.Base(h.Command[strings.LastIndex(h.Command, " ")+1:]))
				}
			}
			slices.Sort(shown)
			if !slices.Equal(shown, tc.want) {
				t.Errorf("the review shows for Claude Code %q, want what it ran, %q\n%s", shown, tc.want, out)
			}
		})
	}
}
