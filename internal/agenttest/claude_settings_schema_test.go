package agenttest

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/hosts/claude"
)

// TestExecClaudeSettingsSchema: Claude Code 2.1.332 drops a project,
// local or --settings file holding a top-level value of the wrong type
// for its settings schema ("statusLine": 5, where it wants an object;
// a string for a boolean, a number or an array; an array for an
// object), its disableAllHooks with it, while a key its schema does not
// name, one whose schema falls back on a wrong value ("viewMode": 5), or
// one it reads from managed settings only and deletes from the others
// first ("deniedModels"), or one it mends before the check (a string
// "enabledMcpjsonServers"), leaves the file read; a null it takes out of
// some keys first (allowManagedHooksOnly) and drops the file for under
// others ("model": null), as does a value deeper in that fails (an
// unknown permissions.defaultMode, a timeout of 0 in a PreToolUse hook;
// in a Stop hook Claude Code takes the hook out and reads the rest).
// Deeper than bundlectl models the schema (a marketplace source listing
// a plugin of an unknown kind; one of an unknown kind itself it models)
// it counts the file read, and exec refuses where the guard would run:
// fail closed. exec counts such a file as Claude Code does (hosts/claude
// schemaDrop): it once refused the dropped file's true, keeping a session
// whose guards run from starting; now it starts it, and still refuses a
// true beside an unknown key. A --settings file with a comment Claude
// Code ignores whole, as the files it reads otherwise.
func TestExecClaudeSettingsSchema(t *testing.T) {
	t.Parallel()
	const projectFile = "./.claude/settings.json"
	const userFile = "~/.claude/settings.json"
	for _, c := range []execSwitchCase{
		{guardCase: guardCase{name: "project true beside a wrong type", files: map[string]string{projectFile: `{"disableAllHooks": true, "statusLine": 5}`}, blocks: true}},
		{guardCase: guardCase{name: "local true beside a null the schema refuses", files: map[string]string{"./.claude/settings.local.json": `{"disableAllHooks": true, "model": null}`}, blocks: true}},
		{guardCase: guardCase{name: "local true beside a null Claude Code takes out", files: map[string]string{"./.claude/settings.local.json": `{"disableAllHooks": true, "allowManagedHooksOnly": null}`}}, refused: "./.claude/settings.local.json", setting: `"disableAllHooks": true`},
		{guardCase: guardCase{name: "project true beside an unknown permission mode", files: map[string]string{projectFile: `{"disableAllHooks": true, "permissions": {"defaultMode": "bogus"}}`}, blocks: true}},
		{guardCase: guardCase{name: "project true beside a bad PreToolUse hook", files: map[string]string{projectFile: `{"disableAllHooks": true, "hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "true", "timeout": 0}]}]}}`}, blocks: true}},
		{guardCase: guardCase{name: "project true beside a bad Stop hook, taken out", files: map[string]string{projectFile: `{"disableAllHooks": true, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true", "timeout": 0}]}]}}`}}, refused: projectFile, setting: `"disableAllHooks": true`},
		// Claude Code drops the file and runs the guard; exec, not
		// knowing, refuses the true: fail closed, by design.
		{guardCase: guardCase{name: "project true beside a deeper value not modelled", files: map[string]string{projectFile: `{"disableAllHooks": true, "extraKnownMarketplaces": {"m": {"source": {"source": "github", "repo": 5, "plugins": [{"name": "p", "source": {"source": "bogus"}}]}}}}`}, blocks: true}, refused: projectFile, setting: `"disableAllHooks": true`},
		{guardCase: guardCase{name: "project true beside a settings marketplace listing a plugin of an unknown kind", files: map[string]string{projectFile: `{"disableAllHooks": true, "extraKnownMarketplaces": {"m": {"source": {"source": "settings", "name": "m", "plugins": [{"name": "p", "source": {"source": "bogus"}}]}}}}`}, blocks: true}},
		{guardCase: guardCase{name: "project true beside an unknown marketplace source kind", files: map[string]string{projectFile: `{"disableAllHooks": true, "extraKnownMarketplaces": {"m": {"source": {"source": "bogus"}}}}`}, blocks: true}},
		{guardCase: guardCase{name: "project true beside an http hook url with no scheme", files: map[string]string{projectFile: `{"disableAllHooks": true, "hooks": {"PreToolUse": [{"hooks": [{"type": "http", "url": "/hook"}]}]}}`}, blocks: true}},
		{guardCase: guardCase{name: "project true beside a string for a boolean", files: map[string]string{projectFile: `{"disableAllHooks": true, "respectGitignore": "yes"}`}, blocks: true}},
		{guardCase: guardCase{name: "project true beside a string for a number", files: map[string]string{projectFile: `{"disableAllHooks": true, "cleanupPeriodDays": "7"}`}, blocks: true}},
		{guardCase: guardCase{name: "project true beside a string for an array", files: map[string]string{projectFile: `{"disableAllHooks": true, "allowedHttpHookUrls": "x"}`}, blocks: true}},
		{guardCase: guardCase{name: "project true beside a value Claude Code mends", files: map[string]string{projectFile: `{"disableAllHooks": true, "enabledMcpjsonServers": "a"}`}}, refused: projectFile, setting: `"disableAllHooks": true`},
		{guardCase: guardCase{name: "project true beside an array for an object", files: map[string]string{projectFile: `{"disableAllHooks": true, "enabledPlugins": []}`}, blocks: true}},
		{guardCase: guardCase{name: "--settings file true beside a wrong type", files: map[string]string{"./flag.json": `{"disableAllHooks": true, "model": 5}`}, args: []string{"--settings", "flag.json"}, blocks: true}},
		{guardCase: guardCase{name: "--settings file true beside a comment", files: map[string]string{"./flag.json": "{\"disableAllHooks\": true /* mine */}"}, args: []string{"--settings", "flag.json"}, blocks: true}},
		{guardCase: guardCase{name: "user true, a dropped project false", files: map[string]string{userFile: `{"disableAllHooks": true}`, projectFile: `{"disableAllHooks": false, "statusLine": 5}`}}, refused: userFile, setting: `"disableAllHooks": true (the "disableAllHooks": false of "WORKDIR/.claude/settings.json" does not undo it: Claude Code drops that file, as its "statusLine": 5 fails Claude Code's settings schema)`},
		{guardCase: guardCase{name: "project true beside an unknown key", files: map[string]string{projectFile: `{"disableAllHooks": true, "notASetting": 5}`}}, refused: projectFile, setting: `"disableAllHooks": true`},
		{guardCase: guardCase{name: "project true beside a managed-only key", files: map[string]string{projectFile: `{"disableAllHooks": true, "deniedModels": 5}`}}, refused: projectFile, setting: `"disableAllHooks": true`},
		{guardCase: guardCase{name: "project true beside a fallback key", files: map[string]string{projectFile: `{"disableAllHooks": true, "viewMode": 5}`}}, refused: projectFile, setting: `"disableAllHooks": true`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runExecSwitchCase(t, c)
		})
	}
}

