package agenttest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ranFiles returns "name=content" for each of names that a hook wrote in
// rec, in the order given.
func ranFiles(rec string, names ...string) []string {
	var ran []string
	for _, n := range names {
		if b, err := os.ReadFile(filepath.Join(rec, n)); err == nil {
			ran = append(ran, n+"="+strings.TrimSpace(string(b)))
		}
	}
	return ran
}

// warnedPaths returns the paths of the review's warnings of rule.
func warnedPaths(t *testing.T, dir, rule string) ([]string, string) {
	warnings, review := ReviewWarnings(t, dir)
	var paths []string
	for _, w := range warnings {
		if w.Rule == rule {
			paths = append(paths, w.Path)
		}
	}
	return paths, review
}

// TestClaudeHookOptionScopes: Claude Code 2.1.332 hands a plugin option
// to a hook only from a stored value, and only to the plugin's own hooks:
//   - an exec-form hook of hooks/hooks.json whose args reference an option
//     that has a declared default but no stored value does not run ("Plugin
//     option … isn't set"), and CLAUDE_PLUGIN_OPTION_<KEY> is not set from
//     the default either;
//   - a skill's front-matter hooks get no options at all: not refused (as a
//     plugin hook's shell-form ${user_config.*} is), but ${user_config.KEY}
//     reaches the command as written, in shell and exec form alike, and
//     CLAUDE_PLUGIN_OPTION_<KEY> is not set.
//
// The tool still runs. bundlectl's review warns of the skill's hooks
// (hook.option-skill); the scripts options_default and
// claude_hook_shell_scope hold hooks run and hooks exec to the same.
func TestClaudeHookOptionScopes(t *testing.T) {
	t.Parallel()
	rec := t.TempDir()
	marker := filepath.Join(rec, "tool-ran")
	dir := filepath.Join(t.TempDir(), "optsk")
	out := func(n string) string { return filepath.Join(rec, n) }
	writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": "optsk", "version": "1.0.0", "userConfig": map[string]any{
		"greeting": map[string]any{"type": "string", "title": "Greeting", "description": "what to say"},
		"mode":     map[string]any{"type": "string", "title": "Mode", "description": "a default only", "default": "safe"},
	}})
	writeFile(t, dir, "skills/probe/SKILL.md", "---\nname: probe\ndescription: probe skill\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n"+
		"        - type: command\n          command: \"echo '${user_config.greeting}' > "+out("skill-shell")+"\"\n"+
		"        - type: command\n          command: \"echo $CLAUDE_PLUGIN_OPTION_GREETING > "+out("skill-env")+"\"\n"+
		"        - type: command\n          command: sh\n          args: [\"-c\", 'echo \"$1\" > \"$2\"', sh, \"${user_config.greeting}\", \""+out("skill-exec")+"\"]\n"+
		"---\n\nprobe body\n", 0o644)
	writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
		"matcher": "Bash",
		"hooks": []any{
			map[string]any{"type": "command", "command": "sh", "args": []any{"-c", `echo "$1" > "$2"`, "sh", "${user_config.mode}", out("exec-default")}},
			map[string]any{"type": "command", "command": "echo \"${CLAUDE_PLUGIN_OPTION_MODE-unset}\" > " + out("env-default")},
			map[string]any{"type": "command", "command": "sh", "args": []any{"-c", `echo "$1" > "$2"`, "sh", "${user_config.greeting}", out("exec-stored")}},
		},
	}}}})
	a := New(t, Claude, Call("Skill", map[string]any{"skill": "optsk:probe"}), ShellCall(Claude, "touch "+marker), Say("done"))
	a.Settings = map[string]any{"pluginConfigs": map[string]any{"optsk@inline": map[string]any{"options": map[string]any{"greeting": "hello"}}}}
	a.Args = []string{"--plugin-dir", dir, "--allowedTools", "Bash,Skill"}
	res := a.Run(t, "hello")
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the tool did not run: %v\n%s", err, res)
	}
	ran := ranFiles(rec, "skill-shell", "skill-env", "skill-exec", "exec-default", "env-default", "exec-stored")
	want := []string{"skill-shell=${user_config.greeting}", "skill-env=", "skill-exec=${user_config.greeting}", "env-default=unset", "exec-stored=hello"}
	if !slices.Equal(ran, want) {
		t.Errorf("the hooks that ran: %q, want %q\n%s", ran, want, res)
	}
	warned, review := warnedPaths(t, dir, "hook.option-skill")
	if want := []string{"skills/probe/SKILL.md: hooks.PreToolUse[0].hooks[0].command", "skills/probe/SKILL.md: hooks.PreToolUse[0].hooks[2].command"}; !slices.Equal(warned, want) {
		t.Errorf("review warned of %q, want %q\n%s", warned, want, review)
	}
}

