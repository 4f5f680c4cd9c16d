package bundle

import (
	"slices"
	"strings"
	"testing"
)

// TestDuplicateNamesFold: two skills or agents whose names differ only in
// letter case or Unicode normalization are one name on a case-insensitive
// file system, where a host view (skills/Report/ and skills/report/)
// could not be built. They passed review; the duplicate rules now compare
// names as name.collision compares file names, and the message names the
// other file and says how the two differ.
func TestDuplicateNamesFold(t *testing.T) {
	for _, c := range []struct {
		kind, a, b, rule, says string
	}{
		{"skills", "Report", "report", "skill.duplicate", `only in letter case`},
		{"agents", "caf\u00e9", "cafe\u0301", "document.duplicate", `only in Unicode normalization ("cafe\u0301" and "caf\u00e9"`},
		{"agents", "Straße", "STRASSE", "document.duplicate", `only in letter case`},
		{"skills", "Caf\u00e9", "cafe\u0301", "skill.duplicate", `only in letter case and Unicode normalization`},
	} {
		files := map[string]string{ManifestClaude: `{"name": "p"}`}
		second := ""
		for i, n := range []string{c.a, c.b} {
			fm := "---\nname: " + n + "\ndescription: d\n---\nbody\n"
			dir := []string{"first", "second"}[i]
			if c.kind == "skills" {
				files["skills/"+dir+"/SKILL.md"] = fm
				second = "skills/second/SKILL.md"
			} else {
				files["agents/"+dir+".md"] = fm
				second = "agents/second.md"
			}
		}
		b := writeTree(t, "p", files)
		if !slices.ContainsFunc(b.Report.Findings, func(f Finding) bool {
			return f.Rule == c.rule && f.Severity == Error && f.Path == second && strings.Contains(f.Message, c.says) && strings.Contains(f.Message, "case-insensitive file system") && strings.Contains(f.Message, "first")
		}) {
			t.Errorf("%s %q and %q: no %s error at %s saying %q and naming the first:%s", c.kind, c.a, c.b, c.rule, second, c.says, dumpFindings(b))
		}
	}
	b := writeTree(t, "p", map[string]string{
		ManifestClaude:      `{"name": "p"}`,
		"skills/a/SKILL.md": "---\nname: report\ndescription: d\n---\n",
		"skills/b/SKILL.md": "---\nname: reports\ndescription: d\n---\n",
		"agents/report.md":  "---\nname: Report\ndescription: d\n---\n",
	})
	for _, f := range b.Report.Findings {
		if strings.HasSuffix(f.Rule, ".duplicate") {
			t.Errorf("distinct names reported: %s %s: %s", f.Rule, f.Path, f.Message)
		}
	}
}
