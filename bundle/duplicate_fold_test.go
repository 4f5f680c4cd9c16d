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

// TestDuplicateNamesFoldViewPaths: the fold rule refuses exactly the
// commands whose paths in bundlectl exec's host view would fold to one. A
// file command commands/Deploy.md and a skill-mode command
// commands/deploy/SKILL.md are written as Deploy.md and deploy/, and
// Claude Code 2.1.332 loads them as two commands, "p:Deploy" and
// "p:deploy" (internal/agenttest TestClaudeCommandCaseNames): no error.
// Commands a:x and A:y (named in the manifest) are written as a/x.md and
// A/y.md, whose a and A fold to one directory: an error naming both view
// paths. (Names taken from file names alone fold only when the files do,
// which the tree rule name.collision refuses first.)
func TestDuplicateNamesFoldViewPaths(t *testing.T) {
	cmd := "---\ndescription: d\n---\nbody\n"
	named := func(a, srcA, b, srcB string) string {
		return `{"name": "p", "commands": {"` + a + `": {"source": "./` + srcA + `"}, "` + b + `": {"source": "./` + srcB + `"}}}`
	}
	for _, c := range []struct {
		name     string
		manifest string
		files    []string
		says     string // "" when no duplicate may be reported
	}{
		{"file and skill-mode", `{"name": "p"}`, []string{"commands/Deploy.md", "commands/deploy/SKILL.md"}, ""},
		{"skill-mode and file", `{"name": "p"}`, []string{"commands/Deploy/SKILL.md", "commands/deploy.md"}, ""},
		{"named file and skill-mode", named("Deploy", "one.md", "deploy", "two/SKILL.md"), []string{"one.md", "two/SKILL.md"}, ""},
		{"named files", named("Deploy", "one.md", "deploy", "two.md"), []string{"one.md", "two.md"}, "only in letter case"},
		{"named skill-modes", named("Deploy", "one/SKILL.md", "deploy", "two/SKILL.md"), []string{"one/SKILL.md", "two/SKILL.md"}, "only in letter case"},
		{"exact", `{"name": "p"}`, []string{"commands/deploy.md", "commands/deploy/SKILL.md"}, `is also named "deploy"`},
		{"folded directory", named("a:x", "one.md", "A:y", "two.md"), []string{"one.md", "two.md"}, `would write command "A:y" as "commands/A/y.md" and command "a:x" ("one.md") as "commands/a/x.md", and "commands/A" and "commands/a" differ only in letter case`},
		{"distinct directories", named("a:x", "one.md", "b:X", "two.md"), []string{"one.md", "two.md"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := map[string]string{ManifestClaude: c.manifest}
			for _, f := range c.files {
				files[f] = cmd
			}
			b := writeTree(t, "p", files)
			var dups []Finding
			for _, f := range b.Report.Findings {
				if strings.HasSuffix(f.Rule, ".duplicate") {
					dups = append(dups, f)
				}
			}
			if c.says == "" {
				if len(dups) > 0 {
					t.Errorf("distinct view paths reported:%s", dumpFindings(b))
				}
				return
			}
			if len(dups) != 1 || dups[0].Rule != "document.duplicate" || dups[0].Severity != Error || !strings.Contains(dups[0].Message, c.says) {
				t.Errorf("want one document.duplicate error saying %q:%s", c.says, dumpFindings(b))
			}
		})
	}
}
