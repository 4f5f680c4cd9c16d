package claude

import (
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/hosts"
)

// switchFiles are where a test writes each layer's settings: the user's,
// the project's, the local, a --settings file and the managed ones.
func switchFiles(h ownHome) map[string]string {
	return map[string]string{
		"user":    filepath.Join(h.config, "settings.json"),
		"project": filepath.Join(h.wd, ".claude", "settings.json"),
		"local":   filepath.Join(h.wd, ".claude", "settings.local.json"),
		"flag":    filepath.Join(h.wd, "flag.json"),
		"managed": filepath.Join(h.managed, "managed-settings.json"),
		"drop-in": filepath.Join(h.managed, "managed-settings.d", "50-org.json"),
	}
}

// writeRaw writes text as the file at path.
func writeRaw(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// guardView is a view whose guards are hooks.
var guardView = []hosts.BuiltView{{Bundle: "guard", Dir: "/v/g", Hooks: true}}

// givenSettings are the settings of the one --settings argument the
// launch gives Claude Code (read from its file when it is one), nil for
// none.
func givenSettings(t *testing.T, l *hosts.Launch) map[string]any {
	t.Helper()
	var set map[string]any
	for _, a := range l.Argv {
		v, ok := strings.CutPrefix(a, "--settings=")
		if !ok {
			continue
		}
		if set != nil {
			t.Fatalf("two --settings: %q", l.Argv)
		}
		if !isInlineSettings(v) {
			data, err := os.ReadFile(v)
			if err != nil {
				t.Fatal(err)
			}
			v = string(data)
		}
		if err := json.Unmarshal([]byte(v), &set); err != nil {
			t.Fatal(err)
		}
	}
	return set
}

// TestHooksOffPrecedence: exec decides whether a view's hooks run as
// Claude Code 2.1.332 does (agenttest TestExecClaudeHooksSwitches): the
// last of the user's, the project's, the local settings, the last
// --settings and the managed settings (managed-settings.json, then its
// drop-ins) that sets disableAllHooks to a boolean decides, a value that
// is not a boolean counting for nothing, in the user's settings too (a
// plugin's hooks are not that file's); --setting-sources leaves out what
// Claude Code leaves out. exec once refused a true in any of them, so a
// user's true that a project's false undoes, or a project's "true", kept
// a session whose guards run from starting; and it read every --settings
// argument, though Claude Code reads the last.
func TestHooksOffPrecedence(t *testing.T) {
	for _, c := range []struct {
		name   string
		layers map[string]string // layer → its disableAllHooks, as JSON
		args   []string
		want   string // the layer refused ("--settings" for an inline one), "" for none
		undone bool
	}{
		{name: "user true", layers: map[string]string{"user": `true`}, want: "user"},
		{name: "user true, project false", layers: map[string]string{"user": `true`, "project": `false`}, undone: true},
		{name: "project true, local false", layers: map[string]string{"project": `true`, "local": `false`}, undone: true},
		{name: "local true, project false", layers: map[string]string{"project": `false`, "local": `true`}, want: "local"},
		{name: "project not a boolean", layers: map[string]string{"project": `"true"`}},
		{name: "user not a boolean", layers: map[string]string{"user": `"true"`}},
		{name: "user null", layers: map[string]string{"user": `null`}},
		{name: "user 1, project false", layers: map[string]string{"user": `1`, "project": `false`}},
		{name: "project null over user true", layers: map[string]string{"user": `true`, "project": `null`}, want: "user"},
		{name: "local null over project true", layers: map[string]string{"project": `true`, "local": `null`}, want: "project"},
		{name: "--settings false over user true", layers: map[string]string{"user": `true`}, args: []string{"--settings", `{"disableAllHooks": false}`}, undone: true},
		{name: "--settings true over local false", layers: map[string]string{"local": `false`}, args: []string{"--settings", `{"disableAllHooks": true}`}, want: "--settings"},
		{name: "--settings file true over local false", layers: map[string]string{"local": `false`, "flag": `true`}, args: []string{"--settings", "flag.json"}, want: "flag"},
		{name: "--settings not a boolean", args: []string{"--settings", `{"disableAllHooks": "true"}`}},
		{name: "--settings not a boolean over user true", layers: map[string]string{"user": `true`}, args: []string{"--settings", `{"disableAllHooks": "false"}`}, want: "user"},
		{name: "only the last --settings", args: []string{"--settings", `{"disableAllHooks": true}`, "--settings={}"}},
		{name: "the last --settings", args: []string{"--settings={}", "-p", "hi", "--settings", `{"disableAllHooks": true}`}, want: "--settings"},
		{name: "managed false over --settings true", args: []string{"--settings", `{"disableAllHooks": true}`}, layers: map[string]string{"managed": `false`}},
		{name: "managed true over --settings false", args: []string{"--settings", `{"disableAllHooks": false}`}, layers: map[string]string{"managed": `true`}, want: "managed"},
		{name: "managed false over user true", layers: map[string]string{"user": `true`, "managed": `false`}},
		{name: "managed not a boolean", layers: map[string]string{"managed": `"true"`}},
		{name: "drop-in true over managed false", layers: map[string]string{"managed": `false`, "drop-in": `true`}, want: "drop-in"},
		{name: "drop-in false over managed true", layers: map[string]string{"managed": `true`, "drop-in": `false`}},
		{name: "drop-in not a boolean over managed true", layers: map[string]string{"managed": `true`, "drop-in": `"false"`}, want: "managed"},
		{name: "user not read, project false", layers: map[string]string{"user": `true`, "project": `false`}, args: []string{"--setting-sources", "project"}},
		{name: "project not read", layers: map[string]string{"user": `true`, "project": `false`}, args: []string{"--setting-sources", "user"}, want: "user"},
		{name: "no source read, --settings true", layers: map[string]string{"local": `false`}, args: []string{"--setting-sources", "", "--settings", `{"disableAllHooks": true}`}, want: "--settings"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newOwnHome(t)
			files := switchFiles(h)
			for layer, v := range c.layers {
				writeRaw(t, files[layer], `{"disableAllHooks": `+v+`}`)
			}
			l, _, err := launchOwn(t, h, false, guardView, c.args...)
			var off *hosts.HooksOffError
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("%v, want no refusal", err)
			case c.want == "--settings" && (!errors.As(err, &off) || off.File != "--settings" || off.Args == nil):
				t.Fatalf("%v, want the --settings argument refused", err)
			case c.want != "" && c.want != "--settings" && (!errors.As(err, &off) || off.File != files[c.want] || off.Pattern == "" || !strings.HasPrefix(off.Setting, `"disableAllHooks": true`)):
				t.Fatalf("%v, want disableAllHooks in %s refused, with its line", err, files[c.want])
			}
			if err != nil {
				return
			}
			if pinned := givenSettings(t, l)["disableAllHooks"] == false; pinned != c.undone {
				t.Errorf("switch pinned %v, want %v (argv %q)", pinned, c.undone, l.Argv)
			}
		})
	}
}

