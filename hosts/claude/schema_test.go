package claude

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/hosts"
	"github.com/bundlectl/bundlectl/internal/testtree"
)

// TestSetupSchemaDrop: Claude Code 2.1.332 drops a user settings file
// holding a value its schema refuses, setup's lines with it (agenttest
// TestSetupClaudeSettingsSchema), so setup refuses, naming the value and
// showing its line, and list says the lines do not run: a wrong type at
// the top, a null where the schema takes none, or a wrong value deeper
// in as far as bundlectl models it (schemaDrop, testdata/schema_vectors.txt).
// A key the schema does not name, one with a fallback for a wrong value,
// one Claude Code mends first (enabledMcpjsonServers, a number in env, a
// null under allowManagedHooksOnly), and a deeper value the model leaves
// alone are read. Setup once wrote its lines beside a "statusLine": 5 and
// said done, and beside a "permissions": {"defaultMode": "bogus"} until
// the model went below the top.
func TestSetupSchemaDrop(t *testing.T) {
	for _, c := range []struct {
		settings, want string
	}{
		{`{"statusLine": 5}`, `"statusLine": 5 (Claude Code's settings schema wants an object there`},
		{`{"model": 5}`, `"model": 5 (`},
		{`{"cleanupPeriodDays": "7"}`, `"cleanupPeriodDays": "7" (`},
		{`{"enabledPlugins": []}`, `"enabledPlugins": [] (`},
		{`{"statusLine": null}`, `"statusLine": null (Claude Code's settings schema wants an object there`},
		{`{"permissions": {"defaultMode": "bogus"}}`, `"permissions": {"defaultMode": "bogus"} (Claude Code's settings schema wants one of "acceptEdits", `},
		{`{"statusLine": {"type": "command", "command": "x", "padding": "1"}}`, `"statusLine": {"padding": "1"} (Claude Code's settings schema wants a number there`},
		{`{"env": {"A": 1}}`, ""},
		{`{"allowManagedHooksOnly": null}`, ""},
		{`{"disableAllHooks": null}`, `"disableAllHooks": null`},
		{`{"extraKnownMarketplaces": {"m": {"source": {"source": "bogus"}}}}`, `"extraKnownMarketplaces": {"m": {"source": {"source": "bogus"}}} (Claude Code's settings schema wants one of "directory", `},
		{`{"extraKnownMarketplaces": {"m": {"source": {"source": "github", "repo": 5, "plugins": [{"name": "p", "source": {"source": "bogus"}}]}}}}`, ""},
		{`{"extraKnownMarketplaces": {"m": {"source": {"source": "settings", "name": "m", "plugins": [{"name": "p", "source": {"source": "bogus"}}]}}}}`, `"extraKnownMarketplaces": {"m": {"source": {"plugins": [{"source": {"source": "bogus"}}]}}} (Claude Code's settings schema wants one of "archive", `},
		{`{"enabledMcpjsonServers": "a"}`, ""},
		{`{"notASetting": 5}`, ""},
		{`{"viewMode": 5}`, ""},
		{`{"permissions": {"allow": "Bash"}}`, `"permissions": {"allow": "Bash"} (Claude Code's settings schema wants an array there`},
		{`{"statusLine": {"type": "command", "command": "x"}, "model": "m"}`, ""},
	} {
		h := newOwnHome(t)
		user := switchFiles(h)["user"]
		writeRaw(t, user, "{\n  \"hooks\": {},\n"+strings.TrimPrefix(c.settings, "{"))
		err := Host{}.SetupHooksOff(hosts.SetupInput{Environ: h.env()})
		var off *hosts.HooksOffError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want nil", c.settings, err)
		case c.want != "" && (!errors.As(err, &off) || off.File != user || !strings.HasPrefix(off.Setting, c.want) || off.Pattern == ""):
			t.Errorf("%s: %v, want %s… refused", c.settings, err, c.want)
		case c.want != "":
			checkHintShowsLine(t, off.Hint(), 3)
		}
	}
}

// checkHintShowsLine runs hint (a grep) and checks it prints line.
func checkHintShowsLine(t *testing.T, hint string, line int) {
	t.Helper()
	out, err := exec.Command("sh", "-c", hint).Output()
	if err != nil || !strings.HasPrefix(string(out), fmt.Sprint(line)+":") {
		t.Errorf("hint %s printed %q (%v), want line %d", hint, out, err, line)
	}
}

