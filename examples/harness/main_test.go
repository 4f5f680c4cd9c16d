package main

import (
	"github.com/bundlectl/bundlectl/internal/testtree"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
)

// TestExampleHarnessShowsOnlyActiveBundles runs the example program against
// a copy of the example workspace in which only repo-guard is trusted and
// enabled.
func TestExampleHarnessShowsOnlyActiveBundles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example")
	}
	tmp := t.TempDir()
	ws, home := filepath.Join(tmp, "ws"), filepath.Join(tmp, "home")
	if err := testtree.Copy("../workspace", ws); err != nil {
		t.Fatal(err)
	}
	m := lifecycle.New(bundle.Roots{Home: home, Workspace: ws}, bundle.Limits{})
	b, err := m.Find(m.Discover(), "repo-guard")
	if err != nil {
		t.Fatal(err)
	}
	h, err := lifecycle.Compute(b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Trust("repo-guard", h.Token()); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Enable("repo-guard"); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(tmp, "harness")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "-home", home, "-workspace", ws).CombinedOutput()
	if err != nil {
		t.Fatalf("harness: %v\n%s", err, out)
	}
	got := string(out)
	for _, want := range []string{
		"tool   plugin__repo-guard__word-count",
		"not loaded: notes-skills (untrusted)",
		"not loaded: lsp-bridge (untrusted)",
		`exit 0: {"words":5`,
		"blocked: repo-guard: blocked: force push",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "skill  notes-skills:") {
		t.Errorf("an untrusted bundle's skill is in the catalogue:\n%s", got)
	}
}
