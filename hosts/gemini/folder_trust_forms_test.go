package gemini

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/hosts"
	"github.com/bundlectl/bundlectl/internal/testtree"
)

// TestFolderTrustSettingForms: Gemini CLI 0.61 decides folder trust by
// the JavaScript truth of the merged settings.security?.folderTrust
// ?.enabled ?? true, merging the files as written, and makes the string
// "false" a boolean only in a file that passes its schema
// (internal/agenttest TestGeminiFolderTrustSettingForms). So a null is on,
// a "falſe" (no "false" to JavaScript) is on, and "false" in a file that
// fails the schema elsewhere is on: bundlectl read each as off, took a
// folder no rule decides for trusted, and setup warned of nothing,
// where Gemini CLI runs no settings hook there; and exec let the
// workspace's hooksConfig.enabled turn the guards back on that Gemini CLI
// never reads there. "false" may be either: setup warns, and says why;
// false and "FALSE" in a file that passes stay off.
func TestFolderTrustSettingForms(t *testing.T) {
	d := newTrustDir(t)
	env := []string{d.sys, "HOME=" + filepath.Dir(d.user)}
	hooksOn := `{"hooksConfig": {"enabled": true}}`
	writeTestFile(t, filepath.Join(d.ws, ".gemini", "settings.json"), hooksOn)
	for _, tc := range []struct {
		name, user string
		verdict    string // trustVerdict with no rule for the folder
		either     bool   // setup's warning says folder trust may be on
	}{
		{"false", `{"security": {"folderTrust": {"enabled": false}}}`, "trusted", false},
		{"string-FALSE", `{"security": {"folderTrust": {"enabled": "FALSE"}}}`, "undecided", true},
		{"string-false-schema-fails", `{"security": {"folderTrust": {"enabled": "false"}}, "advanced": {"excludedEnvVars": 5}}`, "undecided", true},
		{"null", `{"security": {"folderTrust": {"enabled": null}}}`, "undecided", false},
		{"long-s", `{"security": {"folderTrust": {"enabled": "falſe"}}}`, "undecided", false},
		{"empty-string", `{"security": {"folderTrust": {"enabled": ""}}}`, "trusted", false},
		{"zero", `{"security": {"folderTrust": {"enabled": 0}}}`, "trusted", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeTestFile(t, filepath.Join(d.user, "settings.json"), tc.user)
			if got := trustVerdict(d.user, env, d.ws); got != tc.verdict {
				t.Errorf("verdict %s, want %s", got, tc.verdict)
			}
			warns := Host{}.SetupHooksOffWhen(hosts.SetupInput{Environ: env, Reentry: hosts.Reentry{Workspace: d.ws}})
			if want := tc.verdict == "undecided"; (len(warns) == 1) != want {
				t.Fatalf("setup warnings %v, want one: %v", warns, want)
			}
			if len(warns) == 1 && strings.Contains(warns[0].When, "folder trust may be on") != tc.either {
				t.Errorf("When %q: says folder trust may be on: %v, want %v", warns[0].When, !tc.either, tc.either)
			}
			// The user's hooksConfig false, the workspace's true: exec
			// may count the workspace's only in a folder surely trusted.
			writeTestFile(t, filepath.Join(d.user, "settings.json"), strings.Replace(tc.user, "{", `{"hooksConfig": {"enabled": false}, `, 1))
			var off *hosts.HooksOffError
			if err := hooksOffAt(d.user, d.ws, env); errors.As(err, &off) != (tc.verdict != "trusted") {
				t.Errorf("hooksOffAt = %v, want a refusal: %v", err, tc.verdict != "trusted")
			}
		})
	}

	// "false" may be off: a -p session is not sure to distrust the folder
	// (a .env it loads whole then counts).
	writeTestFile(t, filepath.Join(d.user, "settings.json"), `{"security": {"folderTrust": {"enabled": "false"}}}`)
	if distrusts(d.user, env, []string{"-p", "x"}, d.ws) {
		t.Errorf(`distrusts with folder trust "false": true, want false`)
	}
}

// TestFolderTrustSettingReplaced: a security or folderTrust that is not
// an object (null included) replaces the lower files' whole in Gemini CLI
// 0.61's merge, leaving folder trust on by default: the user's over the
// system defaults' false, the system's over the user's false. bundlectl
// passed over it and read the false below.
func TestFolderTrustSettingReplaced(t *testing.T) {
	sys := testtree.RootOwnedDir(t)
	d := newTrustDir(t)
	system, defaults := filepath.Join(sys, "settings.json"), filepath.Join(sys, "system-defaults.json")
	env := []string{"GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + system}
	off := `{"security": {"folderTrust": {"enabled": false}}}`
	for _, tc := range []struct {
		name, system, user, defaults, verdict string
	}{
		{"defaults-off", `{}`, `{}`, off, "trusted"},
		{"user-security-number", `{}`, `{"security": 5}`, off, "undecided"},
		{"user-folderTrust-null", `{}`, `{"security": {"folderTrust": null}}`, off, "undecided"},
		{"user-security-empty", `{}`, `{"security": {}}`, off, "trusted"},
		{"system-security-null", `{"security": null}`, off, `{}`, "undecided"},
		{"system-security-array", `{"security": []}`, off, `{}`, "undecided"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for f, text := range map[string]string{system: tc.system, defaults: tc.defaults, filepath.Join(d.user, "settings.json"): tc.user} {
				if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := trustVerdict(d.user, env, d.ws); got != tc.verdict {
				t.Errorf("verdict %s, want %s", got, tc.verdict)
			}
		})
	}
}

// TestHooksConfigLongS: "falſe" is no "false" to JavaScript's
// toLowerCase, so Gemini CLI 0.61's schema does not make it a boolean,
// the file is used as written and the true string leaves the hooks on
// (read from its code, untried); Go's case folding took it for "false",
// and exec refused a launch whose guards run.
func TestHooksConfigLongS(t *testing.T) {
	d := newTrustDir(t)
	env := []string{d.sys, "HOME=" + filepath.Dir(d.user)}
	for text, refused := range map[string]bool{
		`{"hooksConfig": {"enabled": "falſe"}}`: false,
		`{"hooksConfig": {"enabled": "FALSE"}}`: true,
	} {
		writeTestFile(t, filepath.Join(d.user, "settings.json"), text)
		if err := hooksOffAt(d.user, "", env); (err != nil) != refused {
			t.Errorf("%s: hooksOffAt = %v, want a refusal: %v", text, err, refused)
		}
	}
}
