package harness_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
	"github.com/bundlectl/bundlectl/lifecycle"
)

// TestExecOwnHookGeminiEvent: bundlectl's own PreCompact hook fires under
// Gemini CLI as PreCompress (bundle.GeminiEvents), where Gemini CLI 0.61
// lets no hook block anything. With its snapshot tampered with, hooks
// exec --host gemini answered it by its own name, as a guard of
// PreCompact: a BlockError (exit 2, "the event is blocked"), which Gemini
// CLI ignores and compresses, so the message said more than happened.
// It is now answered as hooks run --host gemini answers PreCompress: a
// failure that names the fix. Under bundlectl's own contract it still
// blocks.
func TestExecOwnHookGeminiEvent(t *testing.T) {
	root := t.TempDir()
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	src := filepath.Join(home, "bundles", "g")
	writeBundle(t, src, `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "g",
  "extensions": {"dev.bundlectl": {"hooks": {"PreCompact": [{"hooks": [{"type": "command", "command": "./hook"}]}]}}}}`,
		map[string]string{"hook": "#!/bin/sh\ncat >/dev/null\n"})
	must(t, os.MkdirAll(ws, 0o755))
	m := lifecycle.New(bundle.Roots{Home: home, Workspace: ws}, bundle.Limits{})
	b := activate(t, m, "g")
	s, err := m.LoadState()
	must(t, err)
	rec, _ := s.Bundle(b.ID)
	snap := rec.Receipt.Snapshot
	must(t, os.Chmod(filepath.Join(snap, "hook"), 0o700))
	must(t, os.WriteFile(filepath.Join(snap, "hook"), []byte("#!/bin/sh\nexit 0\n"), 0o500))
	for _, c := range []struct {
		host    bundle.Host
		event   string
		blocked bool
	}{
		{bundle.HostGemini, "PreCompress", false},
		{"", "PreCompact", true},
	} {
		r, err := harness.Load(harness.Options{Home: home, Workspace: ws, Host: c.host})
		must(t, err)
		hooks := r.Hooks("PreCompact")
		if len(hooks) != 1 {
			t.Fatalf("host %q: %d hooks, want 1", c.host, len(hooks))
		}
		out, _ := r.FireHooks(context.Background(), c.event, []byte(`{"hook_event_name":"`+c.event+`"}`))
		if out.Blocked != c.blocked {
			t.Errorf("host %q: hooks run blocked %v, want %v", c.host, out.Blocked, c.blocked)
		}
		res, err := r.ExecHook(context.Background(), "g", hooks[0].ID, []byte(`{"hook_event_name":"`+c.event+`"}`))
		var be *harness.BlockError
		if err == nil {
			t.Errorf("host %q: hooks exec ran the tampered hook: %+v", c.host, res)
		} else if errors.As(err, &be) != c.blocked {
			t.Errorf("host %q: hooks exec error %v, a block %v, want a block %v", c.host, err, be != nil, c.blocked)
		}
		r.Close()
	}
}
