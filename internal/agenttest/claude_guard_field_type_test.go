package agenttest

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestClaudeGuardHookFieldType: Claude Code 2.1.332 refuses a whole plugin
// one of whose PreToolUse hooks has a "timeout" that is no number or an
// "async" that is no boolean, as it does for an invalid "shell"
// (TestClaudeHookShellField): the plugin's other hook does not run and its
// skill is not loaded; the tool still runs. The plugin has a manifest, so
// it is a Codex plugin too, and Codex loads it (TestCodexHookFieldType):
// bundlectl warns (hook.schema, naming the file and field), reviews it for
// Codex only, and exec -- claude gives Claude Code nothing of it, as
// Claude Code itself loads nothing of it. A bundle only Claude Code reads
// is refused (bundle TestClaudeGuardHookFieldType).
func TestClaudeGuardHookFieldType(t *testing.T) {
	t.Parallel()
	for name, bad := range map[string]map[string]any{
		"timeout": {"type": "command", "command": "true", "timeout": "abc"},
		"async":   {"type": "command", "command": "true", "async": "yes"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			write := func(dir, rec string) {
				writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": "ftype", "version": "1.0.0"})
				writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
					"matcher": "Bash",
					"hooks":   []any{bad, map[string]any{"type": "command", "command": "echo ran > " + filepath.Join(rec, "other")}},
				}}}})
				writeFile(t, dir, "skills/sk/SKILL.md", "---\nname: sk\ndescription: sk\n---\n\nftype-skill-body\n", 0o644)
			}
			script := func(rec string) []Turn {
				return []Turn{Call("Skill", map[string]any{"skill": "ftype:sk"}), ShellCall(Claude, "touch "+filepath.Join(rec, "tool-ran")), Say("done")}
			}
			inPlace, viaExec, dir := runInPlaceAndExec(t, "ftype", write, script)
			if got := ranFiles(inPlace, "other"); len(got) > 0 {
				t.Errorf("in place, Claude Code loaded the plugin (its other hook ran), which 2.1.332 did not")
			}
			if got := ranFiles(viaExec, "other"); len(got) > 0 {
				t.Errorf("through bundlectl exec, Claude Code ran a hook of the plugin it refuses")
			}
			review, out := reviewDir(t, dir)
			var warned []string
			for _, w := range review.Warnings {
				if w.Rule == "hook.schema" {
					warned = append(warned, w.Path)
				}
			}
			if want := []string{"hooks/hooks.json: hooks.PreToolUse[0].hooks[0]." + name}; slices.ContainsFunc(review.Errors, func(w ReviewWarning) bool { return w.Rule == "hook.schema" }) || !slices.Equal(warned, want) {
				t.Errorf("review warned of %q, want %q, and no error\n%s", warned, want, out)
			}
			if review.shownForClaude() > 0 {
				t.Errorf("the review shows a component for Claude Code, which loads none\n%s", out)
			}
		})
	}
}

// TestClaudeHookAsyncType: on an event that is no guard (PostToolUse),
// Claude Code 2.1.332 drops a plugin hook whose "async" is no boolean and
// runs its sibling. bundlectl's review skips that hook for Claude Code
// (manifest.field-type), so neither hooks run nor exec -- claude runs it.
func TestClaudeHookAsyncType(t *testing.T) {
	t.Parallel()
	rec := t.TempDir()
	dir := filepath.Join(t.TempDir(), "atype")
	writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": "atype", "version": "1.0.0"})
	writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"PostToolUse": []any{map[string]any{
		"matcher": "Bash",
		"hooks": []any{
			map[string]any{"type": "command", "command": "echo ran > " + filepath.Join(rec, "bad"), "async": "yes"},
			map[string]any{"type": "command", "command": "echo ran > " + filepath.Join(rec, "other")},
		},
	}}}})
	a := New(t, Claude, ShellCall(Claude, "touch "+filepath.Join(rec, "tool-ran")), Say("done"))
	a.Args = []string{"--plugin-dir", dir, "--allowedTools", "Bash"}
	res := a.Run(t, "hello")
	if got := recorded(t, rec); !slices.Equal(got, []string{"other", "tool-ran"}) {
		t.Fatalf("Claude Code ran %q, want the sibling hook and the tool only (found by trying Claude Code 2.1.332)\n%s", got, res)
	}
	var review struct {
		Skipped    []ReviewWarning
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
	for _, h := range review.Components.Hooks {
		if strings.Contains(h.Command, "/bad") && slices.Contains(h.Hosts, "claude") {
			t.Errorf("the review shows the hook Claude Code drops as one it runs\n%s", out)
		}
	}
}
