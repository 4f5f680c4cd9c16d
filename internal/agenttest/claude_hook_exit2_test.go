package agenttest

import (
	"path/filepath"
	"slices"
	"testing"
)

// claudeExit2Context is what the SessionStart hook beside the failing one
// prints: plain stdout, which Claude Code gives the model as context.
const claudeExit2Context = "agenttest-session-context-7d1a"

// claudeExit2Hooks are, for SessionStart and SessionEnd (events Claude
// Code lets no hook block: its hook help says exit 2 shows stderr to the
// user only), a hook that exits 2 and, after it, one that only records
// that it ran (SessionStart's also prints context).
func claudeExit2Hooks(rec string) map[string]any {
	group := func(cmd string) map[string]any {
		return map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd}}}
	}
	fail := func(id string) map[string]any {
		return group("cat > " + filepath.Join(rec, id) + "; echo " + id + " says no >&2; exit 2")
	}
	return map[string]any{"hooks": map[string]any{
		"SessionStart": []any{fail("start-fail"), group("cat > " + filepath.Join(rec, "start-after") + "; echo " + claudeExit2Context)},
		"SessionEnd":   []any{fail("end-fail"), group("cat > " + filepath.Join(rec, "end-after"))},
	}}
}

var claudeExit2Ran = []string{"end-after", "end-fail", "start-after", "start-fail"}

// TestClaudeNonBlockingExit2: Claude Code 2.1.332 takes a plugin hook
// that exits 2 on an event it lets no hook block (SessionStart,
// SessionEnd) as a failed hook: the event's other hooks run all the same,
// the context another SessionStart hook prints reaches the model, and the
// session goes on. The same plugin, trusted in bundlectl and run by Claude
// Code through `bundlectl setup claude`'s hooks (one `bundlectl hooks run
// --host claude` per event), must behave alike.
func TestClaudeNonBlockingExit2(t *testing.T) {
	t.Parallel()
	for _, through := range []string{"plugin-dir", "setup"} {
		t.Run(through, func(t *testing.T) {
			t.Parallel()
			rec := t.TempDir()
			a := New(t, Claude, Say("done"))
			if through == "plugin-dir" {
				src := filepath.Join(a.Workdir, ".bundlectl", "bundles", pluginName)
				writeJSONFile(t, src, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
				writeJSONFile(t, src, "hooks/hooks.json", claudeExit2Hooks(rec))
				a.Args = []string{"--plugin-dir", src}
			} else {
				f := newExecFixture(t, a)
				writeJSONFile(t, f.src, "hooks/hooks.json", claudeExit2Hooks(rec))
				f.trust(t)
				f.runSetup(t, a, "hello")
			}
			res := a.Run(t, "hello")
			if res.Exit != 0 {
				t.Fatalf("claude (%s) exited %d\n%s", through, res.Exit, res)
			}
			ran, _ := takeRan(t, rec)
			if !slices.Equal(ran, claudeExit2Ran) {
				t.Errorf("Claude Code (%s) ran the hooks %q, want %q (found by trying Claude Code 2.1.332 with --plugin-dir)\n%s", through, ran, claudeExit2Ran, res)
			}
			first, ok := lastAt(a, 0)
			if !ok || !first.Contains(claudeExit2Context) {
				t.Errorf("Claude Code (%s) did not give the model the context of the SessionStart hook beside the one that exits 2 (with --plugin-dir, Claude Code 2.1.332 does)\n%s\n%s", through, res, a.Model.Dump())
			}
			t.Logf("%s", res)
		})
	}
}
