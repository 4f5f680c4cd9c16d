package agenttest

import (
	"fmt"
	"strings"
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
	const market = "bundlectl-mine"
	id := ownPlugin + "@" + market
	for _, exclusive := range []bool{false, true} {
		t.Run(fmt.Sprintf("exclusive=%v", exclusive), func(t *testing.T) {
			s := newExecSession(t, Codex)
			a, f := s.a, s.f
			if exclusive {
				a.Launcher = append(a.Launcher[:len(a.Launcher)-1], "--exclusive", "--")
			}
			installOwnPlugin(t, a, market, ownPlugin, "")
			a.CodexConfig = fmt.Sprintf("[plugins.%q]\nenabled = true\n\n", id) + a.CodexConfig
			res := a.Run(t, execPrompt(Codex))
			f.checkGuard(t, a, res, s.shellTurn)
			loaded := ownLoaded(a, ownPlugin)
			if !exclusive && !loaded {
				t.Fatalf("the own plugin did not load: this test's premise (Codex 0.171 loads it) no longer holds\n%s", res)
			}
			if exclusive && loaded {
				t.Errorf("bundlectl exec --exclusive: the own plugin %s loaded\n%s", id, res)
			}
			named := strings.Contains(res.Stderr, fmt.Sprintf("bundlectl: codex: your own plugin %q loads beside the views", id))
			if named == exclusive {
				t.Errorf("exclusive=%v: stderr names the own plugin: %v\n%s", exclusive, named, res)
			}
		})
	}
}