// TestHooksOffManagedOnly: allowManagedHooksOnly keeps a plugin's hooks
// from running only in the managed settings (agenttest
// TestExecClaudeHooksSwitches), where the last file that sets it to
// anything but null decides and every value but false and "false" turns
// it on. exec once refused it in any settings file, and read the managed
// files one by one, refusing a true a later drop-in turns off.
func TestHooksOffManagedOnly(t *testing.T) {
	for _, c := range []struct {
		name   string
		layers map[string]string // layer → its allowManagedHooksOnly, as JSON
		args   []string
		want   string
	}{
		{name: "user", layers: map[string]string{"user": `true`}},
		{name: "project", layers: map[string]string{"project": `true`}},
		{name: "local", layers: map[string]string{"local": `true`}},
		{name: "--settings", args: []string{"--settings", `{"allowManagedHooksOnly": true}`}},
		{name: "managed", layers: map[string]string{"managed": `true`}, want: "managed"},
		{name: "managed string", layers: map[string]string{"managed": `"true"`}, want: "managed"},
		{name: "managed 0", layers: map[string]string{"managed": `0`}, want: "managed"},
		{name: "managed empty string", layers: map[string]string{"managed": `""`}, want: "managed"},
		{name: "managed false", layers: map[string]string{"managed": `false`}},
		{name: "managed string false", layers: map[string]string{"managed": `"false"`}},
		{name: "managed null", layers: map[string]string{"managed": `null`}},
		{name: "drop-in", layers: map[string]string{"drop-in": `true`}, want: "drop-in"},
		{name: "drop-in false over managed true", layers: map[string]string{"managed": `true`, "drop-in": `false`}},
		{name: "drop-in string false over managed true", layers: map[string]string{"managed": `true`, "drop-in": `"false"`}},
		{name: "drop-in null over managed true", layers: map[string]string{"managed": `true`, "drop-in": `null`}, want: "managed"},
		{name: "drop-in true over managed false", layers: map[string]string{"managed": `false`, "drop-in": `true`}, want: "drop-in"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newOwnHome(t)
			files := switchFiles(h)
			for layer, v := range c.layers {
				writeRaw(t, files[layer], `{"allowManagedHooksOnly": `+v+`}`)
			}
			_, _, err := launchOwn(t, h, false, guardView, c.args...)
			var off *hosts.HooksOffError
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("%v, want no refusal", err)
			case c.want != "" && (!errors.As(err, &off) || off.File != files[c.want] || off.Pattern == "" || !strings.HasPrefix(off.Setting, `"allowManagedHooksOnly": `)):
				t.Fatalf("%v, want allowManagedHooksOnly in %s refused, with its line", err, files[c.want])
			}
		})
	}
}

