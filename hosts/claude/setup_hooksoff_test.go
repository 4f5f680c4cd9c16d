package claude

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/bundlectl/bundlectl/hosts"
)

// TestSetupHooksOffValues: Claude Code 2.1.332 runs none of setup's lines
// beside a disableAllHooks set to anything but false (agenttest
// TestSetupClaudeHooksSwitches: "true", 1 and "false" too), so
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

// TestSetupHooksOffSources: which settings keep setup's lines from
// running, as Claude Code 2.1.332 reads them (agenttest
// TestSetupClaudeHooksSwitches): allowManagedHooksOnly only in managed
// settings (in the user's or the project's, the lines run: setup once
// refused there), and CLAUDE_CODE_SIMPLE in a settings file's "env"
// (setup once said all was wired beside it).
func TestSetupHooksOffSources(t *testing.T) {
	for _, c := range []struct {
		name, file string // file: "managed", "user" or "project"
		settings   map[string]any
		want       string // the Setting refused, "" for none
	}{
		{"managed allowManagedHooksOnly", "managed", map[string]any{"allowManagedHooksOnly": true}, `"allowManagedHooksOnly": true`},
		{"user allowManagedHooksOnly", "user", map[string]any{"allowManagedHooksOnly": true}, ""},
		{"project allowManagedHooksOnly", "project", map[string]any{"allowManagedHooksOnly": true}, ""},
		{"project disableAllHooks", "project", map[string]any{"disableAllHooks": true}, `"disableAllHooks": true`},
		{"user env CLAUDE_CODE_SIMPLE", "user", map[string]any{"env": map[string]any{"CLAUDE_CODE_SIMPLE": "1"}}, `"env": {"CLAUDE_CODE_SIMPLE": "1"}, Claude Code's minimal or safe mode (no hook runs)`},
		{"user env CLAUDE_CODE_SIMPLE 0", "user", map[string]any{"env": map[string]any{"CLAUDE_CODE_SIMPLE": "0"}}, ""},
	} {
		h := newOwnHome(t)
		path := map[string]string{
			"managed": filepath.Join(h.managed, "managed-settings.json"),
			"user":    filepath.Join(h.config, "settings.json"),
			"project": filepath.Join(h.wd, ".claude", "settings.json"),
		}[c.file]
		h.write(t, path, c.settings)
		err := Host{}.SetupHooksOff(hosts.SetupInput{Environ: h.env(), Reentry: hosts.Reentry{Workspace: h.wd}})
		var off *hosts.HooksOffError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want nil", c.name, err)
		case c.want != "" && (!errors.As(err, &off) || off.Setting != c.want || off.File != path || off.Pattern == ""):
			t.Errorf("%s: %v, want %s in %s with its line", c.name, err, c.want, path)
		}
	}
}
