package gemini

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTrustsFolder: bundlectl takes a folder as trusted only where Gemini
// CLI 0.61 is sure to trust it, and so to read the workspace's settings.
func TestTrustsFolder(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	os.MkdirAll(filepath.Join(ws, "sub"), 0o700)
	user := filepath.Join(root, "user", ".gemini")
	os.MkdirAll(user, 0o700)
	sys := "GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(root, "system.json")
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(user, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	q := func(p string) string { return `"` + p + `"` }
	for _, tc := range []struct {
		name, rules, settings string
		env                   []string
		cwd                   string
		want                  bool
	}{
		{"no rules", "", "", nil, ws, false},
		{"folder", `{` + q(ws) + `: "TRUST_FOLDER"}`, "", nil, ws, true},
		{"below a trusted folder", `{` + q(ws) + `: "TRUST_FOLDER"}`, "", nil, filepath.Join(ws, "sub"), true},
		{"parent", `{` + q(filepath.Join(ws, "x")) + `: "TRUST_PARENT"}`, "", nil, ws, true},
		{"longest rule decides", `{` + q(root) + `: "TRUST_FOLDER", ` + q(ws) + `: "DO_NOT_TRUST"}`, "", nil, ws, false},
		{"not covering", `{` + q(filepath.Join(ws, "sub")) + `: "TRUST_FOLDER"}`, "", nil, ws, false},
		{"env", "", "", []string{"GEMINI_CLI_TRUST_WORKSPACE=true"}, ws, true},
		{"restricted wins", "", "", []string{"GEMINI_CLI_TRUST_WORKSPACE=true", "GEMINI_RESTRICTED_MODE=true"}, ws, false},
		{"env false", `{` + q(ws) + `: "TRUST_FOLDER"}`, "", []string{"GEMINI_CLI_TRUST_WORKSPACE=false"}, ws, false},
		{"folder trust off", "", `{"security": {"folderTrust": {"enabled": false}}}`, nil, ws, true},
		{"ide mode may decide", `{` + q(ws) + `: "TRUST_FOLDER"}`, `{"ide": {"enabled": true}}`, nil, ws, false},
	} {
		os.Remove(filepath.Join(user, "trustedFolders.json"))
		os.Remove(filepath.Join(user, "settings.json"))
		if tc.rules != "" {
			write("trustedFolders.json", tc.rules)
		}
		if tc.settings != "" {
			write("settings.json", tc.settings)
		}
		if got := trustsFolder(user, append([]string{sys}, tc.env...), tc.cwd); got != tc.want {
			t.Errorf("%s: trustsFolder = %v, want %v", tc.name, got, tc.want)
		}
	}
}
