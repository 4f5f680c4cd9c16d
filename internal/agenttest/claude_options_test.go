package agenttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeOptionDeclaration: the facts bundle's option.declaration rule
// and configure's bounds rest on. Claude Code checks a plugin's userConfig
// against a strict schema and loads nothing of a plugin that does not fit
// it (an unknown field, a missing title, a "sensitive" that is not a
// boolean, a null default): its hook does not run. A declaration that fits,
// with min, max, options and multiple, loads, and its hook gets each
// option as CLAUDE_PLUGIN_OPTION_<KEY>. A stored value outside min and max
// still reaches the hook (the session does not check it; the config
// dialog does, and bundlectl configure refuses it as the dialog would).
func TestClaudeOptionDeclaration(t *testing.T) {
	t.Parallel()
	valid := map[string]any{"type": "number", "title": "Level", "description": "how loud", "min": 1, "max": 5}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for a, b := range valid {
			m[a] = b
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	for _, c := range []struct {
		name  string
		decl  map[string]any
		value any
		loads bool
		env   string // what the hook sees, when it loads
	}{
		{"valid", valid, 3, true, "CLAUDE_PLUGIN_OPTION_LEVEL=3"},
		{"value-over-max", valid, 9, true, "CLAUDE_PLUGIN_OPTION_LEVEL=9"},
		{"unknown-field", with("placeholder", "3"), 3, false, ""},
		{"no-title", with("title", nil), 3, false, ""},
		{"sensitive-string", with("sensitive", "true"), 3, false, ""},
		{"min-string", with("min", "1"), 3, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rec := t.TempDir()
			dir := filepath.Join(t.TempDir(), "optp")
			writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": "optp", "version": "1.0.0", "userConfig": map[string]any{
				"level": c.decl,
				"mode":  map[string]any{"type": "string", "title": "Mode", "description": "how", "options": []any{"fast", "safe"}, "default": "safe"},
				"tags":  map[string]any{"type": "string", "title": "Tags", "description": "labels", "multiple": true},
			}})
			writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"UserPromptSubmit": []any{map[string]any{
				"hooks": []any{map[string]any{"type": "command", "command": "env | grep '^CLAUDE_PLUGIN_OPTION_LEVEL=' > " + filepath.Join(rec, "ran")}}}}}})
			a := New(t, Claude, Say("done"))
			a.Settings = map[string]any{"pluginConfigs": map[string]any{"optp@inline": map[string]any{"options": map[string]any{"level": c.value}}}}
			a.Args = []string{"--plugin-dir", dir}
			res := a.Run(t, "hello")
			got, err := os.ReadFile(filepath.Join(rec, "ran"))
			if (err == nil) != c.loads {
				t.Fatalf("the plugin's hook ran: %v, want %v\n%s", err == nil, c.loads, res)
			}
			if c.loads && strings.TrimSpace(string(got)) != c.env {
				t.Errorf("the hook saw %q, want %q", got, c.env)
			}
		})
	}
}

// TestClaudeOptionValues: how Claude Code hands a stored value to a
// plugin's hook, which bundlectl's runtime matches (lifecycle configure,
// harness reviewedOptions): a multiple option's list as String(list), the
// values joined with "," and no spaces, in CLAUDE_PLUGIN_OPTION_<KEY> and
// in an exec-form ${user_config.KEY} alike; a number as String(n) (1e21 is
// "1e+21", 16 stored from "0x10" is "16"). A declared default, of a number
// or of a list, does not reach the hook of a session that stores no value
// for the option (bundlectl gives the default the review showed: a
// difference docs/claude-code.md names).
func TestClaudeOptionValues(t *testing.T) {
	t.Parallel()
	rec := t.TempDir()
	dir := filepath.Join(t.TempDir(), "optv")
	writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": "optv", "version": "1.0.0", "userConfig": map[string]any{
		"tags":  map[string]any{"type": "string", "title": "Tags", "description": "labels", "multiple": true},
		"big":   map[string]any{"type": "number", "title": "Big", "description": "a big number"},
		"hex":   map[string]any{"type": "number", "title": "Hex", "description": "a number typed as 0x10"},
		"ratio": map[string]any{"type": "number", "title": "Ratio", "description": "a default", "default": 2.5},
		"dlist": map[string]any{"type": "string", "title": "Defaults", "description": "a list default", "multiple": true, "default": []any{"x", "y"}},
	}})
	script := `printf '%s|%s|%s|%s|%s|%s|%s\n' "$CLAUDE_PLUGIN_OPTION_TAGS" "$1" "$CLAUDE_PLUGIN_OPTION_BIG" "$CLAUDE_PLUGIN_OPTION_HEX" "${CLAUDE_PLUGIN_OPTION_RATIO-unset}" "${CLAUDE_PLUGIN_OPTION_DLIST-unset}" "$2" > ` + filepath.Join(rec, "ran")
	writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"UserPromptSubmit": []any{map[string]any{
		"hooks": []any{map[string]any{"type": "command", "command": "sh", "args": []any{"-c", script, "sh", "${user_config.tags}", "${user_config.big}"}}}}}}})
	a := New(t, Claude, Say("done"))
	a.Settings = map[string]any{"pluginConfigs": map[string]any{"optv@inline": map[string]any{"options": map[string]any{
		"tags": []any{"alpha", "be ta"}, "big": 1e21, "hex": 16}}}}
	a.Args = []string{"--plugin-dir", dir}
	res := a.Run(t, "hello")
	got, err := os.ReadFile(filepath.Join(rec, "ran"))
	if err != nil {
		t.Fatalf("the plugin's hook did not run: %v\n%s", err, res)
	}
	if want := "alpha,be ta|alpha,be ta|1e+21|16|unset|unset|1e+21\n"; string(got) != want {
		t.Errorf("the hook saw %q, want %q", got, want)
	}
}

// TestCodexIgnoresUserConfig: Codex 0.171 reads no userConfig: a plugin
// whose manifest (its own, or the Claude Code one it falls back to)
// declares a userConfig Claude Code refuses (an unknown field, no title)
// still loads in Codex, its hook and MCP server run. bundlectl rejects such
// a bundle whole (option.declaration), and its error says it is Claude
// Code that refuses it.
func TestCodexIgnoresUserConfig(t *testing.T) {
	t.Parallel()
	bad := map[string]any{"level": map[string]any{"type": "number", "description": "no title", "placeholder": "3"}}
	for _, manifest := range []string{".codex-plugin/plugin.json", ".claude-plugin/plugin.json"} {
		t.Run(filepath.Dir(manifest), func(t *testing.T) {
			p := newPluginRun(t)
			answer := "agenttest-plugin-mcp-answer-codex"
			src := filepath.Join(t.TempDir(), "src", pluginName)
			codexPlugin(t, src, p.rec, answer)
			if err := os.Remove(filepath.Join(src, ".codex-plugin", "plugin.json")); err != nil {
				t.Fatal(err)
			}
			writeJSONFile(t, src, manifest, map[string]any{"name": pluginName, "version": "1.0.0", "description": "agenttest plugin", "userConfig": bad})
			before := p.runCodexCopy(t, src, "tell me about owls")
			p.checkCommon(t, before, 1, 0, answer)
		})
	}
}
