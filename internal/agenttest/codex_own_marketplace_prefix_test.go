package agenttest

import (
	"fmt"
	"testing"
)

// TestExecCodexOwnMarketplaceNamedLikeASession: a plugin of the user's
// own installed under a marketplace whose name begins as a session's
// does ("bundlectl-mine", a real directory in Codex's plugin cache, not
// a session's link) and enabled in config.toml loads in Codex 0.171
// beside the views: bundlectl exec names it, and --exclusive keeps it
// out. exec once took every such directory for a session's and said
// nothing of the plugin, which loaded (hosts/codex installedPlugins).
func TestExecCodexOwnMarketplaceNamedLikeASession(t *testing.T) {
	t.Parallel()
	for _, exclusive := range []bool{false, true} {
		t.Run(fmt.Sprintf("exclusive=%v", exclusive), func(t *testing.T) {
			t.Parallel()
			checkOwnCachePlugin(t, "bundlectl-mine", exclusive, "Codex 0.171 loads it", nil)
		})
	}
}
