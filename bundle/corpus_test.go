package bundle_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/internal/corpus"
)

// loadGuard is how long one Load may take: a FIFO, a device or a huge
// directory in a case must never make the walk block.
const loadGuard = 5 * time.Second

// loadWithin loads dir and fails the test if Load panics or does not
// return within loadGuard.
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
		t.Fatalf("Load did not return within %v", loadGuard)
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

// TestCorpusCoversEveryRule fails when a rule that the committed and
// runtime corpus is meant to cover has no case, so that removing a case
// cannot silently drop a rule from the corpus.
func TestCorpusCoversEveryRule(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range append(committedCases(t), corpus.Runtime(t)...) {
		for _, w := range c.Wants {
			covered[w.Rule] = true
		}
	}
	for _, rule := range corpusRules {
		if !covered[rule] {
			t.Errorf("no corpus case for rule %s", rule)
		}
	}
}

// corpusRules are the rule ids the corpus must cover: every rule the
// readers emit except those that need a failing system call
// (tree.unreadable, manifest.read of an unreadable file) or a directory
// that is not a bundle (tree.type), which the walker's own tests cover.
var corpusRules = strings.Fields(`
	tree.symlink tree.hardlink tree.special tree.mode
	name.control name.bidi name.utf8 name.windows name.collision
	bounds.entries bounds.total bounds.file bounds.depth bounds.path
	manifest.schema manifest.unsupported-version manifest.not-object manifest.json
	json.duplicate-key manifest.missing manifest.name manifest.name-mismatch
	manifest.field-type manifest.author manifest.unknown-field manifest.extensions-type
	manifest.extension-type manifest.read manifest.type
	text.bidi text.control
	skill.front-matter skill.name skill.name-mismatch skill.description
	skill.compatibility skill.unknown-field skill.field-type skill.location
	skill.not-a-file skill.read document.name document.front-matter
	mcp.invalid-json mcp.version-mismatch mcp.schema mcp.top-level mcp.not-a-file
	mcp.disabled mcp.duplicate-server mcp.server-type mcp.server-field mcp.cwd
	mcp.env-reserved mcp.url mcp.header mcp.timeout mcp.option-unknown-server
	mcp.option-transport
	command.token command.missing command.not-executable
	env.loader env.reserved env.name env.conflict
	extension.unknown-field extension.type
	tool.name tool.params tool.timeout tool.duplicate
	hook.event hook.matcher hook.type hook.timeout hook.shape
	capabilities.network-hosts capabilities.host when.os when.binary
	secret.argv secret.token secret.env secret.header secret.url
	toml.unknown toml.syntax toml.type toml.migration toml.schema_version
	toml.skills_path toml.hook toml.mcp toml.timeout toml.when
	inactive.surface inactive.lsp inactive.native
`)