// TestClaudeHookShellField: Claude Code 2.1.332 reads a plugin hook's
// "shell": "bash" runs the command as usual; "powershell" runs a
// shell-form command with pwsh (or powershell) from PATH and, where
// neither is installed, not at all (the tool still runs); any other value
// fails its hooks schema, and on a PreToolUse hook that refuses the whole
// plugin: none of its hooks run and its skill is not loaded ("a
// PreToolUse/PermissionRequest hook that cannot be loaded may be what
// guards the permissions declared beside it, so nothing it sits in is
// applied", claude plugin validate). bundlectl runs hooks with a POSIX
// shell only: its review warns of the hooks it would otherwise run
// differently (hook.shell), and of the plugin Claude Code would not load,
// which it then reviews for Codex only (a bundle no other host reads is
// refused); the scripts claude_hook_shell_scope and
// claude_hook_shell_refused hold hooks run and the exec view to not
// running the others. TestClaudeHookShellScope has the other
// events and skills.
func TestClaudeHookShellField(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("pwsh"); err == nil {
		t.Skip("pwsh is installed: Claude Code would run the powershell hook")
	}
	for _, tc := range []struct {
		name, shell string
		want        []string
	}{
		{"powershell", "powershell", []string{"other", "skill", "tool-ran"}},
		{"bash", "bash", []string{"shell", "other", "skill", "tool-ran"}},
		{"zsh", "zsh", []string{"tool-ran"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := t.TempDir()
			dir := filepath.Join(t.TempDir(), "shf")
			writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": "shf", "version": "1.0.0"})
			writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
				"matcher": "Bash",
				"hooks": []any{
					map[string]any{"type": "command", "command": "echo ran > " + filepath.Join(rec, "shell"), "shell": tc.shell},
					map[string]any{"type": "command", "command": "echo ran > " + filepath.Join(rec, "other")},
				},
			}}}})
			writeFile(t, dir, "skills/sk/SKILL.md", "---\nname: sk\ndescription: sk\n---\n\nshf-skill-body\n", 0o644)
			a := New(t, Claude, Call("Skill", map[string]any{"skill": "shf:sk"}), ShellCall(Claude, "touch "+filepath.Join(rec, "tool-ran")), Say("done"))
			a.Args = []string{"--plugin-dir", dir, "--allowedTools", "Bash,Skill"}
			res := a.Run(t, "hello")
			var ran []string
			for _, n := range []string{"shell", "other", "skill", "tool-ran"} {
				if n == "skill" && requestsHold(a, "shf-skill-body") || exists(filepath.Join(rec, n)) {
					ran = append(ran, n)
				}
			}
			if !slices.Equal(ran, tc.want) {
				t.Errorf("ran %q, want %q\n%s", ran, tc.want, res)
			}
			var review struct {
				Errors, Warnings []ReviewWarning
			}
			// A refused bundle's review exits 1, its JSON on stdout.
			out, errOut, _ := bundlectlRun(t, t.TempDir(), "review", "--json", dir)
			if err := json.Unmarshal([]byte(out), &review); err != nil {
				t.Fatalf("review --json: %v\n%s%s", err, out, errOut)
			}
			var warned, refused []string
			for _, w := range review.Warnings {
				if w.Rule == "hook.shell" {
					warned = append(warned, w.Path)
				}
			}
			for _, w := range review.Errors {
				if w.Rule == "hook.shell" {
					refused = append(refused, w.Path)
				}
			}
			var wantWarned, wantRefused []string
			switch tc.shell {
			case "powershell":
				wantWarned = []string{"hooks/hooks.json: hooks.PreToolUse[0].hooks[0].shell"}
			case "zsh":
				// Refused by Claude Code alone: the manifest makes the
				// bundle a Codex plugin too, which Codex loads
				// (TestCodexHookShellIgnored).
				wantWarned = []string{"hooks/hooks.json: hooks.PreToolUse[0].hooks[0].shell"}
			}
			if !slices.Equal(warned, wantWarned) || !slices.Equal(refused, wantRefused) {
				t.Errorf("review warned of %q and refused for %q, want %q and %q\n%s", warned, refused, wantWarned, wantRefused, out)
			}
		})
	}
}

