package hosts_test

import (
	"path/filepath"
	"testing"

	"github.com/bundlectl/bundlectl/hosts"
	_ "github.com/bundlectl/bundlectl/hosts/codex"
)

// A home whose path holds "&": Codex's block spells it \u0026
// (json.Marshal), and list once called the lines setup had just wired
// for this very home another home's, gone.
func TestCodexSetupHomeWithAmpersandIsWired(t *testing.T) {
	home := filepath.Join(t.TempDir(), "a&b")
	user := t.TempDir()
	environ := []string{"HOME=" + user, "CODEX_HOME=" + filepath.Join(user, ".codex")}
	codex, ok := hosts.Lookup("codex")
	if !ok {
		t.Fatal("no codex host")
	}
	in := hosts.SetupInput{Reentry: hosts.Reentry{Exe: "/bin/bundlectl", Home: home, Workspace: user}, Environ: environ}
	if _, err := hosts.Setup(home, codex, in); err != nil {
		t.Fatal(err)
	}
	for _, st := range hosts.CheckSetups(home, user, environ) {
		if st.Host == "codex" {
			t.Errorf("after setup: %s (gone %v, other home %v)", st.Message(), st.Gone, st.OtherHome)
		}
	}
}
