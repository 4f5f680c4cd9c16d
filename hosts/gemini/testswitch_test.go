package gemini

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/hosts"
)

// TestTestSwitchTrust: GEMINI_CLI_INTEGRATION_TEST=true and VITEST=true
// turn Gemini CLI 0.61's config folder trust off, which takes away its
// /permissions command and leaves the folder's trust as the rules decide
// it (internal/agenttest TestGeminiTestSwitches: a folder a rule does not
// trust runs no settings hook). So they trust no folder here either, and
// what bundlectl tells the user to do names the rule alone: the command
// it named before is not there.
func TestTestSwitchTrust(t *testing.T) {
	d := newTrustDir(t)
	deny := `{` + strconv.Quote(d.ws) + `: "DO_NOT_TRUST"}`
	for _, sw := range []string{"GEMINI_CLI_INTEGRATION_TEST=true", "VITEST=true"} {
		env := []string{d.sys, sw}
		d.put(t, deny, "")
		if rule, ok := distrustedByRule(d.user, env, d.ws); !ok || rule != d.ws {
			t.Errorf("%s: distrustedByRule = %q %v, want the rule: the switch trusts no folder", sw, rule, ok)
		}
		if trustsFolder(d.user, env, d.ws) {
			t.Errorf("%s: trustsFolder = true, want false", sw)
		}
		offs := Host{}.SetupHooksOffWhen(hosts.SetupInput{Environ: append(env, "HOME="+filepath.Dir(d.user)), Reentry: hosts.Reentry{Workspace: d.ws}})
		if len(offs) != 1 || strings.Contains(offs[0].Fix, "/permissions command,") || !strings.Contains(offs[0].Fix, "TRUST_FOLDER in that rule") || !strings.Contains(offs[0].Fix, sw) {
			t.Errorf("%s: setup's warning for a DO_NOT_TRUST rule: %+v, want the rule alone named, and why", sw, offs)
		}
		d.put(t, "", "")
		if !undecided(d.user, env, d.ws) {
			t.Errorf("%s: undecided = false, want true: the dialog still asks", sw)
		}
		ways := trustFolderWays(d.user, env, d.ws, "with Gemini CLI's /permissions command")
		if strings.HasPrefix(ways, "with Gemini CLI's /permissions") || !strings.Contains(ways, `"TRUST_FOLDER" rule`) || !strings.Contains(ways, "offers no /permissions command") {
			t.Errorf("%s: trustFolderWays = %q, want the rule alone", sw, ways)
		}
	}
	for _, v := range []string{"GEMINI_CLI_INTEGRATION_TEST=1", "VITEST=", "GEMINI_CLI_INTEGRATION_TEST=TRUE"} {
		if sw := testSwitch([]string{v}); sw != "" {
			t.Errorf("testSwitch(%s) = %q: Gemini CLI reads only \"true\"", v, sw)
		}
	}
	if ways := trustFolderWays(d.user, []string{d.sys}, d.ws, "with Gemini CLI's /permissions command"); !strings.HasPrefix(ways, "with Gemini CLI's /permissions command or ") {
		t.Errorf("no switch: trustFolderWays = %q, want the command first", ways)
	}
}

// TestTestSwitchMCPNote: exec's note for MCP servers in a folder Gemini
// CLI may not trust says how to trust it without the /permissions command
// when a test switch takes it away.
func TestTestSwitchMCPNote(t *testing.T) {
	user := t.TempDir()
	os.MkdirAll(filepath.Join(user, ".gemini"), 0o700)
	dir := filepath.Join(t.TempDir(), "with")
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "gemini-extension.json"), []byte(`{"name":"db","mcpServers":{"db":{"command":"bundlectl"}}}`), 0o600)
	env := []string{"HOME=" + user, "PATH=/bin", "GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(user, "none.json"), "VITEST=true"}
	s := hosts.NewSession(t.TempDir())
	l, err := Host{}.Launch(s, []hosts.BuiltView{{Bundle: "db", Dir: dir}}, []string{"gemini"}, env)
	if err != nil {
		t.Fatal(err)
	}
	s.Remove()
	notes := strings.Join(l.Notes, "\n")
	if !strings.Contains(notes, "starts no MCP server") || strings.Contains(notes, "with Gemini CLI's /permissions command") || !strings.Contains(notes, "with VITEST=true Gemini CLI offers no /permissions command") {
		t.Errorf("the note names a command Gemini CLI does not offer: %s", notes)
	}
}

// TestTestSwitchDotEnv: a test switch in a .env file Gemini CLI loads
// takes /permissions away only where it loads the whole file, in a folder
// it trusts then (internal/agenttest TestGeminiTestSwitchDotEnv). So
// the way to trust the folder names the rule alone, and the file, with
// IDE mode on and a rule trusting the folder (an IDE may still
// distrust it); under a DO_NOT_TRUST rule, or with the environment
// setting the variable, /permissions is named as without the file.
func TestTestSwitchDotEnv(t *testing.T) {
	d := newTrustDir(t)
	env := []string{d.sys, "GEMINI_CLI_HOME=" + filepath.Dir(d.user)}
	file := filepath.Join(d.ws, ".env")
	if err := os.WriteFile(file, []byte("VITEST=true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ide := `{"ide": {"enabled": true}}`
	for _, tc := range []struct {
		name, level string
		env         []string
		rule        bool // the rule alone named, with the file
	}{
		{"ide-trusted", "TRUST_FOLDER", nil, true},
		{"ide-distrusted", "DO_NOT_TRUST", nil, false},
		{"env-sets-it-empty", "TRUST_FOLDER", []string{"VITEST="}, false},
	} {
		d.put(t, `{`+strconv.Quote(d.ws)+`: "`+tc.level+`"}`, ide)
		e := append(append([]string(nil), env...), tc.env...)
		ways := trustFolderWays(d.user, e, d.ws, "with Gemini CLI's /permissions command")
		named := strings.HasPrefix(ways, "with a \"TRUST_FOLDER\" rule") && strings.Contains(ways, "VITEST=true from "+strconv.Quote(file))
		if named != tc.rule || named == strings.HasPrefix(ways, "with Gemini CLI's /permissions command") {
			t.Errorf("%s: trustFolderWays = %q, want the rule alone and the file: %v", tc.name, ways, tc.rule)
		}
	}
}
