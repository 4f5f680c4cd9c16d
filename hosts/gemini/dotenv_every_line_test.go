package gemini

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/bundlectl/bundlectl/hosts"
)

// TestDotEnvUntrustsEveryLine: dotenv keeps the last line that sets a
// variable, so with only that line taken out an earlier one that sets it
// the same would untrust the folder again: setup names every line that
// sets it so, and its hint prints each of them (and no other line).
func TestDotEnvUntrustsEveryLine(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	user, ws := filepath.Join(home, ".gemini"), filepath.Join(home, "ws")
	writeTestFile(t, filepath.Join(user, "trustedFolders.json"), `{"`+ws+`": "TRUST_FOLDER"}`)
	env := []string{"HOME=" + home, "GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(root, "system.json")}
	f := filepath.Join(ws, ".env")
	for _, tc := range []struct {
		name, text, lines, show string
	}{
		{"twice", "GEMINI_RESTRICTED_MODE=true\nA=1\nGEMINI_RESTRICTED_MODE=true\n", "lines 1, 3", "sed -n '1p;3p' " + f},
		{"name-and-value-lines-twice", "GEMINI_RESTRICTED_MODE\n=true\nA=1\nGEMINI_RESTRICTED_MODE\n=true\n", "lines 1-2, 4-5", "sed -n '1,2p;4,5p' " + f},
		{"other-value-between", "GEMINI_RESTRICTED_MODE=true\nGEMINI_RESTRICTED_MODE=no\nGEMINI_RESTRICTED_MODE=true\n", "lines 1, 3", "sed -n '1p;3p' " + f},
		{"once", "A=1\nGEMINI_RESTRICTED_MODE=true\n", "line 2", "sed -n 2p " + f},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeTestFile(t, f, tc.text)
			err := Host{}.SetupHooksOff(hosts.SetupInput{Environ: env, Reentry: hosts.Reentry{Workspace: ws}})
			var off *hosts.HooksOffError
			if !errors.As(err, &off) || off.File != f {
				t.Fatalf("SetupHooksOff = %v, want %s named", err, f)
			}
			if off.Lines != tc.lines || off.Hint() != tc.show {
				t.Errorf("lines %q, hint %q; want %q, %q", off.Lines, off.Hint(), tc.lines, tc.show)
			}
		})
	}
}
