package agenttest

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
)

// TestCodexNestedSkills: Codex 0.171 walks a plugin's skills directory and
// offers the model every SKILL.md at most six directories below it — the
// directory's own, one below a directory that is no skill, one below
// another skill's — but none in a hidden directory or one deeper. The
// review lists for Codex exactly the skills Codex offers (bundle
// TestCodexNestedSkills); it listed only skills/<dir>/SKILL.md, so a skill
// in skills/group/inner/ reached the model unreviewed.
func TestCodexNestedSkills(t *testing.T) {
	t.Parallel()
	descs := map[string]string{
		"skills/SKILL.md":               "agenttest-codex-root-skill-4e21",
		"skills/ok/SKILL.md":            "agenttest-codex-ok-skill-0b7d",
		"skills/ok/nested/SKILL.md":     "agenttest-codex-nested-skill-9a13",
		"skills/group/inner/SKILL.md":   "agenttest-codex-inner-skill-77c5",
		"skills/g/a/b/c/d/e/SKILL.md":   "agenttest-codex-six-skill-2d90",
		"skills/g/a/b/c/d/e/f/SKILL.md": "agenttest-codex-seven-skill-c3f8",
		"skills/.hidden/SKILL.md":       "agenttest-codex-hidden-skill-5b6e",
	}
	src := filepath.Join(t.TempDir(), "src", pluginName)
	writeJSONFile(t, src, ".codex-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0", "description": "agenttest plugin"})
	for rel, desc := range descs {
		name := "skill-" + desc[len(desc)-4:]
		writeFile(t, src, rel, "---\nname: "+name+"\ndescription: "+desc+"\n---\nbody\n", 0o644)
	}
	var review struct {
		Components struct {
			Skills []struct {
				Path  string   `json:"path"`
				Hosts []string `json:"hosts"`
			} `json:"skills"`
		} `json:"components"`
	}
	out := BundlectlRun(t, t.TempDir(), "review", "--json", src)
	if err := json.Unmarshal([]byte(out), &review); err != nil {
		t.Fatalf("review --json: %v\n%s", err, out)
	}
	var listed []string
	for _, s := range review.Components.Skills {
		if slices.Contains(s.Hosts, "codex") {
			listed = append(listed, s.Path)
		}
	}
	slices.Sort(listed)

	a := New(t, Codex, Say("done"))
	a.Args = []string{"-c", "features.plugins=true", "-c", fmt.Sprintf("plugins={%q={enabled=true}}", codexPluginID)}
	placeCopy(t, filepath.Join(a.ConfigDir(), "plugins", "cache"), src)
	res := a.Run(t, "hello")
	offered := firstCallHolds(t, a, res, descs)
	want := []string{"skills/SKILL.md", "skills/g/a/b/c/d/e/SKILL.md", "skills/group/inner/SKILL.md", "skills/ok/SKILL.md", "skills/ok/nested/SKILL.md"}
	if !slices.Equal(offered, want) {
		t.Fatalf("Codex offered the skills %q, want %q\n%s\n%s", offered, want, res, a.Model.Dump())
	}
	if !slices.Equal(listed, offered) {
		t.Errorf("the review lists for Codex the skills %q; Codex offered %q\n%s", listed, offered, out)
	}
}
