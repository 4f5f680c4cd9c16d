package agenttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeminiTrustedFolderNotUTF8: Gemini CLI 0.61 reads trustedFolders.json
// as Node.js decodes bytes that are not UTF-8 (each maximal invalid
// subpart one U+FFFD), so in a folder named "ws\ufffd" (U+FFFD as UTF-8)
// a -p session runs under a TRUST_FOLDER rule written "ws\xe2\x82", and
// stops (exit 55, untrusted) under a DO_NOT_TRUST rule written
// "ws\xf0\x9f\x98"; hosts/gemini TestTrustsFolderNotUTF8 pins bundlectl's
// reading of the same rules, which took each invalid byte for a U+FFFD of
// its own. In a folder whose own name is not UTF-8 Gemini CLI stops at
// once (exit 1, "Directory does not exist": it looks for the decoded
// name), whatever the rules say: nothing runs there.
func TestGeminiTrustedFolderNotUTF8(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, dir, key, level string
		exit                  int
	}{
		{"trusted", "ws\ufffd", "ws\xe2\x82", "TRUST_FOLDER", 0},
		{"untrusted", "ws\ufffd", "ws\xf0\x9f\x98", "DO_NOT_TRUST", 55},
		{"folder-not-utf8", "ws\xff", "ws\xff", "TRUST_FOLDER", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := New(t, GeminiCLI, Say("done"))
			root, err := filepath.EvalSymlinks(filepath.Dir(a.Workdir))
			if err != nil {
				t.Fatal(err)
			}
			a.Workdir = filepath.Join(root, tc.dir)
			if err := os.Mkdir(a.Workdir, 0o755); err != nil {
				t.Skip("this file system does not take the name:", err)
			}
			a.Env = []string{"GEMINI_CLI_TRUST_WORKSPACE="}
			rules := append(append([]byte(`{"`), filepath.Join(root, tc.key)...), `": "`+tc.level+`"}`...)
			if err := os.WriteFile(filepath.Join(a.ConfigDir(), "trustedFolders.json"), rules, 0o600); err != nil {
				t.Fatal(err)
			}
			res := a.Run(t, "hello")
			if res.Exit != tc.exit || (len(a.Model.Requests()) > 0) != (tc.exit == 0) {
				t.Errorf("folder %q, rule %q %s: exit %d with %d model requests, want exit %d\n%s", tc.dir, tc.key, tc.level, res.Exit, len(a.Model.Requests()), tc.exit, res)
			}
			if tc.exit == 1 && !strings.Contains(res.Stderr, "Directory does not exist") {
				t.Errorf("folder %q: exit 1 for another reason\n%s", tc.dir, res)
			}
		})
	}
}
