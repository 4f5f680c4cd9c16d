package agenttest

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bundlectl/bundlectl/internal/hookcases"
)

// TestClaudeOnFailureSchema: Claude Code 2.1.332's hooks schema takes a
// hook's onFailure as "continue" or "block" only, and an http hook only
// with a url string. A hook with another onFailure ("bogus", 1, null,
// true), or an http hook with no url, makes it load nothing of the plugin
// on PreToolUse (no hook, no skill; the tool runs) and drop that hook
// alone on PostToolUse. bundlectl's review shows for Claude Code exactly
// what it ran (bundle TestClaudeHookOnFailureSchema; it used to keep the
// hook and read a bad onFailure as "block").
func TestClaudeOnFailureSchema(t *testing.T) {
	t.Parallel()
	bad := map[string]func(rec string) map[string]any{
		"bogus": func(rec string) map[string]any {
			return map[string]any{"type": "command", "command": "echo ran > " + filepath.Join(rec, "bad"), "onFailure": "bogus"}
		},
		"number": func(rec string) map[string]any {
			return map[string]any{"type": "command", "command": "echo ran > " + filepath.Join(rec, "bad"), "onFailure": 1}
		},
		"null": func(rec string) map[string]any {
			return map[string]any{"type": "command", "command": "echo ran > " + filepath.Join(rec, "bad"), "onFailure": nil}
		},
		"true": func(rec string) map[string]any {
			return map[string]any{"type": "command", "command": "echo ran > " + filepath.Join(rec, "bad"), "onFailure": true}
		},
		"http-no-url": func(rec string) map[string]any { return map[string]any{"type": "http"} },
	}
	for _, name := range []string{"bogus", "number", "null", "true", "http-no-url"} {
		for _, ev := range []string{"PreToolUse", "PostToolUse"} {
			t.Run(name+"/"+ev, func(t *testing.T) {
				rec := t.TempDir()
				dir := filepath.Join(t.TempDir(), "of")
				hook := func(n string) map[string]any {
					return map[string]any{"type": "command", "command": "echo ran > " + filepath.Join(rec, n)}
				}
				writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": "of", "version": "1.0.0"})
				hooks := map[string]any{
					"PreToolUse":  []any{map[string]any{"matcher": "Bash", "hooks": []any{hook("pre")}}},
					"PostToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{hook("post")}}},
				}
				hooks[ev] = []any{map[string]any{"matcher": "Bash", "hooks": []any{bad[name](rec), hook("ingroup")}}}
				writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": hooks})
				got, res := runSkillThenBash(t, dir, "of", rec)
				want := []string{"tool-ran"}
				if ev == "PostToolUse" {
					want = []string{"ingroup", "pre", "tool-ran", "SKILL"}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("Claude Code ran %q, want %q (found by trying Claude Code 2.1.332)\n%s", got, want, res)
				}
				review, out := reviewDir(t, dir)
				if shown := review.shownForClaude(); shown != len(want)-1 {
					t.Errorf("the review shows %d hooks and skills for Claude Code, want the %d it ran\n%s", shown, len(want)-1, out)
				}
			})
		}
	}
}

// runSkillThenBash adds a skill "sk" to the Claude Code plugin name in
// dir and runs Claude Code with the plugin, the model calling the skill
// and then Bash, which records "tool-ran" in rec. It returns what was
// recorded in rec (the plugin's hooks record there too), with "SKILL"
// when the skill's body reached the model (the plugin loaded).
func runSkillThenBash(t *testing.T, dir, name, rec string) ([]string, *Result) {
	t.Helper()
	body := name + "-skill-body"
	writeFile(t, dir, "skills/sk/SKILL.md", "---\nname: sk\ndescription: sk\n---\n\n"+body+"\n", 0o644)
	a := New(t, Claude, Call("Skill", map[string]any{"skill": name + ":sk"}), ShellCall(Claude, "touch "+filepath.Join(rec, "tool-ran")), Say("done"))
	a.Args = []string{"--plugin-dir", dir, "--allowedTools", "Bash,Skill"}
	res := a.Run(t, "hello")
	got := recorded(t, rec)
	if requestsHold(a, body) {
		got = append(got, "SKILL")
	}
	return got, res
}