// TestLaunchPinsSwitch: when the settings files turn hooks back on over
// an earlier true (a user's true, a project's false), launch gives Claude
// Code "disableAllHooks": false in its own --settings: Claude Code drops a
// settings file that fails its schema (a value of the wrong type anywhere
// in it), and the true would hold again, keeping the views' guards from
// running while exec had started the session (agenttest
// TestExecClaudeHooksSwitches). The user's own --settings is carried into
// a file of the session, as under --exclusive; a launch with no true to
// undo gets no --settings.
func TestLaunchPinsSwitch(t *testing.T) {
	t.Run("no true to undo", func(t *testing.T) {
		h := newOwnHome(t)
		writeRaw(t, switchFiles(h)["project"], `{"disableAllHooks": false}`)
		l, _, err := launchOwn(t, h, false, guardView, "-p", "hi")
		if err != nil {
			t.Fatal(err)
		}
		if set := givenSettings(t, l); set != nil {
			t.Errorf("settings %v, want none", set)
		}
	})
	t.Run("undone", func(t *testing.T) {
		h := newOwnHome(t)
		writeRaw(t, switchFiles(h)["user"], `{"disableAllHooks": true}`)
		// A value that fails deeper in where bundlectl does not model the
		// schema (a github marketplace source whose repo is no string,
		// listing a plugin of an unknown kind: schemaDrop,
		// testdata/schema_vectors.txt): the project file may be
		// dropped, and the pin keeps the user's true from holding again.
		writeRaw(t, switchFiles(h)["project"], `{"disableAllHooks": false, "extraKnownMarketplaces": {"m": {"source": {"source": "github", "repo": 5, "plugins": [{"name": "p", "source": {"source": "bogus"}}]}}}}`)
		l, _, err := launchOwn(t, h, false, guardView, "-p", "hi")
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"claude", "--plugin-dir=/v/g", `--settings={"disableAllHooks":false}`, "-p", "hi"}
		if !slices.Equal(l.Argv, want) {
			t.Errorf("argv %q, want %q", l.Argv, want)
		}
	})
	t.Run("undone, the user's --settings carried", func(t *testing.T) {
		h := newOwnHome(t)
		writeRaw(t, switchFiles(h)["user"], `{"disableAllHooks": true}`)
		l, _, err := launchOwn(t, h, false, guardView, "--settings", `{"disableAllHooks": false, "model": "m"}`, "-p", "hi")
		if err != nil {
			t.Fatal(err)
		}
		set := givenSettings(t, l)
		if set["disableAllHooks"] != false || set["model"] != "m" || slices.Contains(l.Argv, "--settings") || strings.Contains(strings.Join(l.Argv, " "), `"model"`) {
			t.Errorf("argv %q settings %v, want the user's settings carried in a file, pinned", l.Argv, set)
		}
	})
	// Carried beside the pin, a value of the user's --settings Claude Code
	// may drop the file for that the model cannot vouch for would take
	// the pin with it (agenttest TestExecClaudeExclusiveCarriedUnmodelledDrop
	// shows the session's file dropped so): exec refuses.
	t.Run("undone, the user's --settings holding an http hook", func(t *testing.T) {
		h := newOwnHome(t)
		writeRaw(t, switchFiles(h)["user"], `{"disableAllHooks": true}`)
		_, _, err := launchOwn(t, h, false, guardView, "--settings", `{"disableAllHooks": false, "hooks": {"PreToolUse": [{"hooks": [{"type": "http", "url": "http://xn--a-/x"}]}]}}`, "-p", "hi")
		var he *hosts.HooksOffError
		if !errors.As(err, &he) || he.File != "--settings" || !strings.Contains(err.Error(), "hooks.PreToolUse[0].hooks[0].url") {
			t.Errorf("err %v, want a HooksOffError naming the http hook's url", err)
		}
	})
	// A --settings of the user's that Claude Code drops for its schema
	// would take the pin down with it (agenttest
	// TestExecClaudePinOverDroppedSettings): its content is left out, as
	// Claude Code reads none of it, and a note says so.
	for _, arg := range []string{"flag.json", `{"statusLine": 5, "model": "m"}`} {
		t.Run("undone, the user's dropped --settings "+arg, func(t *testing.T) {
			h := newOwnHome(t)
			writeRaw(t, switchFiles(h)["user"], `{"disableAllHooks": true}`)
			writeRaw(t, switchFiles(h)["project"], `{"disableAllHooks": false, "extraKnownMarketplaces": {"m": {"source": {"source": "github", "repo": 5, "plugins": [{"name": "p", "source": {"source": "bogus"}}]}}}}`)
			writeRaw(t, filepath.Join(h.wd, "flag.json"), `{"statusLine": 5, "model": "m"}`)
			l, _, err := launchOwn(t, h, false, guardView, "--settings", arg, "-p", "hi")
			if err != nil {
				t.Fatal(err)
			}
			if set := givenSettings(t, l); !maps.Equal(set, map[string]any{"disableAllHooks": false}) {
				t.Errorf("settings %v, want the switch pinned alone", set)
			}
			if !slices.ContainsFunc(l.Notes, func(n string) bool { return strings.Contains(n, `"statusLine": 5 fails`) }) {
				t.Errorf("notes %q, want the dropped --settings named", l.Notes)
			}
		})
	}
	t.Run("exclusive, the user's dropped --settings", func(t *testing.T) {
		h := newOwnHome(t)
		writeRaw(t, switchFiles(h)["user"], `{"enabledPlugins": {"a@m": true}}`)
		l, _, err := launchOwn(t, h, true, guardView, "--settings", `{"statusLine": 5}`)
		if err != nil {
			t.Fatal(err)
		}
		if set := givenSettings(t, l); set["statusLine"] != nil || set["enabledPlugins"].(map[string]any)["a@m"] != false {
			t.Errorf("settings %v, want the plugin off without the dropped settings", set)
		}
	})
	t.Run("undone, exclusive", func(t *testing.T) {
		h := newOwnHome(t)
		writeRaw(t, switchFiles(h)["user"], `{"disableAllHooks": true, "enabledPlugins": {"a@m": true}}`)
		writeRaw(t, switchFiles(h)["local"], `{"disableAllHooks": false}`)
		l, _, err := launchOwn(t, h, true, guardView)
		if err != nil {
			t.Fatal(err)
		}
		set := givenSettings(t, l)
		if e, _ := set["enabledPlugins"].(map[string]any); set["disableAllHooks"] != false || e["a@m"] != false {
			t.Errorf("settings %v, want the plugin off and the switch pinned", set)
		}
	})
	t.Run("not read, nothing undone", func(t *testing.T) {
		h := newOwnHome(t)
		writeRaw(t, switchFiles(h)["user"], `{"disableAllHooks": true}`)
		writeRaw(t, switchFiles(h)["project"], `{"disableAllHooks": false}`)
		l, _, err := launchOwn(t, h, false, guardView, "--setting-sources", "project")
		if err != nil {
			t.Fatal(err)
		}
		if set := givenSettings(t, l); set != nil {
			t.Errorf("settings %v, want none", set)
		}
	})
	t.Run("no hooks, nothing pinned", func(t *testing.T) {
		h := newOwnHome(t)
		writeRaw(t, switchFiles(h)["user"], `{"disableAllHooks": true}`)
		writeRaw(t, switchFiles(h)["project"], `{"disableAllHooks": false}`)
		l, _, err := launchOwn(t, h, false, []hosts.BuiltView{{Bundle: "plain", Dir: "/v/p"}})
		if err != nil {
			t.Fatal(err)
		}
		if set := givenSettings(t, l); set != nil {
			t.Errorf("settings %v, want none", set)
		}
	})
}

