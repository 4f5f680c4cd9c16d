package agenttest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestExecCodexOwnPluginLinked: Codex 0.171 loads a plugin of the user's
// own whose marketplace directory, or plugin directory, in its plugin
// cache is a symbolic link (a local checkout linked in, say), a link
// named as a session's marketplace begins ("bundlectl-mine") too; it
// loads none whose version directory is a link (hosts/codex
// TestInstalledPluginsLinks). bundlectl exec names the plugin, and
// --exclusive keeps it out. exec once counted no link as installed and
// said nothing of the plugin, which loaded.
func TestExecCodexOwnPluginLinked(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, market, link string // link: the directory moved out and linked back
	}{
		{"marketplace link", ownMarketplace, "marketplace"},
		{"plugin link", ownMarketplace, "plugin"},
		{"marketplace link named as a session's", "bundlectl-mine", "marketplace"},
	} {
		for _, exclusive := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/exclusive=%v", c.name, exclusive), func(t *testing.T) {
				t.Parallel()
				var at string
				checkOwnCachePlugin(t, c.market, exclusive, "Codex 0.171 follows the link", func(a *Agent) {
					at = filepath.Join(a.ConfigDir(), "plugins", "cache", c.market)
					if c.link == "plugin" {
						at = filepath.Join(at, ownPlugin)
					}
					moved := filepath.Join(t.TempDir(), "checkout")
					if err := os.Rename(at, moved); err != nil {
						t.Fatal(err)
					}
					if err := os.Symlink(moved, at); err != nil {
						t.Fatal(err)
					}
				})
				if _, err := os.Lstat(at); err != nil {
					t.Errorf("the user's link is gone after the session: %v", err)
				}
			})
		}
	}
}
