package agenttest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// What each host does with a UTF-8 byte-order mark before its JSON files,
// and with a server name that occurs twice in one MCP server map. The
// bundle readers follow (docs/validation.md "manifest.json" and
// "mcp.last-definition"; bundle TestJSONByteOrderMarkAsHostsRead and
// TestDuplicateServerLastDefinition).
//
// Each case writes a plugin whose MCP map names server "dup" twice (the
// first offering tool "firstdup", the second "lastdup", each recording
// that it started) and whose hooks file has a hook that runs on every
// prompt, with the mark before one file.

const bom = "\uFEFF"

func dupServers(fakemcp, rec string) string {
	return fmt.Sprintf(`{"dup": {"command": %q, "args": ["-tool", "firstdup", "-record", %q]}, "dup": {"command": %q, "args": ["-tool", "lastdup", "-record", %q]}}`,
		fakemcp, filepath.Join(rec, "firstdup"), fakemcp, filepath.Join(rec, "lastdup"))
}

func promptHook(event, rec string) string {
	return fmt.Sprintf(`{"hooks": {%q: [{"hooks": [{"type": "command", "command": "touch %s/hook"}]}]}}`, event, rec)
}

// probeRan is what ran: the first or the last server of the name, the hook.
type probeRan struct{ first, last, hook bool }

func probed(rec string) probeRan {
	ex := func(n string) bool { _, err := os.Stat(filepath.Join(rec, n)); return err == nil }
	return probeRan{ex("firstdup"), ex("lastdup"), ex("hook")}
}

type bomCase struct {
	name string
	bom  string // the file that starts with the mark, "" for none
	want probeRan
}

// TestClaudeBOMAndDuplicateServer: Claude Code 2.1.332 skips a mark before
// plugin.json and loads the plugin (its name from the manifest); it reads
// no server from a marked .mcp.json and no hook from a marked hooks file;
// of a repeated server name it starts the last.
func TestClaudeBOMAndDuplicateServer(t *testing.T) {
	t.Parallel()
	for _, c := range []bomCase{
		{"plain", "", probeRan{last: true, hook: true}},
		{"manifest", ".claude-plugin/plugin.json", probeRan{last: true, hook: true}},
		{"mcp", ".mcp.json", probeRan{hook: true}},
		{"hooks", "hooks/hooks.json", probeRan{last: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rec := t.TempDir()
			root := filepath.Join(t.TempDir(), "dirname")
			files := map[string]string{
				".claude-plugin/plugin.json": `{"name": "bomprobe", "version": "1.0.0"}`,
				".mcp.json":                  `{"mcpServers": ` + dupServers(FakeMCPServer(t), rec) + `}`,
				"hooks/hooks.json":           promptHook("UserPromptSubmit", rec),
			}
			for rel, body := range files {
				if rel == c.bom {
					body = bom + body
				}
				writeFile(t, root, rel, body, 0o644)
			}
			a := New(t, Claude, Say("done"))
			a.Args = []string{"--plugin-dir", root}
			res := a.Run(t, "hello")
			if got := probed(rec); got != c.want {
				t.Errorf("ran %+v, want %+v\n%s", got, c.want, res)
			}
			if c.want.last {
				first := a.Model.CallsAt(0)
				if len(first) == 0 || !first[0].Contains("mcp__plugin_bomprobe_dup__lastdup") {
					t.Errorf("the server's tool was not offered under the manifest's name bomprobe\n%s", a.Model.Dump())
				}
			}
			if c.name == "plain" {
				warnings, out := ReviewWarnings(t, root)
				if !slices.ContainsFunc(warnings, func(w ReviewWarning) bool {
					return w.Rule == "mcp.last-definition" && w.Path == ".mcp.json: mcpServers.dup"
				}) {
					t.Errorf("review: no mcp.last-definition warning for the repeated server\n%s", out)
				}
			}
		})
	}
}

