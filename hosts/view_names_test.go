package hosts

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMaterializeRefusesFoldedNames: two entries of one view directory
// that differ only in letter case or Unicode normalization are one name on
// a case-insensitive file system (macOS, Windows), where writing the view
// failed with a bare EEXIST. The view is refused on every OS, before any
// file is written, with an error naming both entries.
func TestMaterializeRefusesFoldedNames(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"skills/Report/SKILL.md", "skills/report/SKILL.md"},
		{"agents/caf\u00e9.md", "agents/cafe\u0301.md"},
		{"commands/Straße.md", "commands/STRASSE.md"},
		{"1.0.0/skills/X/SKILL.md", "1.0.0/skills/x/scripts/run.sh"},
	} {
		t.Run(c.a, func(t *testing.T) {
			v := NewView()
			for _, p := range []string{c.a, c.b, "hooks/hooks.json"} {
				if err := v.Add(p, []byte("x"), false); err != nil {
					t.Fatal(err)
				}
			}
			views := filepath.Join(t.TempDir(), "views")
			_, err := Materialize(views, "tok", "claude", "b", v)
			var ce *NameCollisionError
			if !errors.As(err, &ce) {
				t.Fatalf("Materialize = %v, want a NameCollisionError", err)
			}
			msg := err.Error()
			for _, want := range []string{"case-insensitive", "rename one"} {
				if !strings.Contains(msg, want) {
					t.Errorf("the error does not say %q: %s", want, msg)
				}
			}
			if ce.A == ce.B || !strings.HasPrefix(c.a, strings.Split(ce.A, "/")[0]) {
				t.Errorf("the error names %q and %q", ce.A, ce.B)
			}
			ents, _ := os.ReadDir(filepath.Join(views, "tok", "claude"))
			for _, e := range ents {
				if e.Name() != ".lock" {
					t.Errorf("left %s behind", e.Name())
				}
			}
		})
	}
	v := NewView()
	for _, p := range []string{"skills/report/SKILL.md", "skills/reports/SKILL.md", "commands/report.md", "skills/report/Report.md"} {
		v.Add(p, []byte("x"), false)
	}
	if err := v.CheckNames(); err != nil {
		t.Errorf("CheckNames refused distinct names: %v", err)
	}
}

// TestCheckNamesRefusesAFileAtADirectoryPath: a view holding a file at the
// very path of a directory that holds another (a Gemini CLI context file
// named hooks, trusted before the review refused it, beside the
// hooks/hooks.json of a guard) could not be written: Materialize failed
// with a bare "not a directory" after CheckNames passed it, and exec
// failed the whole launch instead of loading that bundle's hooks alone.
// CheckNames refuses it, naming both.
func TestCheckNamesRefusesAFileAtADirectoryPath(t *testing.T) {
	v := NewView()
	for _, p := range []string{"hooks", "hooks/hooks.json", "gemini-extension.json"} {
		if err := v.Add(p, []byte("x"), false); err != nil {
			t.Fatal(err)
		}
	}
	var ce *NameCollisionError
	if err := v.CheckNames(); !errors.As(err, &ce) || ce.A != "hooks" || ce.B != "hooks/hooks.json" {
		t.Fatalf("CheckNames = %v, want a NameCollisionError for hooks and hooks/hooks.json", err)
	}
	if msg := ce.Error(); !strings.Contains(msg, `"hooks" both as a file and as the directory of "hooks/hooks.json"`) || !strings.Contains(msg, "review it again") {
		t.Errorf("the error says: %s", msg)
	}
}
