package hosts_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/hosts"
	_ "github.com/bundlectl/bundlectl/hosts/claude"
)

// TestSetupStale: what hooks run says at a SessionStart is CheckSetup's
// message and fix for the host it names; a complete block, a host setup
// never wrote for, and a host bundlectl does not know say nothing.
func TestSetupStale(t *testing.T) {
	home, user := t.TempDir(), t.TempDir()
	environ := []string{"HOME=" + user}
	claude, ok := hosts.Lookup("claude")
	if !ok {
		t.Fatal("no claude host")
	}
	if p, f := hosts.SetupStale(home, "claude", environ); p != "" || f != "" {
		t.Errorf("before setup: %q, %q, want nothing", p, f)
	}
	in := hosts.SetupInput{Reentry: hosts.Reentry{Exe: "/bin/bundlectl", Home: home, Workspace: user}, Environ: environ}
	if _, err := hosts.Setup(home, claude, in); err != nil {
		t.Fatal(err)
	}
	if p, f := hosts.SetupStale(home, "claude", environ); p != "" || f != "" {
		t.Errorf("after setup: %q, %q, want nothing", p, f)
	}
	settings := filepath.Join(user, ".claude", "settings.json")
	b, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	delete(s["hooks"], "PreCompact")
	if b, err = json.Marshal(s); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, b, 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := hosts.CheckSetup(home, claude, environ)
	if err != nil || st == nil {
		t.Fatalf("CheckSetup = %v, %v, want the missing PreCompact", st, err)
	}
	p, f := hosts.SetupStale(home, "claude", environ)
	if p != st.Message() || f != st.Fix() || !strings.Contains(p, "there is none for PreCompact") || f != "bundlectl setup claude" {
		t.Errorf("stale: %q, %q, want CheckSetup's %q, %q", p, f, st.Message(), st.Fix())
	}
	if p, f := hosts.SetupStale(home, "nosuch", environ); p != "" || f != "" {
		t.Errorf("unknown host: %q, %q, want nothing", p, f)
	}
}
