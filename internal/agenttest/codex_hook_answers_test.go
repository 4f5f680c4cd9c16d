package agenttest

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// codexAnswerContext is what the SessionStart hook beside the one whose
// answer Codex cannot use prints: plain stdout, context for the model.
const codexAnswerContext = "agenttest-answer-context-81d3"

// codexBlockAnswerHooks are, for SessionStart and PostModelRequest (events
// a Codex hook cannot block), a hook that answers exit 0 with
// {"decision":"block"} (on SessionStart, one with a field Codex's schema
// lacks; on PostModelRequest, one with {"continue":false}) and, after them, one that only records that it ran
// (SessionStart's also prints context).
func codexBlockAnswerHooks(rec string) map[string]any {
	group := func(cmd string) map[string]any {
		return map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd}}}
	}
	answer := func(id, json string) map[string]any {
		return group("cat > " + filepath.Join(rec, id) + "; printf '%s' '" + json + "'")
	}
	return map[string]any{"hooks": map[string]any{
		"SessionStart": []any{
			answer("start-block", `{"decision":"block","reason":"start says no"}`),
			answer("start-unknown", `{"bogus":1,"systemMessage":"agenttest-unknown-field-msg"}`),
			group("cat > " + filepath.Join(rec, "start-after") + "; echo " + codexAnswerContext),
		},
		"PostModelRequest": []any{
			answer("postmodel-block", `{"decision":"block","reason":"model says no"}`),
			answer("postmodel-stop", `{"continue":false,"stopReason":"model stop"}`),
			group("cat > " + filepath.Join(rec, "postmodel-after")),
		},
	}}
}

var codexBlockAnswerRan = []string{"postmodel-after", "postmodel-block", "postmodel-stop", "start-after", "start-block", "start-unknown"}

// TestCodexNonBlockingDecision: Codex 0.171 reads a hook's answer on an
// event it lets no hook block with that event's own output schema, which
// has no "decision" nor "reason" and refuses unknown fields (codex-rs
// hooks/src/schema.rs, deny_unknown_fields; events/session_start.rs
// parse_completed: JSON it cannot parse is "invalid session start JSON
// output", a failed hook). So {"decision":"block"} there stops nothing: the
// event's other hooks run, and another SessionStart hook's context reaches
// the model. A {"continue":false} on PostModelRequest is taken as nothing
// at all: the later hook runs and the turn goes on. The same plugin, run by Codex through `bundlectl setup
// codex`'s hooks (`bundlectl hooks run --host codex`), must do the same;
// before, the chain stopped at the block, the later hooks did not run and
// the context was lost.
func TestCodexNonBlockingDecision(t *testing.T) {
	t.Parallel()
	for _, through := range []string{"installed", "setup"} {
		t.Run(through, func(t *testing.T) {
			t.Parallel()
			rec := t.TempDir()
			a := New(t, Codex, Say("done"))
			installCodexHooks(t, a, through, codexBlockAnswerHooks(rec))
			res := a.Run(t, "hello")
			if res.Exit != 0 {
				t.Fatalf("codex (%s) exited %d\n%s", through, res.Exit, res)
			}
			ran, _ := takeRan(t, rec)
			if !slices.Equal(ran, codexBlockAnswerRan) {
				t.Errorf("Codex (%s) ran the hooks %q, want %q (found by trying Codex 0.171 with the plugin installed)\n%s", through, ran, codexBlockAnswerRan, res)
			}
			first, ok := lastAt(a, 0)
			if !ok || !first.Contains(codexAnswerContext) {
				t.Errorf("Codex (%s) did not give the model the context of the SessionStart hook beside the one that answers decision block (installed, Codex 0.171 does)\n%s\n%s", through, res, a.Model.Dump())
			}
			if strings.Contains(res.Stdout+res.Stderr, "agenttest-unknown-field-msg") {
				t.Errorf("Codex (%s) showed the systemMessage of an answer with a field its schema lacks (installed, Codex 0.171 uses none of such an answer)\n%s", through, res)
			}
			if len(a.Model.ModelCalls()) == 0 {
				t.Errorf("Codex (%s) never asked the model\n%s", through, res)
			}
			t.Logf("%s", res)
		})
	}
}
