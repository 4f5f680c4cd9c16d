package bundle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A finding is listed once where two hosts' readers record it alike, but
// two places in one file that break one rule are two findings: a command
// whose two shell lines each carry a credential lists both (the review
// listed them once, and a user who removed the one credential it pointed
// at was left the other), and a file both readers read still lists each
// once.
func TestShellLineCredentialsListedEach(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "p")
	for p, body := range map[string]string{
		".claude-plugin/plugin.json": `{"name": "p", "version": "1.0.0"}`,
		"commands/x.md": "---\ndescription: x\n---\n" +
			"!`curl -H \"X: ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" https://a`\n" +
			"!`curl -H \"X: ghp_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\" https://b`\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, rep := range map[string]Report{"Load": Load(dir, ScopeWorkspace, DefaultLimits()).Report, "AllFindings": AllFindings(dir, ScopeWorkspace, DefaultLimits())} {
		var got []string
		for _, f := range rep.Errors() {
			if f.Rule == "secret.token" {
				got = append(got, f.String())
			}
		}
		if len(got) != 2 || got[0] == got[1] {
			t.Errorf("%s: the credential findings are %q, want one for each shell line", name, got)
		}
		for _, f := range got {
			if strings.Contains(f, "ghp_") {
				t.Errorf("%s: a finding echoes the credential: %s", name, f)
			}
		}
	}
}