// claudeReview is what bundlectl review --json says of a bundle's hooks
// and skills, and the warnings it gives.
type claudeReview struct {
	Errors, Warnings []ReviewWarning
	Components       struct {
		Hooks, Skills []struct{ Hosts []string }
	}
}

// reviewDir runs bundlectl review --json on the bundle in dir with a
// throw-away home, and returns what it says and its output.
func reviewDir(t *testing.T, dir string) (claudeReview, string) {
	t.Helper()
	var review claudeReview
	out, errOut, _ := bundlectlRun(t, t.TempDir(), "review", "--json", dir)
	if err := json.Unmarshal([]byte(out), &review); err != nil {
		t.Fatalf("review --json: %v\n%s%s", err, out, errOut)
	}
	return review, out
}

// shownForClaude counts the hooks and skills the review shows for Claude
// Code.
func (r claudeReview) shownForClaude() int {
	n := 0
	for _, c := range append(r.Components.Hooks, r.Components.Skills...) {
		if slices.Contains(c.Hosts, "claude") {
			n++
		}
	}
	return n
}

// TestClaudeOnFailureModes: each way a PreToolUse hook with "onFailure":
// "block" can fail, in Claude Code 2.1.332: a timeout, a command not
// found, an exec-form spawn failure, a non-2 exit with output, JSON that
// fails its output schema, an http hook whose server answers 500 or
// refuses the connection all block the tool; stdout that starts with '{'
// but is no JSON (plain output to it) does not, nor does a hook with
// "async" or "asyncRewake" true, which runs in the background; with those
// false it blocks. bundlectl hooks run --host claude does the same
// (harness TestClaudeOnFailureModes, which runs the same
// internal/hookcases table).
func TestClaudeOnFailureModes(t *testing.T) {
	t.Parallel()
	srv := hookcases.NewHTTPAnswers(t)
	for _, c := range hookcases.ClaudeOnFailureModes(srv.URL+"/g", hookcases.RefusedURL(t)) {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			c.Hook["onFailure"] = "block"
			rec := t.TempDir()
			dir := filepath.Join(t.TempDir(), "of")
			writeClaudeBashGuard(t, dir, "of", c.Hook)
			a := New(t, Claude, ShellCall(Claude, "touch "+filepath.Join(rec, "tool-ran")), Say("done"))
			a.Args = []string{"--plugin-dir", dir, "--allowedTools", "Bash"}
			res := a.Run(t, "hello")
			if ran := exists(filepath.Join(rec, "tool-ran")); ran == c.Blocked {
				t.Fatalf("the tool ran = %v, want %v (found by trying Claude Code 2.1.332)\n%s", ran, !c.Blocked, res)
			}
		})
	}
}

// TestExecClaudeOnFailureModes: through bundlectl exec -- claude, a
// trusted bundle's onFailure "block" guard blocks or not as Claude Code
// does in place (TestClaudeOnFailureModes): the view keeps the hook's
// fields and hooks exec passes the answer and exit status through.
func TestExecClaudeOnFailureModes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		hook    map[string]any
		blocked bool
	}{
		{"exit-3-output", map[string]any{"type": "command", "command": "cat >/dev/null; echo out; echo err >&2; exit 3"}, true},
		{"not-json", map[string]any{"type": "command", "command": "cat >/dev/null; echo '{not json'"}, false},
		{"async-rewake", map[string]any{"type": "command", "command": "cat >/dev/null; exit 1", "asyncRewake": true}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.hook["onFailure"] = "block"
			marker := filepath.Join(t.TempDir(), markerName)
			a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
			f := newExecFixture(t, a)
			writeJSONFile(t, f.src, "hooks/hooks.json", bashGuardHooks(c.hook))
			f.trust(t)
			a.Launcher = f.launcher(t)
			a.Args = []string{"--allowedTools", "Bash"}
			res := a.Run(t, "make the marker")
			if ran := exists(marker); ran == c.blocked {
				t.Fatalf("under exec the tool ran = %v, want %v as in place\n%s", ran, !c.blocked, res)
			}
		})
	}
}
