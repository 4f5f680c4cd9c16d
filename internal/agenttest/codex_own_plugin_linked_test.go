package agenttest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	for _, c := range []struct {
		name, market, link string // link: the directory moved out and linked back
	}{
		{"marketplace link", ownMarketplace, "marketplace"},
		{"plugin link", ownMarketplace, "plugin"},
		{"marketplace link named as a session's", "bundlectl-mine", "marketplace"},
	} {
		for _, exclusive := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/exclusive=%v", c.name, exclusive), func(t *testing.T) {
				s := newExecSession(t, Codex)
				a, f := s.a, s.f
				if exclusive {
					a.Launcher = append(a.Launcher[:len(a.Launcher)-1], "--exclusive", "--")
				}
				installOwnPlugin(t, a, c.market, ownPlugin, "")
				at := filepath.Join(a.ConfigDir(), "plugins", "cache", c.market)
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
				id := ownPlugin + "@" + c.market
				a.CodexConfig = fmt.Sprintf("[plugins.%q]\nenabled = true\n\n", id) + a.CodexConfig
				res := a.Run(t, execPrompt(Codex))
				f.checkGuard(t, a, res, s.shellTurn)
				loaded := ownLoaded(a, ownPlugin)
				if !exclusive && !loaded {
					t.Fatalf("the own plugin did not load: this test's premise (Codex 0.171 follows the link) no longer holds\n%s", res)
				}
				if exclusive && loaded {
					t.Errorf("bundlectl exec --exclusive: the own plugin %s loaded\n%s", id, res)
				}
				named := strings.Contains(res.Stderr, fmt.Sprintf("bundlectl: codex: your own plugin %q loads beside the views", id))
				if named == exclusive {
					t.Errorf("exclusive=%v: stderr names the own plugin: %v\n%s", exclusive, named, res)
				}
				if _, err := os.Lstat(at); err != nil {
					t.Errorf("the user's link is gone after the session: %v", err)
				}
			})
		}
	}
}
