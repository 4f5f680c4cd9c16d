package agenttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCodexSessionEndClamp: Codex 0.171 clamps a SessionEnd or Interrupt
// hook's timeout to 3 s, warning "clamping SessionEnd hook timeout to 3s"
// on every session, and then does not run a SessionEnd line that asks for
// more. bundlectl setup codex wrote its lines with a day (86400 s) and
// bundlectl exec's view a plugin hook's timeout plus 30 s, so a trusted
// plugin's SessionEnd hook never ran through either, while installed it
// does. Both write 3 s on those events now (codex.ClampedHookTimeout),
// and the hook runs. No guard failed open — Codex lets no SessionEnd or
// Interrupt hook block anything — but the review showed hooks bundlectl
// said it wired and Codex never ran.
func TestCodexSessionEndClamp(t *testing.T) {
	t.Parallel()
	for _, through := range []string{"setup", "exec"} {
		t.Run(through, func(t *testing.T) {
			t.Parallel()
			rec := t.TempDir()
			hooks := map[string]any{"hooks": map[string]any{"SessionEnd": []any{
				map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "touch " + filepath.Join(rec, "end")}}},
			}}}
			a := New(t, Codex, ShellCall(Codex, "true"), Say("done"))
			if through == "setup" {
				installCodexHooks(t, a, "setup", hooks)
			} else {
				f := newExecFixture(t, a)
				writeJSONFile(t, f.src, "hooks/hooks.json", hooks)
				f.trust(t)
				a.Args = []string{"-c", "features.plugins=true"}
				a.Launcher = f.launcher(t)
			}
			res := a.Run(t, "hi")
			if _, err := os.Stat(filepath.Join(rec, "end")); err != nil {
				t.Errorf("the plugin's SessionEnd hook did not run through bundlectl %s: %v\n%s", through, err, res)
			}
			if strings.Contains(res.String(), "clamping") {
				t.Errorf("Codex clamps a timeout bundlectl %s wrote\n%s", through, res)
			}
		})
	}
}