// TestSetupClaudeSettingsSchema: with setup's lines in the user's
// settings.json, Claude Code 2.1.332 runs none of them when the file also
// holds a top-level value of the wrong type ("statusLine": 5) or a
// wrong value deeper in ("permissions": {"defaultMode": "bogus"}): it
// drops the whole file. setup refuses, naming the value, and list says
// the lines do not run; setup once wrote its lines and said done. An
// unknown key leaves the file read, and setup wires.
func TestSetupClaudeSettingsSchema(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		key  string
		v    any
		off  bool
	}{
		{"statusLine 5", "statusLine", 5, true},
		{"unknown permission mode", "permissions", map[string]any{"defaultMode": "bogus"}, true},
		{"unknown key", "notASetting", 5, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			marker := t.TempDir() + "/" + markerName
			a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
			f := newTrustedFixture(t, a, marker)
			f.runSetup(t, a, "owls")
			a.Settings[c.key] = c.v
			a.Command(t, "owls")
			a.Args = append(a.Args, "--allowedTools", "Bash")
			res := a.Run(t, "touch the marker")
			if _, err := os.Stat(marker); (err == nil) != c.off {
				t.Fatalf("the guarded command ran: %v, want %v: this test's premise (Claude Code 2.1.332) no longer holds\n%s", err == nil, c.off, res)
			}
			refuse := map[string]string{
				"statusLine":  `"statusLine": 5 (Claude Code's settings schema wants an object there`,
				"permissions": `"permissions": {"defaultMode": "bogus"} (Claude Code's settings schema wants one of "acceptEdits", `,
			}[c.key]
			checkVerdict(t, a, f, nil, setupEnv(a), c.name, offVerdict(c.off, refuse, ""))
		})
	}
}

