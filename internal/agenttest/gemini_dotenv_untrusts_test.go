package agenttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGeminiDotEnvUntrusts: Gemini CLI 0.61 loads a .env file into its
// environment once it has read its settings (trusted: the whole file),
// and asks its folder trust check (checkPathTrust, which reads
// GEMINI_RESTRICTED_MODE and GEMINI_CLI_TRUST_WORKSPACE first) again
// later, when it builds its config. So GEMINI_RESTRICTED_MODE=true in any
// .env it loads — the folder's, its .gemini/.env, ~/.gemini/.env, ~/.env
// — or GEMINI_CLI_TRUST_WORKSPACE=false where the environment does not
// set that variable, makes a session in a folder a rule trusts (or
// GEMINI_CLI_TRUST_WORKSPACE=true trusts) run no settings hook, setup's
// lines included, while the extensions' hooks run; it says "This folder
// is untrusted". The variable set empty in the environment keeps the
// file's out. With folder trust off in the settings a -p session does
// not stop there: it runs, without the settings hooks. So list reports
// setup's lines off, its hint showing the line of the file, and setup
// refuses (hosts/gemini TestDotEnvUntrusts). Each interactive step waits
// for what the model stand-in shows, never for time.
func TestGeminiDotEnvUntrusts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, file, line string
		env              []string // over the session's; "-K" unsets K
		want             []string // the hooks that ran
	}{
		{"control", ".env", "AGENTTEST_X=1", nil, []string{"ext", "user"}},
		{"restricted", ".env", "GEMINI_RESTRICTED_MODE=true", nil, []string{"ext"}},
		{"restricted-gemini-dir", ".gemini/.env", "GEMINI_RESTRICTED_MODE=true", nil, []string{"ext"}},
		{"restricted-home", "~/.env", "GEMINI_RESTRICTED_MODE=true", nil, []string{"ext"}},
		{"restricted-user-gemini-dir", "~/.gemini/.env", "GEMINI_RESTRICTED_MODE=true", nil, []string{"ext"}},
		{"restricted-env-trusts", ".env", "GEMINI_RESTRICTED_MODE=true", []string{"GEMINI_CLI_TRUST_WORKSPACE=true"}, []string{"ext"}},
		{"restricted-emptied", ".env", "GEMINI_RESTRICTED_MODE=true", []string{"GEMINI_RESTRICTED_MODE="}, []string{"ext", "user"}},
		{"trust-false", ".env", "GEMINI_CLI_TRUST_WORKSPACE=false", []string{"-GEMINI_CLI_TRUST_WORKSPACE"}, []string{"ext"}},
		{"trust-false-env-set", ".env", "GEMINI_CLI_TRUST_WORKSPACE=false", nil, []string{"ext", "user"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, rec := dotEnvHooksSession(t, tc.file, tc.line, nil)
			argv, env := a.Command(t, "hello")
			env = overEnv(append(env, "GEMINI_CLI_TRUST_WORKSPACE="), tc.env)
			g := startGeminiTTY(t, append(argv[:len(argv)-2], "-i", "hello"), env, a.Workdir)
			g.waitFor(t, "the prompt sent", func() bool { return sentPrompt(a, "hello") })
			if got := ranOwn(t, rec); !slices.Equal(got, tc.want) {
				t.Errorf("hooks that ran: %q, want %q\n%s", got, tc.want, g.screen.String())
			}
			if untrusted := g.shows("This folder is untrusted"); untrusted != !slices.Contains(tc.want, "user") {
				t.Errorf("said the folder is untrusted: %v\n%s", untrusted, g.screen.String())
			}
		})
	}
	// Folder trust off: a -p session runs, no settings hook with it.
	t.Run("folder-trust-off-headless", func(t *testing.T) {
		t.Parallel()
		a, rec := dotEnvHooksSession(t, ".env", "GEMINI_RESTRICTED_MODE=true",
			map[string]any{"security": map[string]any{"folderTrust": map[string]any{"enabled": false}}})
		a.Env = []string{"GEMINI_CLI_TRUST_WORKSPACE="}
		res := a.Run(t, "hello")
		if res.Exit != 0 || !sentPrompt(a, "hello") {
			t.Fatalf("the -p session did not run: %s", res)
		}
		if got := ranOwn(t, rec); !slices.Equal(got, []string{"ext"}) {
			t.Errorf("hooks that ran: %q, want the extension's alone", got)
		}
	})
	// What bundlectl says of it.
	t.Run("list-and-setup", func(t *testing.T) {
		t.Parallel()
		a, _ := dotEnvHooksSession(t, ".env", "AGENTTEST_X=1", nil)
		a.Command(t, "hello") // writes the user's settings
		f := newTrustedFixture(t, a, filepath.Join(t.TempDir(), markerName))
		senv := append(setupEnv(a), "GEMINI_CLI_TRUST_WORKSPACE=")
		if out, errOut, err := BundlectlEnv(t, f.home, senv, "--workspace", f.ws, "setup", "gemini"); err != nil {
			t.Fatalf("setup: %v\n%s%s", err, out, errOut)
		}
		if st := setupStatus(t, f, senv); st != nil {
			t.Fatalf("list in a trusted folder: %v, want nothing", st)
		}
		file := filepath.Join(a.Workdir, ".env")
		writeFile(t, a.Workdir, ".env", "AGENTTEST_X=1\nGEMINI_RESTRICTED_MODE=true\n", 0o644)
		st := setupStatus(t, f, senv)
		hint, _ := st["hint"].(string)
		if st["status"] != "off" || !strings.Contains(hint, file) {
			t.Fatalf("list with the .env line: %v, want status off with a hint naming %s", st, file)
		}
		out, err := exec.Command("sh", "-c", hint).Output()
		if err != nil || strings.TrimSpace(string(out)) != "GEMINI_RESTRICTED_MODE=true" {
			t.Errorf("list's hint %q printed %q (%v), want the line to take out", hint, out, err)
		}
		if msg, _ := st["message"].(string); !strings.Contains(msg, `line 2 of "`+file+`" sets GEMINI_RESTRICTED_MODE=true`) || !strings.Contains(msg, "take that line out of") {
			t.Errorf("list's message %q, want line 2 of %s named and taken out", msg, file)
		}
		_, errOut, err := BundlectlEnv(t, f.home, senv, "--workspace", f.ws, "setup", "gemini")
		if err == nil || !strings.Contains(errOut, file) || !strings.Contains(errOut, "GEMINI_RESTRICTED_MODE=true") {
			t.Errorf("setup with the .env line: %v, want a refusal naming %s\n%s", err, file, errOut)
		}
	})
}

