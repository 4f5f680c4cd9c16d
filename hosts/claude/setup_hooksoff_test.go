package claude

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/bundlectl/bundlectl/hosts"
)

// TestSetupHooksOffValues: Claude Code 2.1.332 runs none of setup's lines
// beside a disableAllHooks set to anything but false (agenttest
// TestSetupClaudeDisableAllHooks: "true", 1 and "false" too), so
// setup refuses each, naming the value as written; false and no switch
// at all are no refusal. Setup once refused true alone and wrote the
// lines beside "true".
func TestSetupHooksOffValues(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{"true", `"disableAllHooks": "true"`},
		{1, `"disableAllHooks": 1`},
		{"false", `"disableAllHooks": "false"`},
		{true, `"disableAllHooks": true`},
		{false, ""},
		{nil, ""},
	} {
		h := newOwnHome(t)
		if c.v != nil {
			h.write(t, filepath.Join(h.config, "settings.json"), map[string]any{"disableAllHooks": c.v})
		}
		err := Host{}.SetupHooksOff(hosts.SetupInput{Environ: h.env()})
		var off *hosts.HooksOffError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("disableAllHooks %#v: %v, want nil", c.v, err)
		case c.want != "" && (!errors.As(err, &off) || off.Setting != c.want || off.Pattern == ""):
			t.Errorf("disableAllHooks %#v: %v, want %s named with its line", c.v, err, c.want)
		}
	}
}