// TestClaudeSettingsSchemaTable: every key hosts/claude takes Claude
// Code's settings schema to require a JSON type of (SettingsSchemaTypes)
// makes Claude Code 2.1.332 drop a project settings file holding a value
// of another type beside "disableAllHooks": true, so a plugin's guard
// runs; and a null there drops it exactly where hosts/claude says
// (SettingsSchemaNullDrops: under most keys; under some 30, most of them
// switches that count in managed settings, Claude Code takes it out
// first). A key it does not drop the file for would let exec start a
// session whose guards a true in that file keeps from running: the
// table first held five such keys (enabledMcpjsonServers and
// disabledMcpjsonServers, given a string; modelPicker, modelPricing and
// remoteControl, given one), taken from the schema alone. The settings
// that should drop their file are tried four a session, each in its own
// settings file (user, project, local, --settings), where the guard runs
// only when all four are dropped; a batch where it does not is tried
// again one a session to name the setting (on the same busy 2-core
// machine it ran in 3m20s, where one a session took 7m04s).
func TestClaudeSettingsSchemaTable(t *testing.T) {
	t.Parallel()
	wrong := map[string]string{"boolean": `"x"`, "string": `5`, "number": `"x"`, "array": `"x"`, "object": `"x"`}
	types := claude.SettingsSchemaTypes()
	nulls := claude.SettingsSchemaNullDrops()
	var drops []schemaSetting
	for _, k := range slices.Sorted(maps.Keys(types)) {
		v, ok := wrong[types[k]]
		if !ok {
			t.Fatalf("%s: a type this test has no wrong value for: %s", k, types[k])
		}
		drops = append(drops, schemaSetting{k, v})
		if k == "disableAllHooks" {
			continue // its null would take the true's place: TestClaudeSettingsEnvDropped tries it
		}
		if nulls[k] {
			drops = append(drops, schemaSetting{k, "null"})
			continue
		}
		// A null Claude Code takes out leaves the file read: one file a
		// session, as any file read keeps the guard from running.
		c := guardCase{name: k + " null", files: map[string]string{"./.claude/settings.json": fmt.Sprintf(`{"disableAllHooks": true, %q: null}`, k)}}
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if ran, _, res := runGuardCase(t, c); ran {
				t.Errorf("%q: null dropped the file, bundlectl takes it to leave it read\n%s", k, res)
			}
		})
	}
	for batch := range slices.Chunk(drops, len(schemaBatchFiles)) {
		t.Run(batch[0].text(), func(t *testing.T) {
			t.Parallel()
			if ran, _, _ := runGuardCase(t, batchCase(batch)); ran {
				return
			}
			// Some file of the batch was read: find which, one a session.
			for _, s := range batch {
				c := guardCase{name: s.text(), files: map[string]string{"./.claude/settings.json": "{" + s.text() + "}"}}
				if ran, _, res := runGuardCase(t, c); !ran {
					t.Errorf("%s did not drop the file: Claude Code ran no guard\n%s", s.text(), res)
				}
			}
		})
	}
}

// schemaSetting is a top-level key and a value (JSON text) for it.
type schemaSetting struct{ key, value string }

// text is the setting beside "disableAllHooks": true, as a file's
// members.
func (s schemaSetting) text() string {
	return fmt.Sprintf(`"disableAllHooks": true, %q: %s`, s.key, s.value)
}

// schemaBatchFiles are the settings files a session reads that Claude
// Code holds to its schema: with "disableAllHooks": true in each, a
// plugin's guard runs only when it drops every one, so one session tries
// up to four settings that should each drop the file they are in.
var schemaBatchFiles = []string{"~/.claude/settings.json", "./.claude/settings.json", "./.claude/settings.local.json", "./flag.json"}

// batchCase is a session with each of batch in its own settings file,
// the last given as --settings.
func batchCase(batch []schemaSetting) guardCase {
	c := guardCase{name: batch[0].text(), files: map[string]string{}}
	for i, s := range batch {
		c.files[schemaBatchFiles[i]] = "{" + s.text() + "}"
		if schemaBatchFiles[i] == "./flag.json" {
			c.args = []string{"--settings", "flag.json"}
		}
	}
	return c
}

