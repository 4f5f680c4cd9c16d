package agenttest

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestClaudeGuardHookSchema: a matcher group of a plugin's hooks/hooks.json
// that fails Claude Code 2.1.332's hooks schema in its shape — a hook with
// no type or a type it does not know, a command hook with no command
// string, a matcher that is no string, hooks that are no list or missing —
// makes Claude Code refuse the whole plugin when the event is PreToolUse
// (no hook of it runs, its skill is not loaded; the tool runs), and on
// another event (PostToolUse) drops that hook, or that whole group for a
// group's fault, and runs the rest. bundlectl's review shows for Claude
// Code exactly the hooks it ran: none where it refuses the plugin (the
// manifest makes the bundle a Codex plugin too, so that is a hook.schema
// warning, not a refused bundle).
func TestClaudeGuardHookSchema(t *testing.T) {
	t.Parallel()
	hook := func(rec, n string) map[string]any {
		return map[string]any{"type": "command", "command": "echo ran > " + filepath.Join(rec, n)}
	}
	cases := []struct {
		name       string
		group      func(rec string) map[string]any
		groupFault bool
	}{
		{"no-type", func(rec string) map[string]any {
			return map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"command": "echo ran > " + filepath.Join(rec, "bad")}, hook(rec, "ingroup")}}
		}, false},
		{"unknown-type", func(rec string) map[string]any {
			return map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"type": "script", "command": "echo ran > " + filepath.Join(rec, "bad")}, hook(rec, "ingroup")}}
		}, false},
		{"no-command", func(rec string) map[string]any {
			return map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"type": "command"}, hook(rec, "ingroup")}}
		}, false},
		{"command-number", func(rec string) map[string]any {
			return map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": 5}, hook(rec, "ingroup")}}
		}, false},
		{"matcher-number", func(rec string) map[string]any {
			return map[string]any{"matcher": 5, "hooks": []any{hook(rec, "bad")}}
		}, true},
		{"hooks-object", func(rec string) map[string]any {
			return map[string]any{"matcher": "Bash", "hooks": hook(rec, "bad")}
		}, true},
		{"no-hooks", func(rec string) map[string]any {
			return map[string]any{"matcher": "Bash"}
		}, true},
	}
	for _, tc := range cases {
		for _, ev := range []string{"PreToolUse", "PostToolUse"} {
			t.Run(tc.name+"/"+ev, func(t *testing.T) {
				rec := t.TempDir()
				dir := filepath.Join(t.TempDir(), "gs")
				writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": "gs", "version": "1.0.0"})
				group := func(n string) map[string]any { return map[string]any{"matcher": "Bash", "hooks": []any{hook(rec, n)}} }
				hooks := map[string]any{"PreToolUse": []any{group("pre")}, "PostToolUse": []any{group("post")}}
				hooks[ev] = []any{tc.group(rec), group(map[string]string{"PreToolUse": "pre", "PostToolUse": "post"}[ev])}
				writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": hooks})
				got, res := runSkillThenBash(t, dir, "gs", rec)
				want := []string{"tool-ran"}
				switch {
				case ev == "PreToolUse":
				case tc.groupFault:
					want = []string{"post", "pre", "tool-ran", "SKILL"}
				default:
					want = []string{"ingroup", "post", "pre", "tool-ran", "SKILL"}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("Claude Code ran %q, want %q (found by trying Claude Code 2.1.332)\n%s", got, want, res)
				}
				var review struct {
					Errors, Warnings []ReviewWarning
					Components       struct {
						Hooks []struct {
							Command string
							Hosts   []string
						}
						Skills []struct{ Hosts []string }
					}
				}
				out, errOut, _ := bundlectlRun(t, t.TempDir(), "review", "--json", dir)
				if err := json.Unmarshal([]byte(out), &review); err != nil {
					t.Fatalf("review --json: %v\n%s%s", err, out, errOut)
				}
				var shown []string
				for _, h := range review.Components.Hooks {
					if slices.Contains(h.Hosts, "claude") {
						shown = append(shown, filepath.Base(h.Command[strings.LastIndex(h.Command, " ")+1:]))
					}
				}
				for _, s := range review.Components.Skills {
					if slices.Contains(s.Hosts, "claude") {
						shown = append(shown, "SKILL")
					}
				}
				wantShown := slices.DeleteFunc(slices.Clone(want), func(n string) bool { return n == "tool-ran" })
				slices.Sort(shown)
				slices.Sort(wantShown)
				if !slices.Equal(shown, wantShown) {
					t.Errorf("the review shows for Claude Code %q, want what it ran, %q\n%s", shown, wantShown, out)
				}
				refused := slices.ContainsFunc(review.Warnings, func(w ReviewWarning) bool { return w.Rule == "hook.schema" })
				if refused != (ev == "PreToolUse") || slices.ContainsFunc(review.Errors, func(w ReviewWarning) bool { return w.Rule == "hook.schema" }) {
					t.Errorf("review: a hook.schema warning %v, want %v, and no such error\n%s", refused, ev == "PreToolUse", out)
				}
			})
		}
	}
}
