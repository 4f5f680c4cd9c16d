package agenttest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestClaudeOptionShellForm: Claude Code 2.1.332 does not run a plugin
// hook whose shell-form command (no "args") holds ${user_config.KEY}: of
// any option, sensitive or not, set or not, declared or not, and in a
// plugin that declares no userConfig at all. It refuses the hook ("Hook
// from plugin … references ${user_config.*} in a shell-form command. The
// substituted value would be re-parsed by the shell") and the tool still
// runs: the hook guarded nothing. The same value reaches an exec-form
// hook's args and a shell-form hook's $CLAUDE_PLUGIN_OPTION_<KEY> (an
// exec-form reference to an option with no value fails as well). bundle
// TestClaudeOptionShellFormHook holds the review to a warning; the scripts
// configure_options and exec_claude_option_shell hold hooks run and the
// exec view to not running it either.
func TestClaudeOptionShellForm(t *testing.T) {
	t.Parallel()
	for _, declares := range []bool{true, false} {
		name := "declares-options"
		if !declares {
			name = "declares-none"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rec := t.TempDir()
			marker := filepath.Join(rec, "tool-ran")
			dir := filepath.Join(t.TempDir(), "optsh")
			manifest := map[string]any{"name": "optsh", "version": "1.0.0"}
			if declares {
				manifest["userConfig"] = map[string]any{
					"greeting": map[string]any{"type": "string", "title": "Greeting", "description": "what to say"},
					"api_key":  map[string]any{"type": "string", "title": "Key", "description": "a key", "sensitive": true},
					"unset":    map[string]any{"type": "string", "title": "Unset", "description": "never stored"},
				}
			}
			writeJSONFile(t, dir, ".claude-plugin/plugin.json", manifest)
			hook := func(command string, args ...string) map[string]any {
				h := map[string]any{"type": "command", "command": command}
				if args != nil {
					a := []any{}
					for _, s := range args {
						a = append(a, s)
					}
					h["args"] = a
				}
				return h
			}
			out := func(n string) string { return filepath.Join(rec, n) }
			writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
				"matcher": "Bash",
				"hooks": []any{
					hook("echo ${user_config.greeting} > " + out("shell-plain")),
					hook("echo ${user_config.api_key} > " + out("shell-sensitive")),
					hook("echo ${user_config.unset} > " + out("shell-unset")),
					hook("echo ${user_config.nosuch} > " + out("shell-undeclared")),
					hook("true || echo '${user_config.greeting}'; echo ok > " + out("shell-quoted")),
					hook("echo \"$CLAUDE_PLUGIN_OPTION_GREETING\" > " + out("shell-env")),
					hook("sh", "-c", `echo "$1" > "$2"`, "sh", "${user_config.greeting}", out("exec-args")),
				},
			}}}})
			a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
			if declares {
				a.Settings = map[string]any{"pluginConfigs": map[string]any{"optsh@inline": map[string]any{"options": map[string]any{"greeting": "hello", "api_key": "k3y"}}}}
			}
			a.Args = []string{"--plugin-dir", dir, "--allowedTools", "Bash"}
			res := a.Run(t, "hello")
			if _, err := os.Stat(marker); err != nil {
				t.Fatalf("the tool did not run: %v\n%s", err, res)
			}
			var ran []string
			for _, n := range []string{"shell-plain", "shell-sensitive", "shell-unset", "shell-undeclared", "shell-quoted", "shell-env", "exec-args"} {
				if b, err := os.ReadFile(out(n)); err == nil {
					ran = append(ran, n+"="+strings.TrimSpace(string(b)))
				}
			}
			// An exec-form reference to an option with no value fails too
			// ("Plugin option "greeting" isn't set"): the plugin that
			// declares none has none.
			want := []string{"shell-env="}
			if declares {
				want = []string{"shell-env=hello", "exec-args=hello"}
			}
			if !slices.Equal(ran, want) {
				t.Errorf("the hooks that ran: %q, want %q\n%s", ran, want, res)
			}
			// bundlectl's review warns of exactly the hooks that did not run.
			warnings, review := ReviewWarnings(t, dir)
			var warned []string
			for _, w := range warnings {
				if w.Rule == "hook.option-shell" {
					warned = append(warned, w.Path)
				}
			}
			var refused []string
			for i := range 5 {
				refused = append(refused, fmt.Sprintf("hooks/hooks.json: hooks.PreToolUse[0].hooks[%d].command", i))
			}
			if !slices.Equal(warned, refused) {
				t.Errorf("review warned of %q, want %q\n%s", warned, refused, review)
			}
		})
	}
}
