package claude

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
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
// TestSetupClaudeHooksSwitches, TestSetupClaudeWorkspaceSwitches):
// allowManagedHooksOnly only in managed settings, set to anything but
// false, "false" or null (in the user's or the project's, the lines run:
// setup once refused there; and it once refused "false" and null), and
// CLAUDE_CODE_SIMPLE in a settings file's "env" (setup once said all was
// wired beside it).
func TestSetupHooksOffSources(t *testing.T) {
	for _, c := range []struct {
		name, file string // file: "managed", "user" or "project"
		settings   map[string]any
		want       string // the Setting refused, "" for none
	}{
		{"managed allowManagedHooksOnly", "managed", map[string]any{"allowManagedHooksOnly": true}, `"allowManagedHooksOnly": true`},
		{"managed allowManagedHooksOnly 0", "managed", map[string]any{"allowManagedHooksOnly": 0}, `"allowManagedHooksOnly": 0`},
		{"managed allowManagedHooksOnly \"false\"", "managed", map[string]any{"allowManagedHooksOnly": "false"}, ""},
		{"managed allowManagedHooksOnly null", "managed", map[string]any{"allowManagedHooksOnly": nil}, ""},
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

// TestSetupHooksOffPrecedence: Claude Code 2.1.332 takes disableAllHooks
// from the last of the user's, the project's, the local and the managed
// settings (managed-settings.json, then its drop-ins) that sets a
// boolean, a value that is not a boolean counting for nothing but in the
// user's settings, where it keeps that file's hooks (setup's lines) from
// running (agenttest TestSetupClaudeWorkspaceSwitches). So a project's
// false turns back on what the user's true turned off, and setup writes
// there; setup once refused any value but false anywhere, list read no
// workspace's settings at all, and setup then refused a managed true
// that a drop-in's false undoes.
func TestSetupHooksOffPrecedence(t *testing.T) {
	for _, c := range []struct {
		name                          string
		user, project, local, managed any    // nil: not set
		dropIn                        any    // managed-settings.d/50-org.json's, nil: not set
		want                          string // "user", "project", "local", "managed", "drop-in" or "" for none
	}{
		{name: "project true", project: true, want: "project"},
		{name: "local true", local: true, want: "local"},
		{name: "user true, project false", user: true, project: false},
		{name: "user true, local false", user: true, local: false},
		{name: "project true, local false", project: true, local: false},
		{name: "local true, project false", project: false, local: true, want: "local"},
		{name: "user false, project true", user: false, project: true, want: "project"},
		{name: "user true, project not a boolean", user: true, project: "false", want: "user"},
		{name: "project not a boolean", project: "true"},
		{name: "project 1", project: 1.0},
		{name: "user not a boolean, project false", user: "false", project: false, want: "user"},
		{name: "user 0, local false", user: 0.0, local: false, want: "user"},
		{name: "managed false over user true", user: true, managed: false},
		{name: "managed false over project true", project: true, managed: false},
		{name: "managed true over local false", local: false, managed: true, want: "managed"},
		{name: "managed not a boolean", managed: "true"},
		{name: "managed 1, user true", user: true, managed: 1.0, want: "user"},
		{name: "drop-in false over managed true", managed: true, dropIn: false},
		{name: "drop-in true over managed false", managed: false, dropIn: true, want: "drop-in"},
		{name: "drop-in not a boolean over managed true", managed: true, dropIn: "false", want: "managed"},
	} {
		h := newOwnHome(t)
		path := map[string]string{
			"user":    filepath.Join(h.config, "settings.json"),
			"project": filepath.Join(h.wd, ".claude", "settings.json"),
			"local":   filepath.Join(h.wd, ".claude", "settings.local.json"),
			"managed": filepath.Join(h.managed, "managed-settings.json"),
			"drop-in": filepath.Join(h.managed, "managed-settings.d", "50-org.json"),
		}
		for layer, v := range map[string]any{"user": c.user, "project": c.project, "local": c.local, "managed": c.managed, "drop-in": c.dropIn} {
			if v != nil {
				h.write(t, path[layer], map[string]any{"disableAllHooks": v})
			}
		}
		err := Host{}.SetupHooksOff(hosts.SetupInput{Environ: h.env(), Reentry: hosts.Reentry{Workspace: h.wd}})
		var off *hosts.HooksOffError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want nil", c.name, err)
		case c.want != "" && (!errors.As(err, &off) || off.File != path[c.want] || off.Pattern == "" || !strings.HasPrefix(off.Setting, `"disableAllHooks": `)):
			t.Errorf("%s: %v, want disableAllHooks in %s with its line", c.name, err, path[c.want])
		}
	}
}

// TestSetupHooksOffUserNull: a null in the user's settings keeps its
// hooks from running (2.1.332), and is named as written; in the
// project's it counts for nothing.
func TestSetupHooksOffUserNull(t *testing.T) {
	h := newOwnHome(t)
	user := filepath.Join(h.config, "settings.json")
	if err := os.WriteFile(user, []byte(`{"disableAllHooks": null}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var off *hosts.HooksOffError
	if err := (Host{}).SetupHooksOff(hosts.SetupInput{Environ: h.env()}); !errors.As(err, &off) || off.Setting != `"disableAllHooks": null` {
		t.Errorf("user null: %v, want it refused", err)
	}
	os.Remove(user)
	if err := os.MkdirAll(filepath.Join(h.wd, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.wd, ".claude", "settings.json"), []byte(`{"disableAllHooks": null}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := (Host{}).SetupHooksOff(hosts.SetupInput{Environ: h.env(), Reentry: hosts.Reentry{Workspace: h.wd}}); err != nil {
		t.Errorf("project null: %v, want nil", err)
	}
}

// TestSetupCaveatsElsewhere: with the user's true turned back off by the
// workspace's false, setup writes (the gate finds nothing) and warns that
// a session in another workspace runs none of the lines, naming the
// user's file; list in another workspace says off.
func TestSetupCaveatsElsewhere(t *testing.T) {
	h := newOwnHome(t)
	user := filepath.Join(h.config, "settings.json")
	h.write(t, user, map[string]any{"disableAllHooks": true})
	h.write(t, filepath.Join(h.wd, ".claude", "settings.json"), map[string]any{"disableAllHooks": false})
	in := hosts.SetupInput{Environ: h.env(), Reentry: hosts.Reentry{Workspace: h.wd}}
	if err := (Host{}).SetupHooksOff(in); err != nil {
		t.Fatalf("gate: %v, want nil", err)
	}
	cs := hosts.SetupCaveats(Host{}, in)
	if len(cs) != 1 || cs[0].Off.File != user || !strings.Contains(cs[0].Message(), "in a claude session started in a workspace whose own settings do not turn hooks back on") {
		t.Fatalf("caveats: %+v", cs)
	}
	if got, want := cs[0].Hint(), "grep -n -E -- '\"disableAllHooks\"' "+user; got != want {
		t.Errorf("hint %q, want %q", got, want)
	}
}

// TestSetupHooksOffSpellings: Claude Code 2.1.332 reads a settings file
// whose text starts with a byte order mark, and ignores whole one that
// is not plain JSON (a comment, a trailing comma) or not an object, or
// that it cannot read (agenttest TestSetupClaudeSettingsSpellings). So a
// local file's false written beside a comment does not undo the
// project's true, and neither does a file setup cannot read: the switch
// that holds is named (list says it; setup once wrote its lines beside
// the comment, and list, stopping at the file it could not read, said
// nothing). A file Claude Code ignores while nothing turns hooks off is
// setup's refusal, naming its line, and list's silence.
func TestSetupHooksOffSpellings(t *testing.T) {
	const bom = "\ufeff"
	for _, c := range []struct {
		name, project, local string // "" for no file; "DIR" for a directory
		want                 string // "project", "local", "refused" (SetupFileError), or "" for none
	}{
		{name: "local false beside a comment", project: `{"disableAllHooks": true}`, local: `{"disableAllHooks": false /* mine */}`, want: "project"},
		{name: "local false with a trailing comma", project: `{"disableAllHooks": true}`, local: `{"disableAllHooks": false,}`, want: "project"},
		{name: "local not JSON", project: `{"disableAllHooks": true}`, local: `{`, want: "project"},
		{name: "local an array", project: `{"disableAllHooks": true}`, local: `[]`, want: "project"},
		{name: "local a directory", project: `{"disableAllHooks": true}`, local: "DIR", want: "project"},
		{name: "project with a byte order mark", project: bom + `{"disableAllHooks": true}`, want: "project"},
		{name: "local false with a byte order mark", project: `{"disableAllHooks": true}`, local: bom + `{"disableAllHooks": false}`},
		{name: "project true beside a comment", project: "// mine\n{\"disableAllHooks\": true}", want: "refused"},
		{name: "project not JSON", project: `{"disableAllHooks": true,}`, want: "refused"},
	} {
		h := newOwnHome(t)
		path := map[string]string{
			"project": filepath.Join(h.wd, ".claude", "settings.json"),
			"local":   filepath.Join(h.wd, ".claude", "settings.local.json"),
		}
		for layer, text := range map[string]string{"project": c.project, "local": c.local} {
			switch text {
			case "":
			case "DIR":
				if err := os.MkdirAll(path[layer], 0o755); err != nil {
					t.Fatal(err)
				}
			default:
				if err := os.MkdirAll(filepath.Dir(path[layer]), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path[layer], []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		err := Host{}.SetupHooksOff(hosts.SetupInput{Environ: h.env(), Reentry: hosts.Reentry{Workspace: h.wd}})
		var off *hosts.HooksOffError
		var fe *hosts.SetupFileError
		switch c.want {
		case "":
			if err != nil {
				t.Errorf("%s: %v, want nil", c.name, err)
			}
		case "refused":
			if !errors.As(err, &fe) || fe.Path != path["project"] || !strings.Contains(err.Error(), "Claude Code") || errors.As(err, &off) {
				t.Errorf("%s: %v, want the project's file refused as one Claude Code ignores", c.name, err)
			}
		default:
			if !errors.As(err, &off) || off.File != path[c.want] || off.Setting != `"disableAllHooks": true` || off.Pattern == "" {
				t.Errorf("%s: %v, want disableAllHooks true in %s with its line", c.name, err, path[c.want])
			}
		}
	}
}