// TestSetupSchemaDropElsewhere: a project or local file Claude Code drops
// for its schema counts for nothing, and, as bundlectl knows it is
// dropped, is no refusal either: its true holds nothing off, its false
// undoes no earlier true. Setup once refused a workspace's true there
// (its lines run) and would have, once it knew, refused the file as one
// it could not read.
func TestSetupSchemaDropElsewhere(t *testing.T) {
	h := newOwnHome(t)
	in := hosts.SetupInput{Environ: h.env(), Reentry: hosts.Reentry{Workspace: h.wd}}
	writeRaw(t, switchFiles(h)["project"], `{"disableAllHooks": true, "statusLine": 5}`)
	if err := (Host{}).SetupHooksOff(in); err != nil {
		t.Errorf("a true in a dropped project file: %v, want nil", err)
	}
	writeRaw(t, switchFiles(h)["project"], `{"disableAllHooks": true}`)
	writeRaw(t, switchFiles(h)["local"], `{"disableAllHooks": false, "model": 5}`)
	var off *hosts.HooksOffError
	if err := (Host{}).SetupHooksOff(in); !errors.As(err, &off) || off.File != switchFiles(h)["project"] || !strings.Contains(off.Setting, "does not undo it: Claude Code drops that file, as its \"model\": 5 fails") {
		t.Errorf("a project true, a false in a dropped local file: %v, want the project's true, and why the local false does not undo it", err)
	}
}

