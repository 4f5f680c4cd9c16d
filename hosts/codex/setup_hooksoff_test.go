package codex

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/bundlectl/bundlectl/hosts"
)

// TestSetupHooksOffLayers: Codex reads /etc/codex/config.toml below the
// user's config.toml, so a features.hooks = false there keeps setup's
// lines from running unless the user's file sets features.hooks itself.
// Setup once read the user's file alone and said all was wired.
func TestSetupHooksOffLayers(t *testing.T) {
	for _, c := range []struct {
		system, user string
		want         string // the file that turns hooks off, "" for none
	}{
		{"", "", ""},
		{"[features]\nhooks = false\n", "", "etc/config.toml"},
		{"[features]\nhooks = false\n", "model = \"x\"\n", "etc/config.toml"},
		{"[features]\nhooks = false\n", "[features]\nhooks = true\n", ""},
		{"[features]\nhooks = true\n", "[features]\nhooks = false\n", "home/config.toml"},
		{"", "[features]\nhooks = false\n", "home/config.toml"},
	} {
		files := map[string]string{"home/": ""}
		if c.system != "" {
			files["etc/config.toml"] = c.system
		}
		if c.user != "" {
			files["home/config.toml"] = c.user
		}
		root := ownFixture(t, files)
		err := Host{}.SetupHooksOff(hosts.SetupInput{Environ: []string{"CODEX_HOME=" + filepath.Join(root, "home")}})
		var off *hosts.HooksOffError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("system %q, user %q: %v, want nil", c.system, c.user, err)
		case c.want != "" && (!errors.As(err, &off) || off.File != filepath.Join(root, c.want) || off.Setting != "features.hooks = false" || off.Pattern == ""):
			t.Errorf("system %q, user %q: %#v, want features.hooks = false in %s with its line", c.system, c.user, err, c.want)
		}
	}
}
