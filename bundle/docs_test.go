package bundle

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestValidationDocListsEveryRule keeps docs/validation.md in step with the
// rule ids the manifest code emits.
func TestValidationDocListsEveryRule(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "validation.md"))
	if err != nil {
		t.Fatal(err)
	}
	ruleRE := regexp.MustCompile(`"((?:manifest|json|text|secret|env|mcp|command|skill|document|tool|hook|extension|capabilities|when|inactive|lsp|monitor|app|policy|setting|context|argv)\.[a-z-]+)"`)
	seen := map[string]bool{}
	sources, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range sources {
		if strings.HasSuffix(f, "_test.go") || strings.HasPrefix(f, "walk") || f == "tree.go" {
			continue // tree rules are listed in docs/tree-rules.md
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ruleRE.FindAllStringSubmatch(string(src), -1) {
			id := m[1]
			if id == "mcp.json" || strings.HasPrefix(id, "when.binaries") || seen[id] {
				continue
			}
			seen[id] = true
			if !strings.Contains(string(doc), "`"+id+"`") {
				t.Errorf("rule %s is not documented in docs/validation.md", id)
			}
		}
	}
	if len(seen) < 60 {
		t.Fatalf("found only %d rule ids; the pattern is broken", len(seen))
	}
	// And every checklist test named in docs/agent-plugins.md exists.
	ap, err := os.ReadFile(filepath.Join("..", "docs", "agent-plugins.md"))
	if err != nil {
		t.Fatal(err)
	}
	var tests strings.Builder
	for _, f := range []string{"conformance_test.go", "rules_test.go", "fuzz_test.go"} {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tests.Write(src)
	}
	for _, m := range regexp.MustCompile("`(Test[A-Za-z]+)`").FindAllStringSubmatch(string(ap), -1) {
		if !strings.Contains(tests.String(), "func "+m[1]+"(") {
			t.Errorf("docs/agent-plugins.md names %s, which does not exist", m[1])
		}
	}
}

// TestNothingCitesTheWorkingContract keeps the project self-contained: its
// code and docs cite its own docs/ pages, never a document outside the
// repository.
func TestNothingCitesTheWorkingContract(t *testing.T) {
	cite := regexp.MustCompile(`DESIGN\.md|STYLE\.md|HOSTS-NOTES\.md|\.\./shared/`)
	err := filepath.WalkDir("..", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			// corpus cases hold hostile paths on purpose; node_modules
			// and .git are not the project's text
			if name == ".git" || name == "node_modules" || p == filepath.Join("..", "testdata", "corpus") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || p == filepath.Join("..", "bundle", "docs_test.go") {
			return nil
		}
		switch filepath.Ext(name) {
		case ".go", ".md", ".txtar", ".toml", ".json", ".sh", "":
		default:
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if loc := cite.FindIndex(data); loc != nil {
			t.Errorf("%s cites %q: cite the project's own docs/ page instead", p, data[loc[0]:loc[1]])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDocsNameTestsThatExist keeps the docs from naming a test that does
// not exist: every `Test…`, `Fuzz…` or `Benchmark…` name in README.md,
// SECURITY.md, DEVELOPERS.md and docs/*.md is a function in some _test.go
// file of the repository, and every script docs/protections.md names
// (script `name`) is a testdata/script/*.txtar file. A protection whose row
// names a test nobody can run is a claim nobody checks.
func TestDocsNameTestsThatExist(t *testing.T) {
	funcs := map[string]bool{}
	scripts := map[string]bool{}
	funcRE := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Benchmark)[A-Za-z0-9_]+)\(`)
	err := filepath.WalkDir("..", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "node_modules" || p == filepath.Join("..", "testdata", "corpus") {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case strings.HasSuffix(p, "_test.go"):
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, m := range funcRE.FindAllStringSubmatch(string(src), -1) {
				funcs[m[1]] = true
			}
		case strings.HasSuffix(p, ".txtar") && filepath.Base(filepath.Dir(p)) == "script":
			scripts[strings.TrimSuffix(d.Name(), ".txtar")] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(funcs) < 500 || len(scripts) < 100 {
		t.Fatalf("found only %d test functions and %d scripts; the walk is broken", len(funcs), len(scripts))
	}
	docs, err := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, filepath.Join("..", "README.md"), filepath.Join("..", "SECURITY.md"), filepath.Join("..", "DEVELOPERS.md"))
	// `TestX`, `TestX/sub`: the part before the slash is the function.
	nameRE := regexp.MustCompile("`((?:Test|Fuzz|Benchmark)[A-Za-z0-9_]+)[`/]")
	// script `a`; scripts `a`, `b` and `c`
	scriptRE := regexp.MustCompile("scripts? ((?:`[a-z0-9_]+`(?:, |,? and |,? or )?)+)")
	scriptName := regexp.MustCompile("`([a-z0-9_]+)`")
	for _, doc := range docs {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range nameRE.FindAllStringSubmatch(string(text), -1) {
			if !funcs[m[1]] {
				t.Errorf("%s names %s, which no _test.go file defines", doc, m[1])
			}
		}
		if filepath.Base(doc) != "protections.md" {
			continue
		}
		for _, m := range scriptRE.FindAllStringSubmatch(string(text), -1) {
			for _, s := range scriptName.FindAllStringSubmatch(m[1], -1) {
				if !scripts[s[1]] {
					t.Errorf("%s names script %s, which is no testdata/script/%s.txtar", doc, s[1], s[1])
				}
			}
		}
	}
}
