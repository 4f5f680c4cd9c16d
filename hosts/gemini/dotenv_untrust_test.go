package gemini

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/hosts"
)

// TestDotEnvUntrusts: a .env file Gemini CLI 0.61 loads that sets
// GEMINI_RESTRICTED_MODE=true (or GEMINI_CLI_TRUST_WORKSPACE=false) makes
// it trust the folder no more once loaded, after it read its settings
// trusted: no settings hook runs, setup's lines included, and no MCP
// server starts (internal/agenttest TestGeminiDotEnvUntrusts). setup
// refuses, naming the file, with a hint that shows the line; list says
// the lines are off; exec's MCP note names the file. A variable the
// environment sets, even empty, keeps the file's out, and --skip-trust
// overwrites GEMINI_CLI_TRUST_WORKSPACE.
func TestDotEnvUntrusts(t *testing.T) {
	d := newTrustDir(t)
	home := filepath.Dir(d.user)
	base := []string{d.sys, "GEMINI_CLI_HOME=" + home}
	write := func(p, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	trusted := `{` + `"` + d.ws + `": "TRUST_FOLDER"}`
	for _, tc := range []struct {
		name, file, content string
		env, args           []string
		want                string // the Setting named, "" for none
	}{
		{"restricted", ".env", "A=1\nGEMINI_RESTRICTED_MODE=true\n", nil, nil, "GEMINI_RESTRICTED_MODE=true"},
		{"restricted-quoted-export", ".env", "export GEMINI_RESTRICTED_MODE='true'\n", nil, nil, "GEMINI_RESTRICTED_MODE=true"},
		{"workspace-gemini-dir", ".gemini/.env", "GEMINI_RESTRICTED_MODE=true\n", nil, nil, "GEMINI_RESTRICTED_MODE=true"},
		{"home", "~/.env", "GEMINI_RESTRICTED_MODE=true\n", nil, nil, "GEMINI_RESTRICTED_MODE=true"},
		{"user-gemini-dir", "~/.gemini/.env", "GEMINI_RESTRICTED_MODE=true\n", nil, nil, "GEMINI_RESTRICTED_MODE=true"},
		{"trust-false", ".env", "GEMINI_CLI_TRUST_WORKSPACE=false\n", nil, nil, "GEMINI_CLI_TRUST_WORKSPACE=false"},
		{"trust-false-skip-trust", ".env", "GEMINI_CLI_TRUST_WORKSPACE=false\n", nil, []string{"--skip-trust"}, ""},
		{"restricted-skip-trust", ".env", "GEMINI_RESTRICTED_MODE=true\n", nil, []string{"--skip-trust"}, "GEMINI_RESTRICTED_MODE=true"},
		{"env-sets-it-empty", ".env", "GEMINI_RESTRICTED_MODE=true\n", []string{"GEMINI_RESTRICTED_MODE="}, nil, ""},
		{"env-trusts", ".env", "GEMINI_CLI_TRUST_WORKSPACE=false\n", []string{"GEMINI_CLI_TRUST_WORKSPACE=true"}, nil, ""},
		{"env-trusts-restricted", ".env", "GEMINI_RESTRICTED_MODE=true\n", []string{"GEMINI_CLI_TRUST_WORKSPACE=true"}, nil, "GEMINI_RESTRICTED_MODE=true"},
		{"not-true", ".env", "GEMINI_RESTRICTED_MODE=1\nGEMINI_CLI_TRUST_WORKSPACE=FALSE\n", nil, nil, ""},
		{"last-line-wins", ".env", "GEMINI_RESTRICTED_MODE=true\nGEMINI_RESTRICTED_MODE=no\n", nil, nil, ""},
		// The folder's own .env hides the home's, but for --ignore-env.
		{"hidden-by-the-folders", "~/.env", "GEMINI_RESTRICTED_MODE=true\n", nil, nil, ""},
		{"hidden-ignore-env", "~/.env", "GEMINI_RESTRICTED_MODE=true\n", nil, []string{"--ignore-env"}, "GEMINI_RESTRICTED_MODE=true"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(d.ws, tc.file)
			if rest, ok := strings.CutPrefix(tc.file, "~/"); ok {
				p = filepath.Join(home, rest)
			}
			write(p, tc.content)
			t.Cleanup(func() { os.Remove(p) })
			if strings.HasPrefix(tc.name, "hidden-") {
				q := filepath.Join(d.ws, ".env")
				write(q, "A=1\n")
				t.Cleanup(func() { os.Remove(q) })
			}
			d.put(t, trusted, "")
			env := append(append([]string(nil), base...), tc.env...)
			key, value, file := dotEnvUntrusts(d.user, env, tc.args, d.ws, "")
			if got := strings.TrimSuffix(key+"="+value, "="); got != tc.want || tc.want != "" && file != p {
				t.Fatalf("dotEnvUntrusts = %q in %q, want %q in %q", got, file, tc.want, p)
			}
			if tc.args != nil {
				return // setup and list know no session's arguments
			}
			err := Host{}.SetupHooksOff(hosts.SetupInput{Environ: env, Reentry: hosts.Reentry{Workspace: d.ws}})
			var off *hosts.HooksOffError
			if tc.want == "" {
				if err != nil {
					t.Fatalf("SetupHooksOff = %v, want nil", err)
				}
				return
			}
			line := strings.Count(tc.content[:strings.LastIndex(tc.content, strings.Split(tc.want, "=")[0])], "\n") + 1
			if !errors.As(err, &off) || off.File != p || off.Setting != tc.want || off.Lines != fmt.Sprintf("line %d", line) || !strings.Contains(off.Fix, "take that line out of") {
				t.Fatalf("SetupHooksOff = %#v, want %s in line %d of %s refused with the line shown", err, tc.want, line, p)
			}
			if h, want := off.Hint(), fmt.Sprintf("sed -n %dp %s", line, p); h != want {
				t.Errorf("hint %q, want %q", h, want)
			}
		})
	}
}

