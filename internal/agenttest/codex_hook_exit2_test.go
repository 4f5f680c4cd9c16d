package agenttest

import (
	"path/filepath"
	"slices"
	"testing"
)

// codexExit2Context is what the SessionStart hook that runs beside the
// failing one prints: plain stdout, which Codex gives the model as context.
const codexExit2Context = "agenttest-session-context-4c2e"

// codexExit2Hooks are, for SessionStart and PostModelRequest (events a
// Codex hook cannot block), a hook that exits 2 and, after it, one that
// only records that it ran (SessionStart's also prints context).
func codexExit2Hooks(rec string) map[string]any {
	group := func(cmd string) map[string]any {
		return map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd}}}
	}
	fail := func(id string) map[string]any {
		return group("cat > " + filepath.Join(rec, id) + "; echo " + id + " says no >&2; exit 2")
	}
	return map[string]any{"hooks": map[string]any{
		"SessionStart":     []any{fail("start-fail"), group("cat > " + filepath.Join(rec, "start-after") + "; echo " + codexExit2Context)},
		"PostModelRequest": []any{fail("postmodel-fail"), group("cat > " + filepath.Join(rec, "postmodel-after"))},
	}}
}

var codexExit2Ran = []string{"postmodel-after", "postmodel-fail", "start-after", "start-fail"}

// TestCodexNonBlockingExit2: Codex 0.171 takes a hook that exits 2 on an
// event it does not let hooks block (SessionStart, PostModelRequest) as a
// failed hook: it runs the event's other hooks all the same, gives the
// model the context another SessionStart hook prints, and the turn goes
// on (codex-rs hooks/src/events session_start.rs, model.rs, compact.rs:
// any exit status but 0 is HookRunStatus::Failed). The same plugin,
// trusted in bundlectl and run by Codex through `bundlectl setup codex`'s
// hooks (one `bundlectl hooks run --host codex` per event), must behave
// alike: every hook runs and the context reaches the model.
func TestCodexNonBlockingExit2(t *testing.T) {
	t.Parallel()
	for _, through := range []string{"installed", "setup"} {
		t.Run(through, func(t *testing.T) {
			t.Parallel()
			rec := t.TempDir()
			a := New(t, Codex, Say("done"))
			installCodexHooks(t, a, through, codexExit2Hooks(rec))
			res := a.Run(t, "hello")
			if res.Exit != 0 {
				t.Fatalf("codex (%s) exited %d\n%s", through, res.Exit, res)
			}
			ran, _ := takeRan(t, rec)
			if !slices.Equal(ran, codexExit2Ran) {
				t.Errorf("Codex (%s) ran the hooks %q, want %q (found by trying Codex 0.171 with the plugin installed)\n%s", through, ran, codexExit2Ran, res)
			}
			first, ok := lastAt(a, 0)
			if !ok || !first.Contains(codexExit2Context) {
				t.Errorf("Codex (%s) did not give the model the context of the SessionStart hook beside the one that exits 2 (installed, Codex 0.171 does)\n%s\n%s", through, res, a.Model.Dump())
			}
			t.Logf("%s", res)
		})
	}
}
