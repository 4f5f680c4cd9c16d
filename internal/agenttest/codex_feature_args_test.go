package agenttest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestCodexFeatureArgSpellings records which spellings of a -c override of
// the plugins or hooks feature, given after the -c flags with which
// bundlectl exec turns both on and enables a view, keep a plugin's hook
// from running in Codex 0.171 (hook trust bypassed, which only makes more
// hooks run). Codex splits a -c key on dots and keeps each part as
// written, quotes included, so features."hooks" names a feature called
// "hooks" with its quotes, which Codex does not know: it changes nothing.
// (hosts/codex GuardsOff, docs/hosts.md "Codex".)
func TestCodexFeatureArgSpellings(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		arg, config string
		runs, fails bool
	}{
		{arg: "features.hooks=false"},
		{arg: "features.plugins=false"},
		{arg: ` features.hooks = false`},
		{arg: `features."hooks"=false`, runs: true},
		{arg: `features.'hooks'=false`, runs: true},
		{arg: `"features".hooks=false`, runs: true},
		{arg: `features."plugins"=false`, runs: true},
		{arg: `features={hooks=false}`},
		{arg: `features={plugins=false}`},
		{arg: `features={}`, runs: true},
		{arg: `features={hooks=true,plugins=true}`, runs: true},
		{arg: `"features"={hooks=false}`, runs: true},
		{arg: `features.hooks="false"`, fails: true},
		{arg: `features.hooks=0`, fails: true},
		{arg: `features. hooks=false`, runs: true},
		{arg: `features .hooks=false`, runs: true},
		{arg: `"plugins"={}`, runs: true},
		{arg: `plugins={}`},
		{arg: `features={}`, config: "[features]\nhooks = false\n"},
	} {
		t.Run(c.arg+" "+c.config, func(t *testing.T) {
			t.Parallel()
			a := New(t, Codex, ShellCall(Codex, "true"), Say("done"))
			tmp, err := os.MkdirTemp("", "ran") // not t.TempDir: the subtest's name would be part of the command
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(tmp) })
			ran := filepath.Join(tmp, "own-hook-ran")
			dir := filepath.Join(a.ConfigDir(), "plugins", "cache", ownMarketplace, ownPlugin, "1.0.0")
			writeJSONFile(t, dir, ".codex-plugin/plugin.json", map[string]any{"name": ownPlugin, "version": "1.0.0"})
			writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
				"hooks": []any{map[string]any{"type": "command", "command": "touch " + ran}}}}}})
			a.CodexConfig = c.config
			a.Args = []string{"-c", "features.plugins=true", "-c", "features.hooks=true",
				"-c", fmt.Sprintf("plugins={%q={enabled=true}}", ownPluginID), "--dangerously-bypass-hook-trust", "-c", c.arg}
			res := a.Run(t, "hi")
			if c.fails {
				if res.Exit == 0 || len(a.Model.Requests()) > 0 {
					t.Errorf("want codex to refuse the argument before it starts (found by trying Codex 0.171)\n%s", res)
				}
				return
			}
			if res.Exit != 0 {
				t.Fatalf("codex failed\n%s", res)
			}
			if _, err := os.Stat(ran); (err == nil) != c.runs {
				t.Errorf("the plugin's hook ran: %v, want %v (found by trying Codex 0.171)\n%s", err == nil, c.runs, res)
			}
		})
	}
}
