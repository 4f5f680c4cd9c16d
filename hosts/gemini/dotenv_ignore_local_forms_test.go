package gemini

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/bundlectl/bundlectl/hosts"
)

// TestDotEnvIgnoreLocalForms: Gemini CLI 0.61 reads
// advanced.ignoreLocalEnv by its JavaScript truth, a string made a
// boolean only when the whole settings file passes its schema: with
// "excludedEnvVars": 5 beside it, "false" was on, and the home's .env,
// not the folder's, was loaded (internal/agenttest
// TestGeminiEnvSettingsForms invalid-false-string). bundlectl does not
// check the schema, so any string but a plain empty one may be on and
// the home's .env line is named; in a file that passes the schema
// Gemini CLI takes "false" for off, which bundlectl over-refuses
// (valid-false-string).
func TestDotEnvIgnoreLocalForms(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	user, ws := filepath.Join(home, ".gemini"), filepath.Join(home, "ws")
	writeTestFile(t, filepath.Join(user, "trustedFolders.json"), `{"`+ws+`": "TRUST_FOLDER"}`)
	writeTestFile(t, filepath.Join(ws, ".env"), "B=1\n")
	writeTestFile(t, filepath.Join(home, ".env"), "GEMINI_RESTRICTED_MODE=true\n")
	env := []string{"HOME=" + home, "GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(root, "system.json")}
	for _, tc := range []struct {
		name, advanced string
		named          bool
	}{
		{"invalid-false-string", `{"ignoreLocalEnv": "false", "excludedEnvVars": 5}`, true},
		{"valid-false-string", `{"ignoreLocalEnv": "false"}`, true},
		{"FALSE", `{"ignoreLocalEnv": "FALSE"}`, true},
		{"env-ref-empty-here", `{"ignoreLocalEnv": "${X:-}"}`, true},
		{"empty-string", `{"ignoreLocalEnv": ""}`, false},
		{"false", `{"ignoreLocalEnv": false}`, false},
		{"zero", `{"ignoreLocalEnv": 0}`, false},
		{"object", `{"ignoreLocalEnv": {}}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeTestFile(t, filepath.Join(user, "settings.json"), `{"advanced": `+tc.advanced+`}`)
			err := Host{}.SetupHooksOff(hosts.SetupInput{Environ: env, Reentry: hosts.Reentry{Workspace: ws}})
			var off *hosts.HooksOffError
			switch {
			case !tc.named && err != nil:
				t.Fatalf("SetupHooksOff = %v, want nil", err)
			case tc.named && (!errors.As(err, &off) || off.File != filepath.Join(home, ".env")):
				t.Fatalf("SetupHooksOff = %v, want %s named", err, filepath.Join(home, ".env"))
			}
		})
	}
}
