package staging

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/fingerprint"
	"github.com/bundlectl/bundlectl/receipts"
	"github.com/bundlectl/bundlectl/review"
)

// linkedSource writes a bundle with links of every kept form and two that
// are not part of the bundle, and returns it, its walk and its content
// hash.
func linkedSource(t *testing.T) (string, *bundle.Tree, receipts.Digest) {
	t.Helper()
	src := filepath.Join(t.TempDir(), "demo")
	writeTree(t, src, map[string]string{
		"plugin.json":             `{"name":"demo"}`,
		"AGENTS.md":               "# agents\n",
		"skills/a/SKILL.md":       "---\nname: a\n---\n",
		"skills/a/scripts/run.sh": "#!/bin/sh\necho run\n",
		"skills/b/SKILL.md":       "---\nname: b\n---\n",
		"skills/b/scripts/":       "",
		"docs/":                   "",
	})
	for _, l := range [][2]string{
		{"CLAUDE.md", "AGENTS.md"},
		{"docs/agents.md", "./../docs/../AGENTS.md"}, // written back as "../AGENTS.md"
		{"skills/b/scripts/run.sh", "../../a/scripts/run.sh"},
		{"escape-link", ".."},        // not part of the bundle
		{"passwd", "/etc/passwd"},    // not part of the bundle
		{"docs/skills", "../skills"}, // a directory: not part of the bundle
	} {
		if err := os.Symlink(l[1], filepath.Join(src, filepath.FromSlash(l[0]))); err != nil {
			t.Fatal(err)
		}
	}
	tree, rep := bundle.Walk(src, bundle.Limits{})
	if tree == nil || rep.Rejected() {
		t.Fatalf("walk: %v", rep.Err())
	}
	if n := len(rep.Findings); n != 3 {
		t.Fatalf("want 3 skipped links, got %v", rep.Findings)
	}
	want, err := review.ContentHash(tree)
	if err != nil {
		t.Fatal(err)
	}
	return src, tree, want
}

// TestStageLinksRoundTrip trusts a bundle with internal links: the
// snapshot holds each kept link as a link with the shortest relative text
// to its target, holds no link that leads out of it (the refused ones are
// not copied), verifies, and reads through its links.
func TestStageLinksRoundTrip(t *testing.T) {
	for _, portable := range []bool{false, true} {
		t.Run(map[bool]string{false: "openat2", true: "portable"}[portable], func(t *testing.T) {
			testOnlyNoOpenat2 = portable
			defer func() { testOnlyNoOpenat2 = false }()
			_, tree, want := linkedSource(t)
			s := newStore(t)
			snap, err := s.Stage(tree, want, bundle.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Verify(want); err != nil {
				t.Fatalf("Verify: %v", err)
			}
			for rel, text := range map[string]string{
				"CLAUDE.md":               "AGENTS.md",
				"docs/agents.md":          "../AGENTS.md",
				"skills/b/scripts/run.sh": "../../a/scripts/run.sh",
			} {
				got, err := os.Readlink(filepath.Join(snap, filepath.FromSlash(rel)))
				if err != nil || got != text {
					t.Errorf("snapshot %s -> %q (%v), want %q", rel, got, err, text)
				}
			}
			for _, rel := range []string{"escape-link", "passwd", "docs/skills"} {
				if _, err := os.Lstat(filepath.Join(snap, filepath.FromSlash(rel))); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("the refused link %s is in the snapshot (%v)", rel, err)
				}
			}
			// No link of the snapshot resolves outside it.
			filepath.WalkDir(snap, func(p string, d os.DirEntry, err error) error {
				if err == nil && d.Type()&os.ModeSymlink != 0 {
					r, err := filepath.EvalSymlinks(p)
					if err != nil || !strings.HasPrefix(r, snap+string(filepath.Separator)) {
						t.Errorf("%s resolves to %q (%v), outside the snapshot", p, r, err)
					}
				}
				return nil
			})
			if data, err := os.ReadFile(filepath.Join(snap, "CLAUDE.md")); err != nil || string(data) != "# agents\n" {
				t.Errorf("read through the snapshot's link: %q, %v", data, err)
			}
			rec, err := os.ReadFile(snap + recordsSuffix)
			if err != nil || !strings.Contains(string(rec), "\nL - \"AGENTS.md\" CLAUDE.md\n") {
				t.Errorf("records file:\n%s (%v)", rec, err)
			}
			// The snapshot, walked again, is the reviewed tree.
			again, rep := bundle.Walk(snap, bundle.Limits{})
			if len(rep.Findings) != 0 {
				t.Fatalf("walk of the snapshot: %v", rep.Findings)
			}
			if got, err := review.ContentHash(again); err != nil || got != want {
				t.Fatalf("snapshot hashes to %s (%v), want %s", got, err, want)
			}
			if ref := referenceHash(t, snap); ref != want {
				t.Fatalf("the reference recipe hashes the snapshot to %s, want %s", ref, want)
			}
		})
	}
}