// dotEnvHooksSession is a Gemini CLI session in a folder a
// trustedFolders.json rule trusts, with line in the .env file at file
// (under the working directory, or the home for "~/"), an extension
// whose BeforeAgent hook records "ext", and the user's settings.json
// (with settings merged in) holding one that records "user" in rec.
func dotEnvHooksSession(t *testing.T, file, line string, settings map[string]any) (*Agent, string) {
	rec := t.TempDir()
	a := New(t, GeminiCLI, Say("done"))
	beforeAgentExtension(t, filepath.Join(a.ConfigDir(), "extensions", "ext1"), "ext1", "touch "+filepath.Join(rec, "ext"))
	a.Settings = map[string]any{"hooks": map[string]any{"BeforeAgent": []any{map[string]any{
		"matcher": "*",
		"hooks":   []any{map[string]any{"type": "command", "command": "touch " + filepath.Join(rec, "user")}},
	}}}}
	for k, v := range settings {
		a.Settings[k] = v
	}
	ws, err := filepath.EvalSymlinks(a.Workdir)
	if err != nil {
		t.Fatal(err)
	}
	writeJSONFile(t, a.ConfigDir(), "trustedFolders.json", map[string]any{ws: "TRUST_FOLDER"})
	p := filepath.Join(a.Workdir, file)
	if rest, ok := strings.CutPrefix(file, "~/"); ok {
		p = filepath.Join(a.Home, rest)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Dir(p), filepath.Base(p), line+"\n", 0o644)
	return a, rec
}

// overEnv is env with each of over set ("K=V", the last one counting)
// or, for "-K", taken out.
func overEnv(env, over []string) []string {
	for _, o := range over {
		if k, ok := strings.CutPrefix(o, "-"); ok {
			env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, k+"=") })
			continue
		}
		env = append(env, o)
	}
	return env
}