// TestCodexBOMAndDuplicateServer: Codex 0.171 loads nothing of a plugin
// whose manifest is marked — its own, or .claude-plugin/plugin.json it falls
// back to —, no server from a marked .mcp.json and no hook from a marked
// hooks file; of a repeated server name it starts the last.
func TestCodexBOMAndDuplicateServer(t *testing.T) {
	t.Parallel()
	for _, c := range []bomCase{
		{"plain", "", probeRan{last: true, hook: true}},
		{"manifest", ".codex-plugin/plugin.json", probeRan{}},
		{"mcp", ".mcp.json", probeRan{hook: true}},
		{"hooks", "hooks/hooks.json", probeRan{last: true}},
		{"claude-fallback", "", probeRan{last: true, hook: true}},
		{"claude-fallback-marked", ".claude-plugin/plugin.json", probeRan{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rec := t.TempDir()
			src := filepath.Join(t.TempDir(), "src", pluginName)
			manifest := ".codex-plugin/plugin.json"
			if c.name == "claude-fallback" || c.name == "claude-fallback-marked" {
				manifest = ".claude-plugin/plugin.json"
			}
			files := map[string]string{
				manifest:           fmt.Sprintf(`{"name": %q, "version": "1.0.0", "description": "probe"}`, pluginName),
				".mcp.json":        `{"mcpServers": ` + dupServers(FakeMCPServer(t), rec) + `}`,
				"hooks/hooks.json": promptHook("UserPromptSubmit", rec),
			}
			for rel, body := range files {
				if rel == c.bom {
					body = bom + body
				}
				writeFile(t, src, rel, body, 0o644)
			}
			writeSkill(t, src)
			a := New(t, Codex, Say("done"))
			a.Args = []string{"-c", "features.plugins=true", "-c", fmt.Sprintf("plugins={%q={enabled=true}}", codexPluginID), "--dangerously-bypass-hook-trust"}
			placeCopy(t, filepath.Join(a.ConfigDir(), "plugins", "cache"), src)
			res := a.Run(t, "hello")
			if got := probed(rec); got != c.want {
				t.Errorf("ran %+v, want %+v\n%s", got, c.want, res)
			}
			first := a.Model.CallsAt(0)
			skill := len(first) > 0 && first[0].Contains(skillDescription)
			if loads := c.want != (probeRan{}); skill != loads {
				t.Errorf("skill offered %v, want %v (the plugin loads)", skill, loads)
			}
		})
	}
}

// TestGeminiBOMAndDuplicateServer: Gemini CLI 0.61 loads nothing of an
// extension whose gemini-extension.json is marked, and no hook from a
// marked hooks file; of a repeated server name it starts the last.
func TestGeminiBOMAndDuplicateServer(t *testing.T) {
	t.Parallel()
	for _, c := range []bomCase{
		{"plain", "", probeRan{last: true, hook: true}},
		{"manifest", "gemini-extension.json", probeRan{}},
		{"hooks", "hooks/hooks.json", probeRan{last: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rec := t.TempDir()
			a := New(t, GeminiCLI, Say("done"))
			root := filepath.Join(a.ConfigDir(), "extensions", pluginName)
			files := map[string]string{
				"gemini-extension.json": fmt.Sprintf(`{"name": %q, "version": "1.0.0", "contextFileName": "GEMINI.md", "mcpServers": %s}`, pluginName, dupServers(FakeMCPServer(t), rec)),
				"GEMINI.md":             contextText + "\n",
				"hooks/hooks.json":      promptHook("BeforeAgent", rec),
			}
			for rel, body := range files {
				if rel == c.bom {
					body = bom + body
				}
				writeFile(t, root, rel, body, 0o644)
			}
			res := a.Run(t, "hello")
			if got := probed(rec); got != c.want {
				t.Errorf("ran %+v, want %+v\n%s", got, c.want, res)
			}
			first := a.Model.CallsAt(0)
			ctx := len(first) > 0 && first[0].Contains(contextText)
			if loads := c.want != (probeRan{}); ctx != loads {
				t.Errorf("context file sent %v, want %v (the extension loads)", ctx, loads)
			}
		})
	}
}
