package hosts_test

import (
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/harness"
	"github.com/bundlectl/bundlectl/hosts/claude"
	"github.com/bundlectl/bundlectl/hosts/codex"
	"github.com/bundlectl/bundlectl/hosts/gemini"
)

// TestSetupTimeoutOutlastsAChain checks that the timeout setup gives the
// host for one `hooks run` line leaves room for a chain of guards, each at
// bundlectl's own limit: a host that kills `hooks run` first reads it as a
// failed hook and runs the tool, where a guard still running at its limit
// would have blocked it. And Gemini CLI's runtime fires a timer past
// 2^31-1 ms at once, so its value must stay under that.
func TestSetupTimeoutOutlastsAChain(t *testing.T) {
	const chain = 100 // guards, each at harness.MaxTimeout
	need := chain * harness.MaxTimeout
	for _, c := range []struct {
		host string
		got  time.Duration
	}{
		{"claude", claude.SetupHookTimeout * time.Second},
		{"codex", codex.SetupHookTimeout * time.Second},
		{"gemini", gemini.SetupHookTimeout * time.Millisecond},
	} {
		if c.got < need {
			t.Errorf("%s: setup's hook timeout is %s, shorter than %d guards at bundlectl's limit (%s): the host would cut the chain and run the tool", c.host, c.got, chain, need)
		}
	}
	if gemini.SetupHookTimeout > 1<<31-1 {
		t.Errorf("gemini: setup's hook timeout %d ms is past 2^31-1 ms, which Node.js fires at once", gemini.SetupHookTimeout)
	}
}
