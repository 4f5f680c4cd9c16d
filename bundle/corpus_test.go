package bundle_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/internal/corpus"
)

// loadGuard bounds a Load that does not return at all: a FIFO, a device
// or a huge directory in a case must never make the walk block. It bounds
// a hang, not a speed: a correct Load on a busy machine never comes near.
const loadGuard = 5 * time.Minute

// loadWithin loads dir and fails the test if Load panics or hangs.
func loadWithin(t *testing.T, dir string, lim bundle.Limits) *bundle.Bundle {
	t.Helper()
	type result struct {
		b     *bundle.Bundle
		panic any
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{panic: p}
			}
		}()
		done <- result{b: bundle.Load(dir, bundle.ScopeDir, lim)}
	}()
	select {
	case r := <-done:
		if r.panic != nil {
			t.Fatalf("Load panicked: %v", r.panic)
		}
		return r.b
	case <-time.After(loadGuard):
		t.Fatalf("Load hung: no return after %v", loadGuard)
		return nil
	}
}

func committedCases(t *testing.T) []corpus.Case {
	t.Helper()
	cases, err := corpus.Committed(filepath.Join("..", "testdata", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

func checkCase(t *testing.T, c corpus.Case) {
	t.Helper()
	b := loadWithin(t, c.Dir, c.Limits)
	if probs := corpus.Check(b, c); len(probs) > 0 {
		var all []string
		for _, f := range b.Report.Findings {
			all = append(all, fmt.Sprintf("  %s %s %s: %s", f.Severity, f.Rule, f.Path, f.Message))
		}
		t.Errorf("%s:\n%s\nall findings:\n%s", c.Name, strings.Join(probs, "\n"), strings.Join(all, "\n"))
	}
	if b.Name != c.Name {
		t.Errorf("bundle name %q, want the case name %q", b.Name, c.Name)
	}
	// Every finding names a path and a rule.
	for _, f := range b.Report.Findings {
		if f.Path == "" || f.Rule == "" || f.Message == "" {
			t.Errorf("finding without path, rule or message: %+v", f)
		}
	}
}

// TestCorpusCommitted loads every committed case of testdata/corpus and
// requires exactly the findings its .want file lists (docs/corpus.md).
func TestCorpusCommitted(t *testing.T) {
	cases := committedCases(t)
	if len(cases) < 50 {
		t.Fatalf("the corpus holds %d cases; issue 2 asks for at least 50", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) { checkCase(t, c) })
	}
}

// TestCorpusRuntime builds the cases git cannot hold (links, special
// files, modes, hostile names, bounds) and checks them the same way.
func TestCorpusRuntime(t *testing.T) {
	for _, c := range corpus.Runtime(t) {
		t.Run(c.Name, func(t *testing.T) {
			corpus.Build(t, c)
			checkCase(t, c)
		})
	}
}

// TestCorpusCoversEveryRule fails when a rule id that the readers emit
// has no corpus case, so that a new rule, or a removed case, cannot leave
// a rule untested. Rule ids are read from the package's source: every
// string literal shaped like one.
func TestCorpusCoversEveryRule(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range append(committedCases(t), corpus.Runtime(t)...) {
		for _, w := range c.Wants {
			covered[w.Rule] = true
		}
	}
	srcs, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range srcs {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ruleLiteral.FindAllStringSubmatch(string(src), -1) {
			rule := m[1]
			if _, skip := notCorpusRules[rule]; skip || covered[rule] {
				continue
			}
			covered[rule] = true // report once
			t.Errorf("%s: rule %s has no corpus case (docs/corpus.md says how to add one)", f, rule)
		}
	}
	if len(covered) < 100 {
		t.Fatalf("only %d rules covered or found; the rule pattern is broken", len(covered))
	}
}

var ruleLiteral = regexp.MustCompile(`"((?:tree|name|bounds|manifest|json|text|secret|env|mcp|command|skill|document|tool|hook|extension|capabilities|when|inactive|toml|lsp|monitor|app|policy|setting|context|argv|file|skill|agent|output|option|user|config|host|url|header)\.[a-z_-]+)"`)

// notCorpusRules are literals that look like rule ids but are not, and
// the rules no corpus case can reach or should.
var notCorpusRules = map[string]string{
	"mcp.json":                        "a file name",
	"capabilities.network_hosts":      "a field path",
	"capabilities.filesystem_roots":   "a field path",
	"capabilities.lifecycle_mutation": "a field path",
	"when.binaries":                   "a field path",
	"name.dot":                        "no filesystem lists an empty, \".\" or \"..\" entry; CheckName's own tests cover it",
	"tree.unreadable":                 "needs a failing system call, which a committed case cannot hold; TestWalkUnreadableDir covers it",
	"bounds.view":                     "needs more than 256 MiB of files under the default limits, which every CLI corpus test would hash; TestWarnViewSize covers it on sparse files, and script exec_view_too_large",
}

// tokenShapes are the credential shapes of docs/validation.md, without word
// boundaries: no finding may contain one, whatever field it came from.
var tokenShapes = regexp.MustCompile(`gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,}|sk-[A-Za-z0-9_-]{16,}|xox[abposr]-[A-Za-z0-9-]{10,}|glpat-[A-Za-z0-9_-]{20,}|npm_[A-Za-z0-9]{36}|hf_[A-Za-z]{34}|AIza[0-9A-Za-z_-]{35}|[sr]k_(?:live|test)_[0-9A-Za-z]{16,}|hooks\.slack\.com/services/T[0-9A-Z]{6,}/B[0-9A-Z]{6,}/[0-9A-Za-z]{16,}|(?:AKIA|ASIA)[0-9A-Z]{16}|PRIVATE KEY-----[A-Za-z0-9+/=]`)

// FuzzCorpusManifest loads fuzzed manifests seeded from every committed
// plugin.json, mcp.json and plugin.toml of the corpus, and requires that
// Load returns, that every finding has a path, a rule and a message, and
// that no finding carries a credential shape.
func FuzzCorpusManifest(f *testing.F) {
	for _, pat := range []string{"*/plugin.json", "*/mcp.json", "*/plugin.toml"} {
		seeds, err := filepath.Glob(filepath.Join("..", "testdata", "corpus", pat))
		if err != nil {
			f.Fatal(err)
		}
		for _, s := range seeds {
			if fi, err := os.Stat(s); err != nil || !fi.Mode().IsRegular() {
				continue // mcp-json-is-directory
			}
			data, err := os.ReadFile(s)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(filepath.Base(s), data)
		}
	}
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, file string, data []byte) {
		if file != "plugin.json" && file != "mcp.json" && file != "plugin.toml" {
			return
		}
		dir := filepath.Join(root, "fuzz-bundle")
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if file == "mcp.json" {
			manifest := `{"$schema": "` + bundle.PluginSchemaV1 + `", "name": "fuzz-bundle"}`
			if err := os.WriteFile(filepath.Join(dir, "plugin.json"), []byte(manifest), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, file), data, 0o644); err != nil {
			t.Fatal(err)
		}
		b := bundle.Load(dir, bundle.ScopeDir, bundle.Limits{})
		for _, fd := range b.Report.Findings {
			if fd.Path == "" || fd.Rule == "" || fd.Message == "" {
				t.Fatalf("finding without path, rule or message: %+v", fd)
			}
			if tokenShapes.MatchString(fd.Path) || tokenShapes.MatchString(fd.Message) {
				t.Fatalf("finding %s carries a credential: %s: %s", fd.Rule, fd.Path, fd.Message)
			}
		}
	})
}