// TestExecSchemaDrop: exec counts a file Claude Code drops for its schema
// for nothing, as Claude Code does (agenttest
// TestExecClaudeSettingsSchema): a true in it keeps nothing from running
// (exec once refused it), a false in it undoes no earlier true. A key
// the schema does not name, and a managed file, are read; a key escaped
// in the text is the key, and of a key written twice the last value
// counts, as in Claude Code (agenttest
// TestClaudeSettingsSchemaOtherTypes). A file encoding/json cannot
// decode but Claude Code reads (a number beyond float64, nesting deeper
// than 10000, UTF-16 little-endian after its mark; agenttest
// TestExecClaudeSettingsParse) is refused as one bundlectl cannot read:
// exec once took it for a file Claude Code ignores, and started a
// session whose guards its true kept from running. One in UTF-16
// big-endian or without the mark, in UTF-32, or with a NUL byte, Claude
// Code ignores, and so does exec.
func TestExecSchemaDrop(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		args  []string
		// refused is the layer exec names, "" when it starts.
		refused string
	}{
		{"project true beside a wrong type", map[string]string{"project": `{"disableAllHooks": true, "statusLine": 5}`}, nil, ""},
		{"local true beside a string for an array", map[string]string{"local": `{"disableAllHooks": true, "allowedHttpHookUrls": "x"}`}, nil, ""},
		{"local true beside a null the schema refuses", map[string]string{"local": `{"disableAllHooks": true, "model": null}`}, nil, ""},
		{"local true beside a null Claude Code takes out", map[string]string{"local": `{"disableAllHooks": true, "allowManagedHooksOnly": null}`}, nil, "local"},
		{"project true beside an unknown permission mode", map[string]string{"project": `{"disableAllHooks": true, "permissions": {"defaultMode": "bogus"}}`}, nil, ""},
		{"project true beside an unknown marketplace source kind", map[string]string{"project": `{"disableAllHooks": true, "extraKnownMarketplaces": {"m": {"source": {"source": "bogus"}}}}`}, nil, ""},
		{"project true beside a deeper value not modelled", map[string]string{"project": `{"disableAllHooks": true, "extraKnownMarketplaces": {"m": {"source": {"source": "github", "repo": 5, "plugins": [{"name": "p", "source": {"source": "bogus"}}]}}}}`}, nil, "project"},
		{"project true beside a value Claude Code mends", map[string]string{"project": `{"disableAllHooks": true, "enabledMcpjsonServers": "a"}`}, nil, "project"},
		{"--settings file true beside a wrong type", map[string]string{"flag": `{"disableAllHooks": true, "statusLine": "x"}`}, []string{"--settings", "flag.json"}, ""},
		{"user true, a dropped project false", map[string]string{"user": `{"disableAllHooks": true}`, "project": `{"disableAllHooks": false, "statusLine": 5}`}, nil, "user"},
		{"inline --settings true beside a wrong type", nil, []string{"--settings", `{"disableAllHooks": true, "statusLine": 5}`}, ""},
		{"user true, a dropped inline --settings false", map[string]string{"user": `{"disableAllHooks": true}`}, []string{"--settings", `{"disableAllHooks": false, "statusLine": 5}`}, "user"},
		{"project true beside an unknown key", map[string]string{"project": `{"disableAllHooks": true, "notASetting": 5}`}, nil, "project"},
		{"project true beside a fallback key", map[string]string{"project": `{"disableAllHooks": true, "viewMode": 5}`}, nil, "project"},
		{"managed true beside a wrong type", map[string]string{"managed": `{"disableAllHooks": true, "statusLine": 5}`}, nil, "managed"},
		{"project true beside an escaped key", map[string]string{"project": `{"disableAllHooks": true, "\u0073tatusLine": 5}`}, nil, ""},
		{"project true beside an array for an object of optional fields", map[string]string{"project": `{"disableAllHooks": true, "remote": []}`}, nil, ""},
		{"project true beside \"true\" for a boolean", map[string]string{"project": `{"disableAllHooks": true, "verbose": "true"}`}, nil, ""},
		{"project true, a wrong type written again right", map[string]string{"project": `{"disableAllHooks": true, "statusLine": 5, "statusLine": {"type": "command", "command": "true"}}`}, nil, "project"},
		{"project true, a right type written again wrong", map[string]string{"project": `{"disableAllHooks": true, "statusLine": {"type": "command", "command": "true"}, "statusLine": 5}`}, nil, ""},
		{"project true beside a number out of float64's range", map[string]string{"project": `{"disableAllHooks": true, "x": 1e400}`}, nil, "project"},
		{"project true beside values nested 10001 deep", map[string]string{"project": `{"disableAllHooks": true, "x": ` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`}, nil, "project"},
		{"project true in UTF-16", map[string]string{"project": testtree.UTF16LE(`{"disableAllHooks": true}`)}, nil, "project"},
		{"project true in UTF-16 big-endian, ignored", map[string]string{"project": "\xfe\xff" + testtree.UTF16BE(`{"disableAllHooks": true}`)}, nil, ""},
		{"project true in UTF-16 without a mark, ignored", map[string]string{"project": testtree.UTF16LE(`{"disableAllHooks": true}`)[2:]}, nil, ""},
		{"project true in UTF-32, ignored", map[string]string{"project": testtree.UTF32(`{"disableAllHooks": true}`, false)}, nil, ""},
		{"project true in UTF-32 big-endian, ignored", map[string]string{"project": testtree.UTF32(`{"disableAllHooks": true}`, true)}, nil, ""},
		{"project true beside a NUL byte, ignored", map[string]string{"project": "{\"disableAllHooks\": true, \"x\": \"a\x00b\"}"}, nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newOwnHome(t)
			for layer, text := range c.files {
				writeRaw(t, switchFiles(h)[layer], text)
			}
			_, _, err := launchOwn(t, h, false, guardView, append(c.args, "-p", "hi")...)
			var off *hosts.HooksOffError
			switch {
			case c.refused == "" && err != nil:
				t.Errorf("%v, want Claude Code started", err)
			case c.refused != "" && (!errors.As(err, &off) || off.File != switchFiles(h)[c.refused]):
				t.Errorf("%v, want %s's true refused", err, c.refused)
			case c.name == "user true, a dropped project false" && !strings.Contains(off.Setting, `false of "`+switchFiles(h)["project"]+`" does not undo it: Claude Code drops that file, as its "statusLine": 5 fails`):
				t.Errorf("%v, want the dropped project file named", err)
			case c.name == "user true, a dropped inline --settings false" && !strings.Contains(off.Setting, `false of "--settings" does not undo it: Claude Code drops that argument, as its "statusLine": 5 fails`):
				t.Errorf("%v, want the dropped argument named", err)
			}
		})
	}
}