// TestClaudeSettingsSchemaVectors: Claude Code 2.1.332 drops a project
// settings file for each value below a top-level key that
// hosts/claude/testdata/schema_vectors.txt says it drops (a plugin's
// guard runs beside "disableAllHooks": true), and reads it for each
// other; hosts/claude TestSchemaVectors holds bundlectl's model to the
// same file, where it never claims a drop Claude Code does not make.
// Found so: below permissions, env, enabledPlugins and statusLine a
// wrong type, a null, an unknown word drop it; of hooks only the
// PreToolUse, PermissionRequest and PreSkillShellCommand events do,
// under the others Claude Code takes out what fails and reads the rest.
func TestClaudeSettingsSchemaVectors(t *testing.T) {
	t.Parallel()
	for _, v := range readSchemaVectors(t, "../../hosts/claude/testdata/schema_vectors.txt") {
		t.Run(v.setting, func(t *testing.T) {
			t.Parallel()
			text := fmt.Sprintf(`{"disableAllHooks": true, %s}`, v.setting)
			ran, _, res := runGuardCase(t, guardCase{name: v.setting, files: map[string]string{"./.claude/settings.json": text}})
			if ran != (v.claude == "drops") {
				t.Errorf("%s: Claude Code dropped the file %v, the vector says %s\n%s", v.setting, ran, v.claude, res)
			}
		})
	}
}

// schemaVector is a line of a settings schema vector file: whether
// Claude Code drops a file for the setting, then whether bundlectl
// takes it to.
type schemaVector struct{ claude, bundlectl, setting string }

// readSchemaVectors reads a vector file (hosts/claude
// testdata/schema_vectors.txt says its format).
func readSchemaVectors(t *testing.T, path string) []schemaVector {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []schemaVector
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		w := strings.Fields(line)
		if len(w) < 3 {
			t.Fatalf("%s: %q: want drops|reads drops|reads setting", path, line)
		}
		rest := strings.TrimSpace(strings.TrimPrefix(line, w[0]))
		out = append(out, schemaVector{claude: w[0], bundlectl: w[1], setting: strings.TrimSpace(strings.TrimPrefix(rest, w[1]))})
	}
	return out
}

// TestClaudeSettingsSchemaOtherTypes: the table test tries one wrong
// value per type; Claude Code 2.1.332's schema builders (its bundle's
// own zod-like library) refuse every other JSON type too, with no
// coercion: an array for an object whose fields are all optional, a
// number or the string "true" for a boolean, a numeric string or a
// boolean for a number, an object for an array, a boolean for a string
// or an enum. A key escaped in the JSON text is the key
// ("\u0073tatusLine"), and of a key written twice the last value counts
// (JSON.parse, as encoding/json): each as schemaDrop takes it.
func TestClaudeSettingsSchemaOtherTypes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		key, value string
		dropped    bool
	}{
		{`"remote"`, `[]`, true},
		{`"voice"`, `[]`, true},
		{`"verbose"`, `1`, true},
		{`"verbose"`, `"true"`, true},
		{`"cleanupPeriodDays"`, `"5"`, true},
		{`"cleanupPeriodDays"`, `true`, true},
		{`"fallbackModel"`, `{}`, true},
		{`"model"`, `true`, true},
		{`"defaultShell"`, `5`, true},
		{`"\u0073tatusLine"`, `5`, true},
		{`"statusLine"`, `5, "statusLine": {"type": "command", "command": "true"}`, false},
		{`"statusLine"`, `{"type": "command", "command": "true"}, "statusLine": 5`, true},
	} {
		text := fmt.Sprintf(`{"disableAllHooks": true, %s: %s}`, c.key, c.value)
		t.Run(text, func(t *testing.T) {
			t.Parallel()
			g := guardCase{name: text, files: map[string]string{"./.claude/settings.json": text}}
			if ran, _, res := runGuardCase(t, g); ran != c.dropped {
				t.Errorf("%s: Claude Code dropped the file %v, want %v\n%s", text, ran, c.dropped, res)
			}
		})
	}
}
