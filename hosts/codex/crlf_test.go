package codex

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bundlectl/bundlectl/hosts"
)

// TestSetupCRLFConfig: a config.toml saved with CRLF line breaks (as a
// Windows editor leaves it), which Codex 0.171 reads, setup's block and
// all (internal/agenttest TestListCodexConfigCRLF): list reads the
// block's lines, setup finds its block and writes nothing (once it wrote a
// second block after it), writes a block into a CRLF file with CRLF line
// breaks, and --undo takes it out. list once called the lines gone.
func TestSetupCRLFConfig(t *testing.T) {
	home, codexHome, ws := t.TempDir(), t.TempDir(), t.TempDir()
	environ := []string{"CODEX_HOME=" + codexHome}
	config := filepath.Join(codexHome, "config.toml")
	in := hosts.SetupInput{Reentry: hosts.Reentry{Exe: "/bin/bundlectl", Home: home}, Environ: environ}
	crlf := func(s []byte) []byte { return bytes.ReplaceAll(s, []byte("\n"), []byte("\r\n")) }
	const mine = "model = \"gpt-5.5\"\n\n[tui]\nnotifications = true\n"
	if err := os.WriteFile(config, crlf([]byte(mine)), 0o600); err != nil {
		t.Fatal(err)
	}

	res, err := hosts.Setup(home, Host{}, in)
	if err != nil || len(res) != 1 || !res[0].Changed {
		t.Fatalf("Setup = %+v, %v", res, err)
	}
	wired, _ := os.ReadFile(config)
	if bytes.Count(wired, []byte("\n")) != bytes.Count(wired, []byte("\r\n")) {
		t.Errorf("setup wrote LF line breaks into a CRLF file:\n%q", wired)
	}
	if got := (Host{}).WiredEvents(wired); !slices.Equal(got, Events) {
		t.Errorf("WiredEvents = %v, want %v", got, Events)
	}
	if sts := hosts.CheckSetups(home, ws, environ); len(sts) != 0 {
		t.Errorf("CheckSetups = %+v, want nothing (the lines are there)", sts[0])
	}
	if res, err := hosts.Setup(home, Host{}, in); err != nil || res[0].Changed {
		t.Errorf("Setup again = %+v, %v, want nothing changed", res, err)
	}

	// Wired with LF, then saved with CRLF by the user: the same.
	if _, err := hosts.Undo(home, Host{}, in); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := hosts.Setup(home, Host{}, in); err != nil {
		t.Fatal(err)
	}
	wired, _ = os.ReadFile(config)
	if err := os.WriteFile(config, crlf(wired), 0o600); err != nil {
		t.Fatal(err)
	}
	if sts := hosts.CheckSetups(home, ws, environ); len(sts) != 0 {
		t.Errorf("saved with CRLF: CheckSetups = %+v, want nothing (the lines are there)", sts[0])
	}
	res, err = hosts.Setup(home, Host{}, in)
	now, _ := os.ReadFile(config)
	if err != nil || res[0].Changed || !bytes.Equal(now, crlf(wired)) {
		t.Errorf("Setup on the CRLF file = %+v, %v, want it unchanged; it holds %d blocks", res, err, bytes.Count(now, []byte("# >>> bundlectl setup")))
	}
	if _, err := hosts.Undo(home, Host{}, in); err != nil {
		t.Fatal(err)
	}
	if now, _ := os.ReadFile(config); !bytes.Equal(now, crlf([]byte(mine))) {
		t.Errorf("--undo left %d bytes, want the user's CRLF file back (%d)", len(now), len(mine)+4)
	}

	// A file setup created, its block alone, saved with CRLF.
	if err := os.Remove(config); err != nil {
		t.Fatal(err)
	}
	if _, err := hosts.Setup(home, Host{}, in); err != nil {
		t.Fatal(err)
	}
	wired, _ = os.ReadFile(config)
	if err := os.WriteFile(config, crlf(wired), 0o600); err != nil {
		t.Fatal(err)
	}
	if res, err := hosts.Setup(home, Host{}, in); err != nil || res[0].Changed {
		t.Errorf("Setup on setup's own file saved with CRLF = %+v, %v, want it unchanged", res, err)
	}
}