// TestDotEnvUntrustsMCPNote: exec's note for a view's MCP servers names
// the .env line that makes Gemini CLI trust the folder no more, and how
// to keep it out for one session, even in a folder a rule trusts.
func TestDotEnvUntrustsMCPNote(t *testing.T) {
	d := newTrustDir(t)
	d.put(t, `{"`+d.ws+`": "TRUST_FOLDER"}`, "")
	dir := filepath.Join(t.TempDir(), "with")
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "gemini-extension.json"), []byte(`{"name":"db","mcpServers":{"db":{"command":"bundlectl"}}}`), 0o600)
	env := []string{d.sys, "GEMINI_CLI_HOME=" + filepath.Dir(d.user)}
	views := []hosts.BuiltView{{Bundle: "db", Dir: dir}}
	if notes := mcpNotes(views, d.user, env, nil, d.ws); len(notes) != 0 {
		t.Fatalf("notes in a trusted folder: %q", notes)
	}
	os.WriteFile(filepath.Join(d.ws, ".env"), []byte("GEMINI_RESTRICTED_MODE=true\n"), 0o600)
	notes := strings.Join(mcpNotes(views, d.user, env, nil, d.ws), "\n")
	if !strings.Contains(notes, filepath.Join(d.ws, ".env")) || !strings.Contains(notes, "starts no MCP server") || !strings.Contains(notes, "GEMINI_RESTRICTED_MODE= bundlectl exec -- gemini") {
		t.Errorf("note: %s", notes)
	}
	// In a folder no rule decides, trusting it is named too: the line
	// holds once it is.
	d.put(t, "", "")
	if n := mcpNotes(views, d.user, env, nil, d.ws); len(n) != 2 || !strings.Contains(n[0], "GEMINI_RESTRICTED_MODE=true") || !strings.Contains(n[1], "may not trust") {
		t.Errorf("notes in a folder no rule decides: %q, want the .env's and the trust's", n)
	}
	if n := mcpNotes(views, d.user, append(env, "GEMINI_RESTRICTED_MODE="), nil, d.ws); len(n) != 1 || strings.Contains(n[0], "GEMINI_RESTRICTED_MODE") {
		t.Errorf("notes with the variable set empty: %q, want the trust's alone", n)
	}
}

