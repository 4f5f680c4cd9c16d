package harness_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
)

// TestCodexPreCompactGuardPastLimit: Codex 0.171 takes a PreCompact
// hook's exit 2 as a failed hook and compacts all the same, and stops
// the turn only on "continue": false (internal/agenttest
// TestCodexPreCompactStop). A PreCompact guard still running at
// bundlectl's limit, where Codex would still wait for it, has an unknown
// answer: under hooks exec --host codex it was answered with exit 2, so
// Codex compacted unguarded. It is now an error, which the caller
// answers with a stop, as hooks run --host codex does; under bundlectl's
// own contract (Claude Code's, where exit 2 blocks a compaction) it is
// still exit 2.
func TestCodexPreCompactGuardPastLimit(t *testing.T) {
	harness.SetHookLimit(200 * time.Millisecond)
	defer harness.SetHookLimit(0)
	home, ws := activeHookBundle(t, ".codex-plugin/plugin.json", []byte(`{"hooks": {"PreCompact": [{"hooks": [{"type": "command", "command": "cat >/dev/null; sleep 30", "timeout": 3600}]}]}}`))
	input := []byte(`{"hook_event_name":"PreCompact","trigger":"auto"}`)
	for _, host := range []bundle.Host{bundle.HostCodex, ""} {
		t.Run(string(host)+"-host", func(t *testing.T) {
			r, err := harness.Load(harness.Options{Home: home, Workspace: ws, Host: host})
			must(t, err)
			defer r.Close()
			hooks := r.Hooks("PreCompact")
			if len(hooks) != 1 {
				t.Fatalf("%d hooks, want 1 (Codex loads it)", len(hooks))
			}
			out, err := r.FireHooks(context.Background(), "PreCompact", input)
			must(t, err)
			var stdout, stderr bytes.Buffer
			code, _ := harness.WriteOutcome(&stdout, &stderr, out)
			res, err := r.ExecHook(context.Background(), "hg", hooks[0].ID, input)
			if host == bundle.HostCodex {
				if code != 0 || !strings.Contains(stdout.String(), `"continue":false`) {
					t.Errorf("hooks run: exit %d, stdout %s; want a stop", code, stdout.String())
				}
				if err == nil || !strings.Contains(err.Error(), "bundlectl's limit") {
					t.Errorf("hooks exec: result %+v, error %v; want an error for the caller to stop the agent (Codex compacts on exit 2)", res, err)
				}
				var be *harness.BlockError
				if errors.As(err, &be) {
					t.Errorf("hooks exec: a BlockError (exit 2), which Codex takes as a failed hook on PreCompact")
				}
				return
			}
			if code != 2 {
				t.Errorf("hooks run: exit %d, want 2 (a block)", code)
			}
			if err != nil || res.ExitCode != 2 || !strings.Contains(string(res.Stderr), "bundlectl's limit") {
				t.Errorf("hooks exec: result %+v, error %v; want exit 2", res, err)
			}
		})
	}
}
