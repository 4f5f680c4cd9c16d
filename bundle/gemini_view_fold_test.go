package bundle

import (
	"strings"
	"testing"
)

// TestGeminiContextFoldsOntoViewPath: a Gemini CLI context file whose path
// folds (letter case, Unicode NFC) onto a path bundlectl exec's Gemini CLI
// view writes for something else — HOOKS beside the hooks/ of a guard that
// plugin.toml declares, Commands beside commands/ — is one name on a
// case-insensitive file system, so exec cannot build the view
// (hosts.View.CheckNames) and loaded only its hooks. The review passed
// it; context.collision now refuses it, naming both paths and how they
// differ. A context file that folds onto nothing the view writes (HOOKS
// with no hook, a guard for another host) passes.
func TestGeminiContextFoldsOntoViewPath(t *testing.T) {
	const guard = "schema_version = 1\n\n[plugin]\nname = \"p\"\nversion = \"1.0.0\"\n\n[[hooks]]\nevent = \"PreToolUse\"\nmatcher = \"Bash\"\ncommand = \"./guard.sh\"\n"
	const skills = "schema_version = 1\n\n[plugin]\nname = \"p\"\nversion = \"1.0.0\"\n\n[skills]\npath = \"other\"\n"
	for _, c := range []struct {
		name  string
		files map[string]string
		says  string // "" when no context.collision may be reported
	}{
		{"HOOKS beside a guard's hooks/", map[string]string{
			ManifestGemini: `{"name": "p", "version": "1.0.0", "contextFileName": "HOOKS"}`,
			"HOOKS":        "ctx", ManifestTOML: guard, "guard.sh": "#!/bin/sh\n",
		}, `context file "HOOKS": bundlectl exec's Gemini CLI view would write it "HOOKS" and "hooks" for its hooks, and "HOOKS" and "hooks" differ only in letter case, which a case-insensitive file system`},
		{"HOOKS and no hook", map[string]string{
			ManifestGemini: `{"name": "p", "version": "1.0.0", "contextFileName": "HOOKS"}`,
			"HOOKS":        "ctx",
		}, ""},
		// Gemini CLI reads Skillſ/ as skills/ there: exec's view leaves
		// the context file out, with a note (GeminiContextReadsAsMore).
		{"a directory folding onto skills/", map[string]string{
			ManifestGemini:       `{"name": "p", "version": "1.0.0", "contextFileName": "Skill\u017f/ctx.md"}`,
			"Skill\u017f/ctx.md": "ctx",
			"other/s/SKILL.md":   "---\nname: s\ndescription: d\n---\n",
			ManifestTOML:         skills,
		}, ""},
		{"a file at the path of skills/", map[string]string{
			ManifestGemini:     `{"name": "p", "version": "1.0.0", "contextFileName": "skills"}`,
			"skills":           "ctx",
			"other/s/SKILL.md": "---\nname: s\ndescription: d\n---\n",
			ManifestTOML:       skills,
		}, `context file "skills": bundlectl exec's Gemini CLI view writes the directory "skills" for skill "s", so it cannot hold a file of that name too`},
		{"a guard for Claude Code only", map[string]string{
			ManifestGemini: `{"name": "p", "version": "1.0.0", "contextFileName": "HOOKS"}`,
			"HOOKS":        "ctx",
			ManifestClaude: `{"name": "p", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}`,
		}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := writeTree(t, "p", c.files)
			var got []Finding
			for _, f := range b.Report.Findings {
				if f.Rule == "context.collision" {
					got = append(got, f)
				}
			}
			if c.says == "" {
				if len(got) > 0 {
					t.Errorf("context.collision reported:%s", dumpFindings(b))
				}
				return
			}
			if len(got) != 1 || got[0].Severity != Error || !strings.Contains(got[0].Message, c.says) {
				t.Errorf("want one context.collision error saying %q:%s", c.says, dumpFindings(b))
			}
		})
	}
}

// TestGeminiContextReadsAsMoreFolds: a context file whose top directory
// folds onto one Gemini CLI reads as more than context (skills/, hooks/,
// …) under Unicode case folding, not only lowercasing — ſkills/ (long s),
// hooKs/ (Kelvin sign) — is read there as a skill or hooks on a
// case-insensitive file system (macOS, Windows), so exec's view must leave
// it out (with a note). strings.ToLower kept ſkills/x/SKILL.md, and the
// view wrote a skill the review listed as context.
func TestGeminiContextReadsAsMoreFolds(t *testing.T) {
	for rel, want := range map[string]bool{
		"\u017fkills/x/SKILL.md":      true,
		"SKILL\u017f/x/SKILL.md":      true,
		"hoo\u212as/hooks.json":       true,
		"Policie\u017f/p.toml":        true,
		"gemini-exten\u017fion.json":  true,
		"Commands/x.toml":             true,
		".env":                        true,
		"HOOKS":                       false,
		"skills":                      false,
		"notes/skills/x.md":           false,
		"\u017fkill.md":               false,
		"gemini-extension.json/x.md":  false,
		"context/gemini-extension.md": false,
	} {
		if got := GeminiContextReadsAsMore(rel); got != want {
			t.Errorf("GeminiContextReadsAsMore(%q) = %v, want %v", rel, got, want)
		}
	}
}