// TestDotEnvIgnoreLocalHome: with advanced.ignoreLocalEnv (or
// --ignore-env) Gemini CLI 0.61's walk up for a .env still takes the one
// in its home directory, and stops there, before any .gemini/.env above
// it (internal/agenttest TestGeminiIgnoreEnvHome). setup and list, for a
// workspace inside the home, read the file it picks: the home's .env's
// line is named, and a .gemini/.env above the home is not.
func TestDotEnvIgnoreLocalHome(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	user, ws := filepath.Join(home, ".gemini"), filepath.Join(home, "ws")
	writeTestFile(t, filepath.Join(user, "trustedFolders.json"), `{"`+ws+`": "TRUST_FOLDER"}`)
	writeTestFile(t, filepath.Join(user, "settings.json"), `{"advanced": {"ignoreLocalEnv": true}}`)
	writeTestFile(t, filepath.Join(ws, ".env"), "A=1\n")
	env := []string{"HOME=" + home, "GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(root, "system.json")}
	above := filepath.Join(root, ".gemini", ".env")
	wsSettings := filepath.Join(ws, ".gemini", "settings.json")
	for _, tc := range []struct {
		name, homeEnv, aboveEnv string
		named                   string
		inWorkspace             bool // the setting in the workspace's settings
	}{
		{"home-untrusts", "GEMINI_RESTRICTED_MODE=true\n", "A=1\n", filepath.Join(home, ".env"), false},
		{"above-untrusts", "A=1\n", "GEMINI_RESTRICTED_MODE=true\n", "", false},
		// Read from the workspace's settings, not those of the directory
		// setup runs in.
		{"workspace-setting", "GEMINI_RESTRICTED_MODE=true\n", "A=1\n", filepath.Join(home, ".env"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.inWorkspace {
				writeTestFile(t, filepath.Join(user, "settings.json"), `{}`)
				writeTestFile(t, wsSettings, `{"advanced": {"ignoreLocalEnv": true}}`)
			}
			writeTestFile(t, filepath.Join(home, ".env"), tc.homeEnv)
			writeTestFile(t, above, tc.aboveEnv)
			err := Host{}.SetupHooksOff(hosts.SetupInput{Environ: env, Reentry: hosts.Reentry{Workspace: ws}})
			var off *hosts.HooksOffError
			switch {
			case tc.named == "" && err != nil:
				t.Fatalf("SetupHooksOff = %v, want nil", err)
			case tc.named != "" && (!errors.As(err, &off) || off.File != tc.named):
				t.Fatalf("SetupHooksOff = %v, want %s named", err, tc.named)
			}
		})
	}
}

// TestDotEnvLinkedWorkspace: a workspace named through a link is walked
// up from where the link leads too, as Gemini CLI, whose working
// directory has its links resolved, walks: a GEMINI_RESTRICTED_MODE=true
// in the .env of the real folder's parent is named (internal/agenttest
// TestGeminiDotEnvLinkedWorkspace).
func TestDotEnvLinkedWorkspace(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	user, real := filepath.Join(home, ".gemini"), filepath.Join(root, "proj", "ws")
	link := filepath.Join(root, "ln")
	writeTestFile(t, filepath.Join(user, "trustedFolders.json"), `{"`+real+`": "TRUST_FOLDER", "`+link+`": "TRUST_FOLDER"}`)
	writeTestFile(t, filepath.Join(real, "a.txt"), "")
	writeTestFile(t, filepath.Join(root, "proj", ".env"), "GEMINI_RESTRICTED_MODE=true\n")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(root, "system.json")}
	err := Host{}.SetupHooksOff(hosts.SetupInput{Environ: env, Reentry: hosts.Reentry{Workspace: link}})
	var off *hosts.HooksOffError
	if !errors.As(err, &off) || off.File != filepath.Join(root, "proj", ".env") {
		t.Fatalf("SetupHooksOff = %v, want %s named", err, filepath.Join(root, "proj", ".env"))
	}
}
