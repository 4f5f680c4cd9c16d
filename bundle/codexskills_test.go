package bundle

import (
	"slices"
	"strings"
	"testing"
)

// Codex walks a skills location to CodexSkillDepth directories and loads
// every SKILL.md it finds as a skill of its own: the location's own, one in
// a directory that is no skill (skills/group/inner), one below another
// skill's, and not one in a hidden directory or deeper than the bound
// (internal/agenttest TestCodexNestedSkills). The review listed only
// skills/<dir>/SKILL.md, so skills Codex offers the model went unreviewed.
// Claude Code and Gemini CLI read the same directory one level deep: a
// nested skill is Codex's alone.
func TestCodexNestedSkills(t *testing.T) {
	skill := func(name string) string { return "---\nname: " + name + "\ndescription: d\n---\nbody\n" }
	fs := map[string]string{
		ManifestCodex:                         `{"name": "cx", "version": "1.0.0"}`,
		ManifestClaude:                        `{"name": "cx", "version": "1.0.0"}`,
		"skills/SKILL.md":                     skill("root"),
		"skills/ok/SKILL.md":                  skill("ok"),
		"skills/ok/nested/SKILL.md":           skill("nested"),
		"skills/group/inner/SKILL.md":         skill("inner"),
		"skills/g/a/b/c/d/e/SKILL.md":         skill("six"),
		"skills/g/a/b/c/d/e/f/SKILL.md":       skill("seven"),
		"skills/.hidden/SKILL.md":             skill("hidden"),
		"skills/group/.dot/x/SKILL.md":        skill("dotted"),
		"skills/group/inner/notes/skill.md":   skill("lower"),
		"custom/tools/SKILL.md":               skill("custom"),
		"skills/ok/scripts/run.sh":            "#!/bin/sh\n",
		"skills/group/inner/references/a.txt": "x",
	}
	fs[ManifestCodex] = `{"name": "cx", "version": "1.0.0", "skills": ["./custom/"]}`
	b := writeTree(t, "cx", fs)
	if b.Rejected() {
		t.Fatalf("rejected:%s", dumpFindings(b))
	}
	hosts := map[string][]Host{}
	for _, s := range b.Components.Skills {
		hosts[s.Path] = s.Hosts
	}
	for _, p := range []string{"skills/SKILL.md", "skills/ok/nested/SKILL.md", "skills/group/inner/SKILL.md", "skills/g/a/b/c/d/e/SKILL.md", "custom/tools/SKILL.md"} {
		if !slices.Equal(hosts[p], []Host{HostCodex}) {
			t.Errorf("%s: hosts %v, want Codex alone", p, hosts[p])
		}
	}
	if h := hosts["skills/ok/SKILL.md"]; !slices.Contains(h, HostCodex) || !slices.Contains(h, HostClaude) {
		t.Errorf("skills/ok/SKILL.md: hosts %v, want Claude Code and Codex", h)
	}
	for _, p := range []string{"skills/g/a/b/c/d/e/f/SKILL.md", "skills/group/.dot/x/SKILL.md", "skills/group/inner/notes/skill.md"} {
		if _, ok := hosts[p]; ok {
			t.Errorf("%s is listed; Codex does not load it", p)
		}
	}
	if h, ok := hosts["skills/.hidden/SKILL.md"]; ok && slices.Contains(h, HostCodex) {
		t.Errorf("skills/.hidden/SKILL.md is listed for Codex, which skips a hidden directory: %v", h)
	}
	if len(hosts) != 7 {
		var got []string
		for p := range hosts {
			got = append(got, p)
		}
		slices.Sort(got)
		t.Errorf("skills listed: %s", strings.Join(got, ", "))
	}
}
