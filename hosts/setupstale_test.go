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

// TestListSaysAnotherHomesLines: once another $BUNDLECTL_HOME's setup
// replaced this home's hook lines in the same settings file, list of
// this home says its guards no longer run there. The other home's lines
// were once counted as this home's, and list said nothing: a false
// all-clear. The other home's own list still says nothing.
func TestListSaysAnotherHomesLines(t *testing.T) {
	first, second, user := t.TempDir(), t.TempDir(), t.TempDir()
	environ := []string{"HOME=" + user}
	claude, ok := hosts.Lookup("claude")
	if !ok {
		t.Fatal("no claude host")
	}
	for _, home := range []string{first, second} {
		in := hosts.SetupInput{Reentry: hosts.Reentry{Exe: "/bin/bundlectl", Home: home, Workspace: user}, Environ: environ}
		if _, err := hosts.Setup(home, claude, in); err != nil {
			t.Fatal(err)
		}
	}
	if sts := hosts.CheckSetups(second, user, environ); len(sts) != 0 {
		t.Errorf("list of the home whose lines are there: %v", sts[0].Message())
	}
	sts := hosts.CheckSetups(first, user, environ)
	if len(sts) != 1 || !sts[0].Gone || !sts[0].OtherHome || !strings.Contains(sts[0].Message(), "another home's") || sts[0].Fix() != "bundlectl setup claude" {
		t.Fatalf("list of the home whose lines were replaced: %+v", sts)
	}
	if p, f := hosts.SetupStale(first, "claude", environ); p != "" || f != "" {
		t.Errorf("SessionStart of the replaced home (none of its lines runs): %q, %q", p, f)
	}
}

// TestSetupStaleWorktreeLines: an older setup wired WorktreeCreate and
// WorktreeRemove, whose hooks Claude Code hands the worktree's creation
// and removal (so `claude --worktree` failed under setup's "{}"); this
// setup wires neither, and its check names lines still there as out of
// date, with the setup that takes them out.
func TestSetupStaleWorktreeLines(t *testing.T) {
	home, user := t.TempDir(), t.TempDir()
	environ := []string{"HOME=" + user}
	claude, _ := hosts.Lookup("claude")
	in := hosts.SetupInput{Reentry: hosts.Reentry{Exe: "/bin/bundlectl", Home: home, Workspace: user}, Environ: environ}
	if _, err := hosts.Setup(home, claude, in); err != nil {
		t.Fatal(err)
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
	if s["hooks"]["WorktreeCreate"] != nil || s["hooks"]["WorktreeRemove"] != nil {
		t.Fatalf("setup wired WorktreeCreate or WorktreeRemove: %s", b)
	}
	// The lines an older setup wrote: the Stop line's, for the two events.
	stop, _ := json.Marshal(s["hooks"]["Stop"])
	for _, ev := range []string{"WorktreeCreate", "WorktreeRemove"} {
		var g any
		json.Unmarshal([]byte(strings.ReplaceAll(string(stop), "hooks run Stop", "hooks run "+ev)), &g)
		s["hooks"][ev] = g
	}
	if b, err = json.Marshal(s); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, b, 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := hosts.CheckSetup(home, claude, environ)
	if err != nil || st == nil || strings.Join(st.Extra, ",") != "WorktreeCreate,WorktreeRemove" || len(st.Missing) != 0 {
		t.Fatalf("CheckSetup = %+v, %v, want the two lines named as setup's no longer", st, err)
	}
	if m := st.Message(); !strings.Contains(m, "they hook WorktreeCreate, WorktreeRemove, which this bundlectl's setup no longer wires") || st.Fix() != "bundlectl setup claude" {
		t.Errorf("message %q, fix %q", m, st.Fix())
	}
	if _, err := hosts.Setup(home, claude, in); err != nil {
		t.Fatal(err)
	}
	if st, err := hosts.CheckSetup(home, claude, environ); st != nil || err != nil {
		t.Errorf("after setup again: %+v, %v, want nothing (setup took the lines out)", st, err)
	}
}
