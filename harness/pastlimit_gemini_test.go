package harness_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
)

// TestGeminiGuardPastLimit: on Gemini CLI's AfterModel and
// BeforeToolSelection no exit 2 holds, so a guard there that cannot run
// stops the agent or offers no tools. One whose timeout is past
// bundlectl's limit (Gemini CLI waits for it: TestHostsGuardTimeouts)
// and is still running at bundlectl's limit has an unknown answer too:
// it was only a failure (exit 1 under hooks exec, nothing under hooks
// run), so the judged model answer and every tool went through where
// Gemini CLI would still be waiting for the guard.
func TestGeminiGuardPastLimit(t *testing.T) {
	harness.SetHookLimit(200 * time.Millisecond)
	defer harness.SetHookLimit(0)
	for _, event := range []string{"AfterModel", "BeforeToolSelection"} {
		t.Run(event, func(t *testing.T) {
			home, ws := activeHookBundle(t, "gemini-extension.json", []byte(`{"hooks": {"`+event+`": [{"hooks": [{"type": "command", "command": "cat >/dev/null; sleep 30", "timeout": 3600000}]}]}}`))
			r, err := harness.Load(harness.Options{Home: home, Workspace: ws, Host: bundle.HostGemini})
			must(t, err)
			defer r.Close()
			hooks := r.Hooks(event)
			if len(hooks) != 1 {
				t.Fatalf("%d hooks, want 1 (Gemini CLI loads it)", len(hooks))
			}
			out, err := r.FireHooks(context.Background(), event, []byte(`{"hook_event_name":"`+event+`"}`))
			must(t, err)
			if event == "AfterModel" && !out.Blocked || event == "BeforeToolSelection" && !out.NoTools {
				t.Errorf("hooks run: %+v, want the guard's unknown answer to fail closed", out)
			}
			res, err := r.ExecHook(context.Background(), "hg", hooks[0].ID, []byte(`{"hook_event_name":"`+event+`"}`))
			if err == nil || !strings.Contains(err.Error(), "bundlectl's limit") {
				t.Errorf("hooks exec: result %+v, error %v; want an error for the caller to stop the agent or offer no tools", res, err)
			}
			var be *harness.BlockError
			if errors.As(err, &be) {
				t.Errorf("hooks exec: a BlockError (exit 2), which Gemini CLI ignores on %s", event)
			}
		})
	}
}
