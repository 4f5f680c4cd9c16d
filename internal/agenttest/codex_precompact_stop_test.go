package agenttest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCodexPreCompactStop: Codex 0.171 compacts all the same when a
// PreCompact hook exits 2 (a failed hook), and aborts the turn before
// compacting when one answers {"continue":false}: the command the model
// asks for after the compaction then never runs. So through `bundlectl
// exec -- codex` a PreCompact guard whose snapshot was tampered with
// during the session stops the turn (hooks exec --host codex answers
// "continue": false, with the reason), where its exit 2 let Codex compact
// and go on unguarded. The compaction is forced as in
// codexMatchedSessions: the stand-in's first answer reports more tokens
// than the limit.
func TestCodexPreCompactStop(t *testing.T) {
	t.Parallel()
	compact := []string{"-c", "model_auto_compact_token_limit=500"}
	for _, c := range []struct {
		name, answer string
		goesOn       bool
	}{
		{"exit2", "cat >/dev/null; echo no >&2; exit 2", true},
		{"continue-false", `cat >/dev/null; echo '{"continue":false,"stopReason":"agenttest: no compaction"}'`, false},
	} {
		t.Run("installed/"+c.name, func(t *testing.T) {
			marker := filepath.Join(t.TempDir(), markerName)
			a := New(t, Codex, ShellCall(Codex, "true"), ShellCall(Codex, "touch "+marker), Say("done"))
			a.Model.FirstTokens = 1000
			root := versionDir(filepath.Join(a.ConfigDir(), "plugins", "cache"))
			writeJSONFile(t, root, ".codex-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
			writeJSONFile(t, root, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"PreCompact": []any{
				map[string]any{"hooks": []any{map[string]any{"type": "command", "command": c.answer}}}}}})
			a.CodexConfig = fmt.Sprintf("[plugins.%q]\nenabled = true\n", codexPluginID)
			a.Args = append([]string{"-c", "features.plugins=true", "--dangerously-bypass-hook-trust"}, compact...)
			res := a.Run(t, "hello")
			_, err := os.Stat(marker)
			if ran := err == nil; ran != c.goesOn {
				t.Fatalf("after a PreCompact hook that answers %q, the command after the compaction ran: %v, want %v (found by trying Codex 0.171)\n%s\n%s", c.answer, ran, c.goesOn, res, a.Model.Dump())
			}
		})
	}

	t.Run("exec/tampered", func(t *testing.T) {
		tmp := t.TempDir()
		marker := filepath.Join(tmp, markerName)
		a := New(t, Codex)
		f := newExecFixture(t, a)
		f.marker = marker
		writeJSONFile(t, f.src, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"PreCompact": []any{
			map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "${PLUGIN_ROOT}/bin/guard.sh"}}}}}})
		f.trust(t)
		snap := f.snapshot(t)
		writeFile(t, tmp, "evil-guard", "#!/bin/sh\ntouch "+f.tamper+"\nexit 0\n", 0o755)
		guard := filepath.Join(snap, "bin", "guard.sh")
		tamper := fmt.Sprintf("chmod u+w %s && cat %s > %s", guard, filepath.Join(tmp, "evil-guard"), guard)
		a.Model.Script = []Turn{ShellCall(Codex, tamper), ShellCall(Codex, "touch "+marker), Say("done")}
		a.Model.FirstTokens = 1000
		allowExecTools(a)
		a.Args = append(a.Args, compact...)
		a.Launcher = f.launcher(t)
		res := a.Run(t, "tamper, then make the marker")
		if b, err := os.ReadFile(guard); err != nil || !strings.Contains(string(b), f.tamper) {
			t.Fatalf("the tamper command did not replace the snapshot's guard (%v)\n%s\n%s", err, res, a.Model.Dump())
		}
		if _, err := os.Stat(f.tamper); err == nil {
			t.Errorf("the tampered guard ran")
		}
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("Codex compacted and went on after the PreCompact guard could not run\n%s\n%s", res, a.Model.Dump())
		}
		// codex exec prints the stop, not its stopReason.
		if !strings.Contains(res.String(), "hook: PreCompact Stopped") {
			t.Errorf("Codex did not report the PreCompact stop\n%s", res)
		}
	})
}
