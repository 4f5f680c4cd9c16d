package agenttest

import (
	"cmp"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGeminiTestSwitches: GEMINI_CLI_INTEGRATION_TEST=true and
// VITEST=true, the switches Gemini CLI 0.61 reads to take itself for its
// own test run, turn its config's folder trust off (loadCliConfig), and
// that is read as "trusted" nowhere bundlectl decides by: the folder's
// trust comes from the settings and trustedFolders.json as before, so in
// a folder a DO_NOT_TRUST rule holds an interactive session still runs
// the extensions' hooks and no settings hook (setup's lines among them:
// list's warning stays true), and in one a TRUST_FOLDER rule holds it
// runs both (list's "wired" stays true). What the switch takes away is the
// /permissions command, which bundlectl's hints named as a way to trust
// the folder: /help lists it without a switch (the control) and not with
// one. So the hints name the trustedFolders.json rule alone under a
// switch (hosts/gemini TestTestSwitchTrust). Each step waits for what the
// screen or the model stand-in shows, never for time.
func TestGeminiTestSwitches(t *testing.T) {
	t.Parallel()
	for _, sw := range []string{"", "GEMINI_CLI_INTEGRATION_TEST=true", "VITEST=true"} {
		name := cmp.Or(strings.TrimSuffix(sw, "=true"), "control")
		t.Run(name+"/hooks", func(t *testing.T) {
			t.Parallel()
			if got, screen := switchHooksRan(t, sw, "DO_NOT_TRUST"); !slices.Equal(got, []string{"ext"}) {
				t.Fatalf("hooks that ran in a folder a rule does not trust: %q, want the extension's alone\n%s", got, screen)
			}
		})
		// The other direction: a folder a rule trusts stays trusted under
		// a switch, so setup's lines there run (list calls them wired).
		t.Run(name+"/hooks-trusted", func(t *testing.T) {
			t.Parallel()
			if got, screen := switchHooksRan(t, sw, "TRUST_FOLDER"); !slices.Equal(got, []string{"ext", "user"}) {
				t.Fatalf("hooks that ran in a folder a rule trusts: %q, want the extension's and the settings'\n%s", got, screen)
			}
		})
		t.Run(name+"/permissions", func(t *testing.T) {
			t.Parallel()
			a := switchSession(t, sw, "TRUST_FOLDER")
			if listed, screen := permissionsInHelp(t, a); listed != (sw == "") {
				t.Fatalf("with %q set, /help lists /permissions: %v, want %v\n%s", sw, listed, sw == "", screen)
			}
		})
	}
}

// TestGeminiTestSwitchDotEnv: VITEST=true in the working directory's
// .env takes /permissions away (/help does not list it) in a folder a
// TRUST_FOLDER rule trusts, where Gemini CLI 0.61 loads the whole file
// before it reads the switch, and not in one a DO_NOT_TRUST rule holds,
// where it takes the API key variables alone from a .env. So bundlectl
// reads a switch from a .env only where the folder is trusted when the
// file loads (hosts/gemini TestTestSwitchDotEnv). IDE mode on
// (ide.enabled), with no IDE to connect to (none can be stood in for
// here), decides as without it: the rule decides the trust the file is
// loaded with.
func TestGeminiTestSwitchDotEnv(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		level  string
		ide    bool
		listed bool
	}{{"TRUST_FOLDER", false, false}, {"DO_NOT_TRUST", false, true}, {"TRUST_FOLDER", true, false}, {"DO_NOT_TRUST", true, true}} {
		name := tc.level
		if tc.ide {
			name += "-ide"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a := switchSession(t, "", tc.level)
			if tc.ide {
				a.Settings = map[string]any{"ide": map[string]any{"enabled": true}}
			}
			writeFile(t, a.Workdir, ".env", "VITEST=true\n", 0o644)
			if listed, screen := permissionsInHelp(t, a); listed != tc.listed {
				t.Fatalf("with VITEST=true in the .env of a %s folder, /help lists /permissions: %v, want %v\n%s", tc.level, listed, tc.listed, screen)
			}
		})
	}
}

// permissionsInHelp starts the session a with no prompt, asks /help, and
// reports whether it lists /permissions; and the screen.
func permissionsInHelp(t *testing.T, a *Agent) (bool, string) {
	argv, env := a.Command(t, "unused")
	g := startGeminiTTY(t, argv[:len(argv)-2], env, a.Workdir) // no prompt
	g.waitShown(t, "Type your message")
	// /help lists the commands this session offers, /permissions
	// with its description where it is one.
	g.keys("/help")
	g.waitShown(t, "For help on gemini-cli") // its completion: typed in
	g.waitFor(t, "the command list", func() bool {
		if sentPrompt(a, "/help") {
			t.Fatalf("/help went to the model as a prompt\n%s", g.screen.String())
		}
		if g.shows("For a full list of shortcuts") {
			return true
		}
		g.keys("\r")
		return false
	})
	return g.shows(permissionsListed), g.screen.String()
}

// switchHooksRan starts an interactive Gemini CLI session with sw (a
// test switch, or none) in a folder trustedFolders.json gives level,
// sends a prompt, and lists whose BeforeAgent hook ran by then: "ext"
// (an extension's), "user" (settings.json's); and the screen.
func switchHooksRan(t *testing.T, sw, level string) ([]string, string) {
	rec := t.TempDir()
	a := switchSession(t, sw, level)
	beforeAgentExtension(t, filepath.Join(a.ConfigDir(), "extensions", "ext1"), "ext1", "touch "+filepath.Join(rec, "ext"))
	a.Settings = map[string]any{"hooks": map[string]any{"BeforeAgent": []any{map[string]any{
		"matcher": "*",
		"hooks":   []any{map[string]any{"type": "command", "command": "touch " + filepath.Join(rec, "user")}},
	}}}}
	argv, env := a.Command(t, "hello")
	g := startGeminiTTY(t, append(argv[:len(argv)-2], "-i", "hello"), env, a.Workdir)
	g.waitFor(t, "the prompt sent", func() bool { return sentPrompt(a, "hello") })
	return ranOwn(t, rec), g.screen.String()
}

// switchSession is a Gemini CLI session with sw (a test switch, or
// none) in its environment, in a working directory trustedFolders.json
// gives level, that GEMINI_CLI_TRUST_WORKSPACE does not decide.
func switchSession(t *testing.T, sw, level string) *Agent {
	a := New(t, GeminiCLI, Say("done"))
	a.Env = []string{"GEMINI_CLI_TRUST_WORKSPACE="}
	if sw != "" {
		a.Env = append(a.Env, sw)
	}
	ws, err := filepath.EvalSymlinks(a.Workdir)
	if err != nil {
		t.Fatal(err)
	}
	writeJSONFile(t, a.ConfigDir(), "trustedFolders.json", map[string]any{ws: level})
	return a
}

// permissionsListed is how /help lists Gemini CLI 0.61's /permissions.
const permissionsListed = "permissions - Manage folder trust settings and other permissions"
