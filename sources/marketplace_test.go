package sources

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// market is a marketplace directory made at test time.
type market struct {
	t   *testing.T
	dir string
}

func newMarket(t *testing.T, format string, doc any) *market {
	t.Helper()
	m := &market{t: t, dir: filepath.Join(t.TempDir(), "market")}
	m.catalogue(format, doc)
	return m
}

func (m *market) catalogue(format string, doc any) {
	if o, ok := doc.(obj); ok && format == FormatClaude && o["owner"] == nil {
		o["owner"] = obj{"name": "test"} // Claude Code refuses a catalogue without one
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		m.t.Fatal(err)
	}
	writeFile(m.t, filepath.Join(m.dir, catalogueFile(format)), string(data), 0o644)
}

func (m *market) write(rel, content string) {
	writeFile(m.t, filepath.Join(m.dir, rel), content, 0o644)
}

type obj = map[string]any

func TestMarketplaceRelative(t *testing.T) {
	m := newMarket(t, FormatClaude, obj{
		"name":  "acme",
		"owner": obj{"name": "Acme"},
		"plugins": []any{
			obj{"name": "fmt", "source": "./plugins/fmt", "description": "formats", "category": "dev"},
			obj{"name": "lint", "source": "lint", "version": "1.0.0"},
		},
		"metadata": obj{"pluginRoot": "./more"},
	})
	m.write("plugins/fmt/.claude-plugin/plugin.json", `{"name":"fmt"}`)
	m.write("plugins/fmt/commands/go.md", "go")
	m.write("more/lint/commands/lint.md", "lint")

	res := mustFetch(t, Request{Source: "fmt@" + m.dir}, Options{})
	checkListing(t, res.Dir, `
d .claude-plugin
d commands
f .claude-plugin/plugin.json {"name":"fmt"}
f commands/go.md go
`)
	want := Resolved{Kind: KindMarketplace, Plugin: "fmt", Path: m.dir, Subdir: "plugins/fmt",
		Marketplace: &MarketplaceSource{Name: "acme", Format: FormatClaude, Path: m.dir}}
	if !sameSource(res.Source, want) {
		t.Errorf("source %s, want %s", res.Source, want)
	}
	if res.Name != "fmt" || len(res.Generated) != 0 {
		t.Errorf("name %q generated %v", res.Name, res.Generated)
	}

	// No plugin.json: Claude Code reads the entry as the manifest, and so
	// does the review: it is written into the tree (listing keys dropped).
	res = mustFetch(t, Request{Source: "lint@" + m.dir}, Options{})
	checkListing(t, res.Dir, `
d .claude-plugin
d commands
f .claude-plugin/plugin.json {\n  "name": "lint",\n  "version": "1.0.0"\n}\n
f commands/lint.md lint
`)
	if len(res.Generated) != 1 || res.Generated[0] != GeneratedManifest {
		t.Errorf("generated %v", res.Generated)
	}
	mustFail(t, Request{Source: "nope@" + m.dir}, Options{}, ErrNotFound, `no plugin named "nope" (it lists "fmt", "lint")`)
}