// TestVerifyDetectsLinkTampering changes the links of a snapshot in every
// way a re-hash must see; a link rewritten with another text for the
// same target is the same tree and still verifies.
func TestVerifyDetectsLinkTampering(t *testing.T) {
	relink := func(rel, text string) func(t *testing.T, snap string) {
		return func(t *testing.T, snap string) {
			p := filepath.Join(snap, filepath.FromSlash(rel))
			os.Remove(p)
			if err := os.Symlink(text, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	cases := []struct {
		name   string
		tamper func(t *testing.T, snap string)
		path   string
		reason string // "" = still verifies
	}{
		{"retargeted inside", relink("CLAUDE.md", "plugin.json"), "CLAUDE.md", `retargeted from "AGENTS.md" to "plugin.json"`},
		{"retargeted outside", relink("CLAUDE.md", "/etc/passwd"), "CLAUDE.md", "not part of the bundle"},
		{"retargeted out by dot dot", relink("docs/agents.md", "../../x"), "docs/agents.md", "not part of the bundle"},
		{"retargeted to a directory", relink("CLAUDE.md", "skills"), "CLAUDE.md", "not part of the bundle"},
		{"link added", relink("NEW.md", "AGENTS.md"), "NEW.md", "added"},
		{"link removed", func(t *testing.T, snap string) { os.Remove(filepath.Join(snap, "CLAUDE.md")) }, "CLAUDE.md", "removed"},
		{"link replaced by the same bytes", func(t *testing.T, snap string) {
			p := filepath.Join(snap, "CLAUDE.md")
			os.Remove(p)
			if err := os.WriteFile(p, []byte("# agents\n"), 0o400); err != nil {
				t.Fatal(err)
			}
		}, "CLAUDE.md", "symbolic link replaced by a file"},
		{"file replaced by a link", relink("plugin.json", "AGENTS.md"), "plugin.json", "file replaced by a symbolic link"},
		{"same target, other text", relink("CLAUDE.md", "./docs/../AGENTS.md"), "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, tree, want := linkedSource(t)
			s := newStore(t)
			snap, err := s.Stage(tree, want, bundle.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			unseal(t, snap)
			c.tamper(t, snap)
			filepath.WalkDir(snap, func(p string, d os.DirEntry, err error) error {
				if err == nil && d.IsDir() {
					os.Chmod(p, 0o500)
				}
				return nil
			})
			err = s.Verify(want)
			if c.reason == "" {
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				return
			}
			var te *TamperError
			if !errors.As(err, &te) || !errors.Is(err, ErrTampered) {
				t.Fatalf("Verify: %v, want a *TamperError", err)
			}
			if te.Path != c.path || !strings.Contains(te.Reason, c.reason) {
				t.Fatalf("Verify: path %q reason %q, want %q and %q", te.Path, te.Reason, c.path, c.reason)
			}
			if _, err := s.Check(want, fingerprint.Cache{Dir: t.TempDir()}); !errors.Is(err, ErrTampered) {
				t.Errorf("Check: %v, want ErrTampered", err)
			}
		})
	}
}

// TestStageRefusesARetargetedSourceLink: a source link replaced between
// the walk and the copy fails the stage (ErrChanged) and leaves nothing.
func TestStageRefusesARetargetedSourceLink(t *testing.T) {
	src, tree, want := linkedSource(t)
	testOnlyBeforeCopy = func() {
		p := filepath.Join(src, "CLAUDE.md")
		os.Remove(p)
		os.Symlink("plugin.json", p)
	}
	defer func() { testOnlyBeforeCopy = nil }()
	s := newStore(t)
	_, err := s.Stage(tree, want, bundle.Limits{})
	if !errors.Is(err, bundle.ErrChanged) || !strings.Contains(err.Error(), "CLAUDE.md") {
		t.Fatalf("Stage: %v, want ErrChanged naming CLAUDE.md", err)
	}
	for _, n := range storeNames(t, s) {
		t.Errorf("the store holds %q after a failed stage", n)
	}
}

// TestFingerprintSeesARetargetedLink: a fingerprint record covers whole
// entries, and a link's entry carries its target, so a record of another
// target proves nothing.
func TestFingerprintSeesARetargetedLink(t *testing.T) {
	_, tree, _ := linkedSource(t)
	later := time.Now().Add(time.Second) // no entry is racy against it
	clean := bundle.Report{}
	rec := fingerprint.NewRecord("k", "d", later, tree)
	if !fingerprint.Proves(rec, tree, clean, later) {
		t.Fatal("a record of the same walk proves nothing")
	}
	retargeted := *tree
	retargeted.Entries = append([]bundle.Entry(nil), tree.Entries...)
	found := false
	for i, e := range retargeted.Entries {
		if e.Kind == bundle.KindLink && e.Path == "CLAUDE.md" {
			retargeted.Entries[i].Target = "plugin.json"
			found = true
		}
	}
	if !found {
		t.Fatal("no link CLAUDE.md in the walk")
	}
	if fingerprint.Proves(rec, &retargeted, clean, later) {
		t.Fatal("a walk with another link target matches the record")
	}
}