// TestClaudeHookShellScope: a "shell" Claude Code 2.1.332 rejects, on a
// hook of an event that is no guard (PostToolUse), in hooks/hooks.json or
// inline in plugin.json, drops that hook alone: the plugin loads and its
// other hooks run. In a skill's front matter it drops every hook of that
// skill (its PreToolUse and PostToolUse hooks alike), and the skill still
// loads. bundlectl exec runs the same hooks.
func TestClaudeHookShellScope(t *testing.T) {
	t.Parallel()
	write := func(dir, rec string) {
		h := func(n, shell string) map[string]any {
			m := map[string]any{"type": "command", "command": "echo ran > " + filepath.Join(rec, n)}
			if shell != "" {
				m["shell"] = shell
			}
			return m
		}
		writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": "shscope", "version": "1.0.0", "hooks": map[string]any{
			"PostToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{h("inline-bad", "fish"), h("inline-sibling", "")}}},
		}})
		writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{
			"PreToolUse":  []any{map[string]any{"matcher": "Bash", "hooks": []any{h("file-pre", "")}}},
			"PostToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{h("file-bad", "zsh"), h("file-sibling", "")}}},
		}})
		writeFile(t, dir, "skills/sk/SKILL.md", "---\nname: sk\ndescription: sk\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n"+
			"        - type: command\n          command: \"echo ran > "+filepath.Join(rec, "skill-bad")+"\"\n          shell: zsh\n"+
			"        - type: command\n          command: \"echo ran > "+filepath.Join(rec, "skill-sibling")+"\"\n"+
			"  PostToolUse:\n    - matcher: Bash\n      hooks:\n"+
			"        - type: command\n          command: \"echo ran > "+filepath.Join(rec, "skill-post")+"\"\n"+
			"---\n\nshscope-skill-body\n", 0o644)
	}
	script := func(rec string) []Turn {
		return []Turn{Call("Skill", map[string]any{"skill": "shscope:sk"}), ShellCall(Claude, "touch "+filepath.Join(rec, "tool-ran")), Say("done")}
	}
	inPlace, viaExec, _ := runInPlaceAndExec(t, "shscope", write, script, "shscope-skill-body")
	names := []string{"inline-bad", "inline-sibling", "file-pre", "file-bad", "file-sibling", "skill-bad", "skill-sibling", "skill-post"}
	want := []string{"inline-sibling=ran", "file-pre=ran", "file-sibling=ran"}
	if got := ranFiles(inPlace, names...); !slices.Equal(got, want) {
		t.Errorf("in place, the hooks that ran: %q, want %q", got, want)
	}
	if got := ranFiles(viaExec, names...); !slices.Equal(got, want) {
		t.Errorf("through bundlectl exec, the hooks that ran: %q, want %q", got, want)
	}
}

// TestClaudeHookRootWithSpace: Claude Code 2.1.332 runs a plugin hook's
// shell-form command as written, ${CLAUDE_PLUGIN_ROOT} left for /bin/sh to
// expand from the environment. Its rewrite that quotes such a reference
// when the path holds white space ("hook_path_quotes") waits on a
// remotely set flag, off in a session that reaches no Anthropic server: a
// plugin directory with a space then splits into words, the guard is not
// found (exit 127, a non-blocking error) and the tool runs. bundlectl
// passes the root as one word (harness expander.shell), so its guard runs
// — what Claude Code does with the flag on; docs/claude-code.md names the
// difference.
func TestClaudeHookRootWithSpace(t *testing.T) {
	t.Parallel()
	rec := t.TempDir()
	dir := filepath.Join(t.TempDir(), "with space", "sproot")
	writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": "sproot", "version": "1.0.0"})
	writeFile(t, dir, "guard.sh", "#!/bin/sh\ntouch "+filepath.Join(rec, "guard-ran")+"\necho blocked by the guard >&2\nexit 2\n", 0o755)
	writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
		"matcher": "Bash",
		"hooks":   []any{map[string]any{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/guard.sh"}},
	}}}})
	a := New(t, Claude, ShellCall(Claude, "touch "+filepath.Join(rec, "tool-ran")), Say("done"))
	a.Args = []string{"--plugin-dir", dir, "--allowedTools", "Bash"}
	res := a.Run(t, "hello")
	if exists(filepath.Join(rec, "guard-ran")) || !exists(filepath.Join(rec, "tool-ran")) {
		t.Errorf("guard ran: %v, tool ran: %v; want the guard not found and the tool run\n%s",
			exists(filepath.Join(rec, "guard-ran")), exists(filepath.Join(rec, "tool-ran")), res)
	}
}