func sameSource(a, b Resolved) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestMarketplaceStrictFalse: an entry that defines the plugin's
// components itself has them written into the fetched tree, so they are
// reviewed and hashed like any manifest.
func TestMarketplaceStrictFalse(t *testing.T) {
	hooks := obj{"PreToolUse": []any{obj{"matcher": "Bash", "hooks": []any{obj{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/guard.sh"}}}}}
	m := newMarket(t, FormatClaude, obj{
		"name": "acme", "owner": obj{"name": "Acme"},
		"plugins": []any{obj{
			"name": "guard", "source": "./raw", "strict": false, "tags": []string{"x"},
			"description": "guards", "skills": []string{"./skills/a"}, "hooks": hooks,
		}},
	})
	m.write("raw/guard.sh", "#!/bin/sh")
	m.write("raw/skills/a/SKILL.md", "a")
	res := mustFetch(t, Request{Source: "guard@" + m.dir}, Options{})
	data, err := os.ReadFile(filepath.Join(res.Dir, GeneratedManifest))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"source", "strict", "tags"} {
		if _, ok := got[k]; ok {
			t.Errorf("the written manifest keeps the listing key %q", k)
		}
	}
	h, _ := json.Marshal(got["hooks"])
	if !strings.Contains(string(h), "guard.sh") || got["name"] != "guard" || got["description"] != "guards" {
		t.Errorf("written manifest: %s", data)
	}

	// The plugin ships its own manifest while the entry defines components:
	// Claude Code's "conflicting manifests", refused naming both.
	m.write("raw/.claude-plugin/plugin.json", `{"name":"guard"}`)
	mustFail(t, Request{Source: "guard@" + m.dir}, Options{}, ErrRefused,
		".claude-plugin/plugin.json", `"guard"`, ".claude-plugin/marketplace.json: plugins[0]", "strict: false", "hooks", "skills")

	// strict: true with components beside a shipped manifest: Claude Code
	// merges, bundlectl refuses rather than review less.
	m.catalogue(FormatClaude, obj{"name": "acme", "owner": obj{"name": "Acme"}, "plugins": []any{
		obj{"name": "guard", "source": "./raw", "hooks": hooks},
	}})
	mustFail(t, Request{Source: "guard@" + m.dir}, Options{}, ErrRefused, "adds components (hooks)")

	// strict: false without components beside a shipped manifest: the
	// manifest is read as it is.
	m.catalogue(FormatClaude, obj{"name": "acme", "owner": obj{"name": "Acme"}, "plugins": []any{
		obj{"name": "guard", "source": "./raw", "strict": false, "description": "d"},
	}})
	res = mustFetch(t, Request{Source: "guard@" + m.dir}, Options{})
	if data, _ := os.ReadFile(filepath.Join(res.Dir, GeneratedManifest)); string(data) != `{"name":"guard"}` || len(res.Generated) != 0 {
		t.Errorf("shipped manifest replaced: %s", data)
	}
}

func TestMarketplaceHostileEntries(t *testing.T) {
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "plugin.json"), "{}", 0o644)
	cases := []struct {
		name   string
		source any
		setup  func(m *market)
		want   error
		has    []string
	}{
		{"dotdot", "./../outside", nil, ErrRefused, []string{"plugins[0].source", "leaves the marketplace"}},
		{"dotdot-inner", "./plugins/../../x", nil, ErrRefused, []string{"leaves the marketplace"}},
		{"absolute", outside, nil, ErrRefused, []string{"absolute path"}},
		{"bare", "plugins/x", nil, ErrRefused, []string{"must start with"}},
		{"symlink", "./linked", func(m *market) { os.Symlink(outside, filepath.Join(m.dir, "linked")) }, ErrRefused, []string{"linked", "symbolic link"}},
		{"symlink-parent", "./linked/x", func(m *market) { os.Symlink(outside, filepath.Join(m.dir, "linked")) }, ErrRefused, []string{"linked", "symbolic link"}},
		{"npm", obj{"source": "npm", "package": "@acme/x"}, nil, ErrRefused, []string{"package managers"}},
		{"unknown", obj{"source": "svn", "url": "x"}, nil, ErrRefused, []string{`"svn"`}},
		{"ext", obj{"source": "url", "url": "ext::sh%20-c%20x"}, nil, ErrRefused, []string{"transport"}},
		{"creds", obj{"source": "url", "url": "https://tok:secret@example.com/x.git"}, nil, ErrRefused, []string{"credentials"}},
		{"badsha", obj{"source": "url", "url": "https://example.com/x.git", "sha": "abc"}, nil, ErrRefused, []string{"sha"}},
		{"badref", obj{"source": "github", "repo": "a/b", "ref": "--upload-pack=x"}, nil, ErrRefused, []string{"ref"}},
		{"subdir-dotdot", obj{"source": "git-subdir", "url": "https://example.com/x.git", "path": "../x"}, nil, ErrRefused, []string{"path"}},
		{"missing", "./nope", nil, ErrNotFound, []string{"nope"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := newMarket(t, FormatClaude, obj{"name": "acme", "owner": obj{"name": "a"}, "plugins": []any{obj{"name": "p", "source": c.source}}})
			m.write("plugins/x/plugin.json", "{}")
			if c.setup != nil {
				c.setup(m)
			}
			err := mustFail(t, Request{Source: "p@" + m.dir}, Options{}, c.want, c.has...)
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error echoes a secret: %v", err)
			}
		})
	}
}

func TestMarketplaceCatalogueRefusals(t *testing.T) {
	m := newMarket(t, FormatClaude, obj{"name": "acme", "plugins": []any{
		obj{"name": "p", "source": "./a"}, obj{"name": "p", "source": "./b"},
	}})
	mustFail(t, Request{Source: "p@" + m.dir}, Options{}, ErrRefused, "plugins[1]", "second entry", "plugins[0]")

	m = newMarket(t, FormatClaude, obj{"name": "bad\u202ename", "plugins": []any{}})
	mustFail(t, Request{Source: "p@" + m.dir}, Options{}, ErrRefused, "name", "bidirectional")

	m = newMarket(t, FormatClaude, obj{"name": "acme"})
	mustFail(t, Request{Source: "p@" + m.dir}, Options{}, ErrRefused, "plugins: missing")

	m.write(ClaudeCatalogue, "{not json")
	mustFail(t, Request{Source: "p@" + m.dir}, Options{}, ErrRefused, "JSON syntax error")

	// The catalogue itself is reached through real directories and is a
	// regular file.
	other := t.TempDir()
	writeFile(t, filepath.Join(other, "marketplace.json"), `{"name":"x","plugins":[]}`, 0o644)
	dir := filepath.Join(t.TempDir(), "m")
	os.MkdirAll(dir, 0o755)
	os.Symlink(other, filepath.Join(dir, ".claude-plugin"))
	mustFail(t, Request{Source: "p@" + dir}, Options{}, ErrRefused, ".claude-plugin", "symbolic link")

	empty := t.TempDir()
	mustFail(t, Request{Source: "p@" + empty}, Options{}, ErrNotFound, "has no .claude-plugin/marketplace.json or .agents/plugins/marketplace.json")
}

func TestMarketplaceCodex(t *testing.T) {
	m := newMarket(t, FormatCodex, obj{
		"name": "openai-ish", "interface": obj{"displayName": "X"},
		"plugins": []any{
			obj{"name": "notes", "source": obj{"source": "local", "path": "./plugins/notes"}, "policy": obj{"installation": "AVAILABLE"}, "category": "Productivity"},
			obj{"name": "hidden", "source": obj{"source": "local", "path": "./plugins/notes"}, "policy": obj{"installation": "NOT_AVAILABLE"}},
			obj{"name": "nodot", "source": obj{"source": "local", "path": "plugins/notes"}},
		},
	})
	m.write("plugins/notes/.codex-plugin/plugin.json", `{"name":"notes"}`)
	res := mustFetch(t, Request{Source: "notes@" + m.dir}, Options{})
	checkListing(t, res.Dir, `
d .codex-plugin
f .codex-plugin/plugin.json {"name":"notes"}
`)
	if res.Source.Marketplace.Format != FormatCodex || res.Source.Marketplace.Name != "openai-ish" {
		t.Errorf("source %s", res.Source)
	}
	mustFail(t, Request{Source: "hidden@" + m.dir}, Options{}, ErrRefused, "NOT_AVAILABLE")
	mustFail(t, Request{Source: "nodot@" + m.dir}, Options{}, ErrRefused, "must start with")

	// Both catalogues: Claude's is read first, unless the format is asked.
	m.catalogue(FormatClaude, obj{"name": "claude-side", "plugins": []any{obj{"name": "notes", "source": "./plugins/notes"}}})
	res = mustFetch(t, Request{Source: "notes@" + m.dir}, Options{})
	if res.Source.Marketplace.Format != FormatClaude || len(res.Generated) != 1 {
		t.Errorf("both: %s generated %v", res.Source, res.Generated)
	}
	res = mustFetch(t, Request{Source: "notes@" + m.dir, Format: FormatCodex}, Options{})
	if res.Source.Marketplace.Format != FormatCodex || len(res.Generated) != 0 {
		t.Errorf("codex asked: %s", res.Source)
	}
	mustFail(t, Request{Source: "hidden@" + m.dir, Format: FormatClaude}, Options{}, ErrNotFound, "claude-side")
	// A plugin only the second catalogue lists is found there.
	mustFail(t, Request{Source: "hidden@" + m.dir}, Options{}, ErrRefused, "NOT_AVAILABLE")
}

// TestMarketplaceGit: a marketplace in a git repository, with a relative
// entry, a git-subdir entry pinned by sha in another repository, and a
// url entry following a ref; then an update and a locked fetch.
func TestMarketplaceGit(t *testing.T) {
	plug := newTestRepo(t)
	plug.write("tools/fmt/.claude-plugin/plugin.json", `{"name":"fmt"}`, 0o644)
	pinned := plug.commit("fmt v1")
	plug.write("tools/fmt/new.md", "new", 0o644)
	plug.commit("fmt v2")

	mk := newTestRepo(t)
	mk.write(ClaudeCatalogue, mustJSON(t, obj{"name": "acme", "owner": obj{"name": "a"}, "plugins": []any{
		obj{"name": "local", "source": "./plugins/local"},
		obj{"name": "fmt", "source": obj{"source": "git-subdir", "url": plug.url(), "path": "tools/fmt", "ref": "main", "sha": pinned}},
		obj{"name": "head", "source": obj{"source": "url", "url": plug.url()}},
	}}), 0o644)
	mk.write("plugins/local/.claude-plugin/plugin.json", `{"name":"local"}`, 0o644)
	mcommit := mk.commit("market")

	res := mustFetch(t, Request{Source: "local@" + mk.url()}, Options{})
	want := Resolved{Kind: KindMarketplace, Plugin: "local", URL: mk.url(), Commit: mcommit, Subdir: "plugins/local",
		Marketplace: &MarketplaceSource{Name: "acme", Format: FormatClaude, URL: mk.url(), Commit: mcommit}}
	if !sameSource(res.Source, want) {
		t.Errorf("relative: %s\nwant %s", res.Source, want)
	}

	res = mustFetch(t, Request{Source: "fmt@" + mk.url()}, Options{})
	checkListing(t, res.Dir, `
d .claude-plugin
f .claude-plugin/plugin.json {"name":"fmt"}
`)
	if res.Source.Commit != pinned || res.Source.Ref != "main" || res.Source.URL != plug.url() || res.Source.Subdir != "tools/fmt" {
		t.Errorf("git-subdir: %s", res.Source)
	}

	head := mustFetch(t, Request{Source: "head@" + mk.url()}, Options{})
	if head.Source.Commit == pinned {
		t.Errorf("url entry without a pin did not follow HEAD")
	}

	// Locked: the recorded plugin commit, even though the entry follows HEAD.
	rec := head.Source
	plug.write("tools/fmt/newer.md", "newer", 0o644)
	plug.commit("fmt v3")
	parent := filepath.Join(t.TempDir(), "tmp")
	locked, err := FetchLocked(context.Background(), parent, rec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !sameSource(locked.Source, rec) {
		t.Errorf("locked %s, want %s", locked.Source, rec)
	}
	if _, err := os.Stat(filepath.Join(locked.Dir, "tools/fmt/newer.md")); err == nil {
		t.Errorf("the locked fetch holds a newer file")
	}
	locked.Discard()
	upd := mustFetch(t, rec.Request(), Options{})
	if upd.Source.Commit == rec.Commit {
		t.Errorf("an update did not follow the entry")
	}

	// A forged lock whose plugin commit differs from the entry's sha pin.
	forged := res.Source
	forged.Commit = head.Source.Commit
	if _, err := FetchLocked(context.Background(), parent, forged, Options{}); !errors.Is(err, ErrPinMismatch) {
		t.Errorf("forged lock: %v", err)
	}
	if l := leftovers(t, parent); len(l) != 0 {
		t.Errorf("left %v", l)
	}
}

// TestMarketplaceRemoteMayNotPointHere: entries of a marketplace fetched
// from elsewhere cannot name a repository on this machine.
func TestMarketplaceRemoteMayNotPointHere(t *testing.T) {
	c := &catalogue{format: FormatClaude}
	raw := json.RawMessage(`{"source":"url","url":"file:///home/user/secrets.git"}`)
	if _, err := parseEntrySource(raw, c, false); err == nil || !strings.Contains(err.Error(), "this machine") {
		t.Errorf("remote marketplace → file://: %v", err)
	}
	if _, err := parseEntrySource(raw, c, true); err != nil {
		t.Errorf("local marketplace → file://: %v", err)
	}
	es, err := parseEntrySource(json.RawMessage(`{"source":"github","repo":"acme/fmt","sha":"`+strings.Repeat("A", 40)+`"}`), c, false)
	if err != nil || es.url != "https://github.com/acme/fmt.git" || es.sha != strings.Repeat("a", 40) {
		t.Errorf("github: %+v %v", es, err)
	}
	es, err = parseEntrySource(json.RawMessage(`{"source":"git-subdir","url":"acme/mono","path":"./p/x/"}`), c, false)
	if err != nil || es.url != "https://github.com/acme/mono.git" || es.path != "p/x" {
		t.Errorf("git-subdir shorthand: %+v %v", es, err)
	}
	if _, err := parseEntrySource(json.RawMessage(`{"source":"github","repo":"../x"}`), c, false); err == nil {
		t.Errorf("github repo ../x accepted")
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMarketplaceKeysByExactName: Claude Code (JSON.parse) and Codex
// (serde) read a catalogue's keys by their exact names, so a key in
// another letter case is ignored, not read as the field: "URL" written
// after "url" does not change the repository fetched, "PluginRoot" is no
// plugin root, "Plugins" is no list, and a Codex "Installation" policy
// hides nothing. encoding/json matched all of them.
// TestMarketplaceByteOrderMark: a catalogue that starts with a UTF-8
// byte-order mark is read as Claude Code 2.1.332 reads it (it installed
// such a marketplace's plugin), and refused as Codex 0.171 refuses it
// ("expected value at line 1 column 1"), saying why; before, both were
// refused as "JSON syntax error at byte 1".
func TestMarketplaceByteOrderMark(t *testing.T) {
	m := newMarket(t, FormatClaude, obj{"name": "acme", "plugins": []any{}})
	m.write(ClaudeCatalogue, "\ufeff"+`{"name":"acme","owner":{"name":"a"},"plugins":[{"name":"p","source":"./p"}]}`)
	m.write("p/.claude-plugin/plugin.json", `{"name":"p"}`)
	mustFetch(t, Request{Source: "p@" + m.dir}, Options{})

	c := newMarket(t, FormatCodex, obj{"name": "acme", "plugins": []any{}})
	c.write(CodexCatalogue, "\ufeff"+`{"name":"acme","plugins":[{"name":"p","source":{"source":"local","path":"./p"}}]}`)
	c.write("p/.codex-plugin/plugin.json", `{"name":"p"}`)
	mustFail(t, Request{Source: "p@" + c.dir}, Options{}, ErrRefused, CodexCatalogue, "byte-order mark, which Codex refuses")
}

func TestMarketplaceKeysByExactName(t *testing.T) {
	good, evil := newTestRepo(t), newTestRepo(t)
	good.write(".claude-plugin/plugin.json", `{"name":"good"}`, 0o644)
	good.commit("good")
	evil.write(".claude-plugin/plugin.json", `{"name":"evil"}`, 0o644)
	evil.commit("evil")

	m := newMarket(t, FormatClaude, obj{"name": "acme", "plugins": []any{}})
	m.write(ClaudeCatalogue, `{"name":"acme","owner":{"name":"a"},"metadata":{"PluginRoot":"./more"},
  "plugins":[
    {"name":"p","source":{"source":"url","url":"`+good.url()+`","URL":"`+evil.url()+`"}},
    {"name":"bare","source":"lint"}],
  "Plugins":[{"name":"hidden","source":"./more/lint"}]}`)
	m.write("more/lint/.claude-plugin/plugin.json", `{"name":"lint"}`)

	res := mustFetch(t, Request{Source: "p@" + m.dir}, Options{})
	if res.Source.URL != good.url() {
		t.Errorf("fetched %s; want the entry's \"url\" %s, as Claude Code reads it", res.Source.URL, good.url())
	}
	mustFail(t, Request{Source: "bare@" + m.dir}, Options{}, ErrRefused, "must start with")
	mustFail(t, Request{Source: "hidden@" + m.dir}, Options{}, ErrNotFound, `no plugin named "hidden"`)

	c := newMarket(t, FormatCodex, obj{"name": "acme", "plugins": []any{}})
	c.write(CodexCatalogue, `{"name":"acme","plugins":[
    {"name":"notes","source":{"source":"local","path":"./notes"},"policy":{"Installation":"NOT_AVAILABLE"}}]}`)
	c.write("notes/.codex-plugin/plugin.json", `{"name":"notes"}`)
	mustFetch(t, Request{Source: "notes@" + c.dir}, Options{})
}

// TestMarketplaceCodexRefusesWhatCodexRefuses: Codex 0.171 reads its
// catalogue with serde, which refuses the whole file for a member written
// twice (in the top level, an entry, its policy; an escaped spelling is
// the same name), an entry that is no object, and an installation value
// it does not know; and skips an entry whose source repeats a member
// (internal/agenttest TestCodexCatalogueStrictness). encoding/json kept
// the last and installed from it.
func TestMarketplaceCodexRefusesWhatCodexRefuses(t *testing.T) {
	const entry = `{"name":"notes","source":{"source":"local","path":"./a"}}`
	for name, tc := range map[string]struct{ doc, field string }{
		"top":               {`{"name":"acme","name":"acme","plugins":[` + entry + `]}`, `: name`},
		"plugins twice":     {`{"name":"acme","plugins":[],"plugins":[` + entry + `]}`, `: plugins`},
		"entry":             {`{"name":"acme","plugins":[{"name":"notes","source":{"source":"local","path":"./b"},"source":{"source":"local","path":"./a"}}]}`, `plugins[0].source`},
		"escaped":           {`{"name":"acme","plugins":[{"name":"notes","source":{"source":"local","path":"./b"},"\u0073ource":{"source":"local","path":"./a"}}]}`, `plugins[0].source`},
		"other entry":       {`{"name":"acme","plugins":[` + entry + `,{"name":"x","category":"a","category":"b","source":"./a"}]}`, `plugins[1].category`},
		"policy":            {`{"name":"acme","plugins":[{"name":"notes","source":{"source":"local","path":"./a"},"policy":{"installation":"NOT_AVAILABLE","installation":"AVAILABLE"}}]}`, `plugins[0].policy.installation`},
		"installation":      {`{"name":"acme","plugins":[{"name":"notes","source":{"source":"local","path":"./a"},"policy":{"installation":"not_available"}}]}`, `plugins[0].policy.installation`},
		"installation num":  {`{"name":"acme","plugins":[{"name":"notes","source":{"source":"local","path":"./a"},"policy":{"installation":3}}]}`, `plugins[0].policy.installation`},
		"not an object":     {`{"name":"acme","plugins":[3,` + entry + `]}`, `plugins[0]`},
		"null entry":        {`{"name":"acme","plugins":[null,` + entry + `]}`, `plugins[0]`},
		"null policy":       {`{"name":"acme","plugins":[{"name":"notes","source":{"source":"local","path":"./a"},"policy":null}]}`, `plugins[0].policy`},
		"null installation": {`{"name":"acme","plugins":[{"name":"notes","source":{"source":"local","path":"./a"},"policy":{"installation":null}}]}`, `plugins[0].policy.installation`},
		"source twice":      {`{"name":"acme","plugins":[{"name":"notes","source":{"source":"local","path":"./b","path":"./a"}}]}`, `plugins[0].source.path`},
	} {
		t.Run(name, func(t *testing.T) {
			c := newMarket(t, FormatCodex, obj{"name": "acme", "plugins": []any{}})
			c.write(CodexCatalogue, tc.doc)
			c.write("a/.codex-plugin/plugin.json", `{"name":"notes"}`)
			c.write("b/.codex-plugin/plugin.json", `{"name":"notes"}`)
			err := mustFail(t, Request{Source: "notes@" + c.dir}, Options{}, ErrRefused, CodexCatalogue, tc.field)
			// The hint prints the catalogue's lines naming the field.
			var e *Error
			if !errors.As(err, &e) || !strings.HasPrefix(e.Hint(), "grep -n -F -e ") {
				t.Fatalf("hint %q, want the grep of the field's lines", e.Hint())
			}
			if out, err := exec.Command("sh", "-c", e.Hint()).CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "1:{") {
				t.Errorf("the hint %q (%v) printed %q, not the catalogue's line", e.Hint(), err, out)
			}
		})
	}
	// Codex ignores a repeated name inside a value it does not read, and
	// an entry Codex reads is installed beside one that repeats its
	// source's member.
	c := newMarket(t, FormatCodex, obj{"name": "acme", "plugins": []any{}})
	c.write(CodexCatalogue, `{"name":"acme","interface":{"a":1,"a":2},"plugins":[`+entry+`,{"name":"x","source":{"source":"local","path":"./b","path":"./b"}}]}`)
	c.write("a/.codex-plugin/plugin.json", `{"name":"notes"}`)
	mustFetch(t, Request{Source: "notes@" + c.dir}, Options{})
	// Claude Code keeps the last, and so does bundlectl.
	m := newMarket(t, FormatClaude, obj{"name": "acme", "plugins": []any{}})
	m.write(ClaudeCatalogue, `{"name":"acme","owner":{"name":"a"},"plugins":[3,{"name":"notes","source":"./b","\u0073ource":"./a"}]}`)
	m.write("a/.claude-plugin/plugin.json", `{"name":"notes"}`)
	m.write("b/.claude-plugin/plugin.json", `{"name":"wrong"}`)
	res := mustFetch(t, Request{Source: "notes@" + m.dir}, Options{})
	if res.Source.Subdir != "a" {
		t.Errorf("fetched %s, want ./a, the last \"source\", as Claude Code 2.1.332 reads it", res.Source)
	}
}

// TestMarketplaceClaudeOwner: Claude Code 2.1.332 refuses the whole
// marketplace for an owner it does not read as {"name": non-empty
// string, "email"?: string} (agenttest TestClaudeCatalogueOwner), and so
// does bundlectl, naming the field, with a hint that shows it; the last
// of a repeated name counts, as in Claude Code.
func TestMarketplaceClaudeOwner(t *testing.T) {
	const plugins = `"plugins":[{"name":"p","source":"./p"}]`
	for name, tc := range map[string]struct{ owner, field, hint string }{
		"none":       {``, "owner: missing", "head -c 2000 "},
		"Owner":      {`"Owner":{"name":"a"},`, "owner: missing", "head -c 2000 "},
		"string":     {`"owner":"a",`, "owner: is not an object", "grep -n -F -e "},
		"null":       {`"owner":null,`, "owner: is not an object", "grep -n -F -e "},
		"no name":    {`"owner":{},`, "owner.name: missing", "head -c 2000 "},
		"name num":   {`"owner":{"name":3},`, "owner.name: is not a string", "grep -n -F -e "},
		"name empty": {`"owner":{"name":"x","name":""},`, "owner.name: is empty", "grep -n -F -e "},
		"email num":  {`"owner":{"name":"a","email":3},`, "owner.email: is not a string", "grep -n -F -e "},
	} {
		t.Run(name, func(t *testing.T) {
			m := newMarket(t, FormatClaude, obj{"name": "acme", "plugins": []any{}})
			m.write(ClaudeCatalogue, `{"name":"acme",`+tc.owner+plugins+`}`)
			m.write("p/.claude-plugin/plugin.json", `{"name":"p"}`)
			err := mustFail(t, Request{Source: "p@" + m.dir}, Options{}, ErrCatalogueOwner, ClaudeCatalogue+": "+tc.field, "Claude Code refuses the whole marketplace")
			if !errors.Is(err, ErrRefused) {
				t.Errorf("%v does not wrap ErrRefused", err)
			}
			var e *Error
			if !errors.As(err, &e) || !strings.HasPrefix(e.Hint(), tc.hint) {
				t.Fatalf("hint %q, want %s…", e.Hint(), tc.hint)
			}
			if out, err := exec.Command("sh", "-c", e.Hint()).CombinedOutput(); err != nil || !strings.Contains(string(out), `{"name":"acme"`) {
				t.Errorf("the hint %q (%v) printed %q, not the catalogue", e.Hint(), err, out)
			}
		})
	}
	m := newMarket(t, FormatClaude, obj{"name": "acme", "plugins": []any{}})
	m.write(ClaudeCatalogue, `{"name":"acme","owner":{"name":"","name":"a","email":"a@example.com"},`+plugins+`}`)
	m.write("p/.claude-plugin/plugin.json", `{"name":"p"}`)
	mustFetch(t, Request{Source: "p@" + m.dir}, Options{})
}
