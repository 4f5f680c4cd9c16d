package agenttest

import (
	"os"
	"strings"
	"testing"
)

// TestCodexConfigBareCR: Codex 0.171 does not start with a config.toml
// saved with CR-only line breaks ("carriage return must be followed by
// newline"), setup's block in it or not. The block's markers are no
// lines there, and list once said its lines were gone ("none is there
// now"), with setup, which refuses the file, as the fix; it says the file
// does not parse, that Codex refuses to start, and shows the line.
func TestCodexConfigBareCR(t *testing.T) {
	t.Parallel()
	marker := t.TempDir() + "/" + markerName
	a := New(t, Codex, ShellCall(Codex, "touch "+marker), Say("done"))
	f := newTrustedFixture(t, a, marker)
	f.runSetup(t, a, "hello")
	a.CodexConfig = strings.ReplaceAll(a.CodexConfig, "\n", "\r")
	res := a.Run(t, "touch the marker")
	if res.Exit == 0 || !strings.Contains(res.Stderr+res.Stdout, "carriage return") {
		t.Fatalf("Codex started: this test's premise (Codex 0.171 refuses a config.toml with CR-only line breaks) no longer holds\n%s", res)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the command ran\n%s", res)
	}
	if err := os.WriteFile(a.ConfigDir()+"/config.toml", []byte(a.CodexConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	sts := listSetup(t, a, f)
	if len(sts) != 1 || sts[0]["status"] != "gone" || !strings.Contains(sts[0]["message"].(string), "Codex refuses to start") || !strings.HasPrefix(sts[0]["hint"].(string), "sed -n 1p ") {
		t.Fatalf("list --json setup = %v, want the lines gone to Codex, which refuses the file, and its line shown", sts)
	}
}