// TestHooksOffMissingSettingsFile: a --settings file that does not exist
// stops Claude Code (agenttest TestExecClaudeHooksSwitches); exec says so
// first, naming it, with a hint that shows it is not there.
func TestHooksOffMissingSettingsFile(t *testing.T) {
	h := newOwnHome(t)
	_, _, err := launchOwn(t, h, false, guardView, "--settings", "nope.json")
	var off *hosts.HooksOffError
	if !errors.As(err, &off) || off.File != filepath.Join(h.wd, "nope.json") || off.Hint() != "ls -ld -- "+filepath.Join(h.wd, "nope.json") {
		t.Fatalf("%v, want the file refused, with ls -ld", err)
	}
}

// TestHooksOffSpellings: exec reads each settings file as Claude Code
// 2.1.332 does (readSettings, agenttest TestSetupClaudeSettingsSpellings):
// a byte order mark is skipped, and a file with a comment, a trailing
// comma or no JSON object counts for nothing, as Claude Code ignores it
// whole, so its false does not undo an earlier true nor its true keep
// the guards from running. A file bundlectl cannot read is refused:
// Claude Code might read a true there.
func TestHooksOffSpellings(t *testing.T) {
	const bom = "\ufeff"
	for _, c := range []struct {
		name           string
		project, local string // "DIR" for a directory
		want           string // the layer refused, "unreadable" for the local file, "" for none
	}{
		{name: "local false beside a comment", project: `{"disableAllHooks": true}`, local: `{"disableAllHooks": false /* mine */}`, want: "project"},
		{name: "local false with a trailing comma", project: `{"disableAllHooks": true}`, local: `{"disableAllHooks": false,}`, want: "project"},
		{name: "local an array", project: `{"disableAllHooks": true}`, local: `[]`, want: "project"},
		{name: "local true beside a comment", local: `{"disableAllHooks": true} // mine`},
		{name: "project true with a byte order mark", project: bom + `{"disableAllHooks": true}`, want: "project"},
		{name: "local false with a byte order mark", project: `{"disableAllHooks": true}`, local: bom + `{"disableAllHooks": false}`},
		{name: "local a directory", project: `{"disableAllHooks": true}`, local: "DIR", want: "unreadable"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newOwnHome(t)
			files := switchFiles(h)
			for layer, text := range map[string]string{"project": c.project, "local": c.local} {
				switch text {
				case "":
				case "DIR":
					if err := os.MkdirAll(files[layer], 0o755); err != nil {
						t.Fatal(err)
					}
				default:
					writeRaw(t, files[layer], text)
				}
			}
			_, _, err := launchOwn(t, h, false, guardView)
			var off *hosts.HooksOffError
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("%v, want no refusal", err)
			case c.want == "unreadable" && (!errors.As(err, &off) || off.File != files["local"] || !strings.Contains(off.Setting, "cannot")):
				t.Fatalf("%v, want the local file refused as unreadable", err)
			case c.want != "" && c.want != "unreadable" && (!errors.As(err, &off) || off.File != files[c.want] || !strings.HasPrefix(off.Setting, `"disableAllHooks": true`)):
				t.Fatalf("%v, want disableAllHooks in %s refused", err, files[c.want])
			}
		})
	}
}
