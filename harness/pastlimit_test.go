package harness_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
)

// TestGuardPastLimit: Claude Code 2.1.332, Codex 0.171 and Gemini CLI 0.61
// each load and run a hook whose timeout is longer than bundlectl's 600 s
// limit (internal/agenttest TestHostsGuardTimeouts), and would go on
// waiting for its answer. bundlectl runs it too, waits at most its limit,
// and then blocks a guard's event, under hooks run (the chain) and hooks
// exec (exit 2), rather than skipping the hook or letting the tool run. A
// hook of an event nothing can block only fails, and one whose timeout is
// within the limit fails as before.
func TestGuardPastLimit(t *testing.T) {
	harness.SetHookLimit(200 * time.Millisecond)
	defer harness.SetHookLimit(0)
	for _, c := range []struct {
		name, event, timeout string
		blocked              bool
	}{
		{"guard-3600", "PreToolUse", "3600", true},
		{"guard-huge", "PreToolUse", "9223372036854775807", true},
		{"guard-within", "PreToolUse", "1", false},
		{"not-a-guard", "SessionStart", "3600", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			hook := `{"type": "command", "command": "cat >/dev/null; sleep 30", "timeout": ` + c.timeout + `}`
			home, ws := httpGuard(t, []byte(`{"hooks": {"`+c.event+`": [{"hooks": [`+hook+`]}]}}`))
			for _, host := range []bundle.Host{bundle.HostClaude, bundle.HostCodex, ""} {
				r, err := harness.Load(harness.Options{Home: home, Workspace: ws, Host: host})
				must(t, err)
				out, err := r.FireHooks(context.Background(), c.event, []byte(`{"tool_name":"Bash","tool_input":{"command":"ls"}}`))
				must(t, err)
				if out.Blocked != c.blocked || c.blocked && !strings.Contains(out.Reason, "bundlectl's limit") {
					t.Errorf("host %q: blocked %v, want %v; reason %q, errors %+v", host, out.Blocked, c.blocked, out.Reason, out.Errors)
				}
				hooks := r.Hooks(c.event)
				if len(hooks) != 1 {
					t.Fatalf("host %q: %d hooks, want 1 (the host loads it)", host, len(hooks))
				}
				res, err := r.ExecHook(context.Background(), "hg", hooks[0].ID, []byte(`{"tool_name":"Bash"}`))
				must(t, err)
				if blocked := res.ExitCode == 2; blocked != c.blocked {
					t.Errorf("host %q: hooks exec exit %d (timed out %v), want a block %v", host, res.ExitCode, res.TimedOut, c.blocked)
				}
				r.Close()
			}
		})
	}
}
