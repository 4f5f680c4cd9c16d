package gemini

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/bundlectl/bundlectl/hosts"
)

// TestDotEnvLinkForms: a folder's .env that is a symbolic link is taken
// as Gemini CLI 0.61 takes it (internal/agenttest
// TestGeminiEnvSettingsForms link-gemini-target; the dangling and
// directory links tried with it once by hand): a link to a file under a
// .gemini directory is still a project's .env, so advanced.excludedEnvVars
// keeps its line out; a link to nothing is passed over, and the home's
// .env loads; a link to a directory is picked, stops the walk and loads
// nothing.
func TestDotEnvLinkForms(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	user, ws := filepath.Join(home, ".gemini"), filepath.Join(home, "ws")
	writeTestFile(t, filepath.Join(user, "trustedFolders.json"), `{"`+ws+`": "TRUST_FOLDER"}`)
	writeTestFile(t, filepath.Join(root, "out", ".gemini", "target"), "GEMINI_RESTRICTED_MODE=true\n")
	for _, d := range []string{ws, filepath.Join(root, "out", "dir")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"HOME=" + home, "GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(root, "system.json")}
	for _, tc := range []struct {
		name, target, settings, homeEnv string
		named                           string // "" for none
	}{
		{"gemini-target-excluded", ".gemini/target", `{"advanced": {"excludedEnvVars": ["GEMINI_RESTRICTED_MODE", 5]}}`, "", ""},
		{"gemini-target", ".gemini/target", `{}`, "", filepath.Join(ws, ".env")},
		{"dangling", "nowhere", `{}`, "GEMINI_RESTRICTED_MODE=true\n", filepath.Join(home, ".env")},
		{"directory", "dir", `{}`, "GEMINI_RESTRICTED_MODE=true\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeTestFile(t, filepath.Join(user, "settings.json"), tc.settings)
			writeTestFile(t, filepath.Join(home, ".env"), tc.homeEnv)
			link := filepath.Join(ws, ".env")
			os.Remove(link)
			if err := os.Symlink(filepath.Join(root, "out", tc.target), link); err != nil {
				t.Fatal(err)
			}
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
