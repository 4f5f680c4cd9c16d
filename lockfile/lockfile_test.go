package lockfile

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/receipts"
	"github.com/bundlectl/bundlectl/sources"
)

// token makes a plausible token from a seed.
func token(seed string) receipts.Token {
	return receipts.Token{Content: sha256.Sum256([]byte(seed + " content")), Capability: sha256.Sum256([]byte(seed + " capabilities"))}
}

// example is the lockfile of docs/lockfile.md and testdata/example.lock.
func example() *File {
	return &File{Bundles: []Bundle{
		{Name: "formatter", Scope: bundle.ScopeWorkspace, Enabled: true, Token: token("formatter"),
			Source: sources.Resolved{Kind: sources.KindGit, URL: "https://github.com/acme/formatter.git", Ref: "v1.2.0",
				Commit: "4f2a9c0e1d7b3a5c6e8f0a1b2c3d4e5f6a7b8c9d"}},
		{Name: "lint", Scope: bundle.ScopeWorkspace, Enabled: false, Token: token("lint"),
			Source: sources.Resolved{Kind: sources.KindMarketplace, Plugin: "lint",
				URL: "https://github.com/acme/plugins.git", Ref: "main", Commit: "0b1c2d3e4f5061728394a5b6c7d8e9f00112233a", Subdir: "plugins/lint",
				Marketplace: &sources.MarketplaceSource{Name: "acme-tools", Format: sources.FormatClaude,
					URL: "https://github.com/acme/plugins.git", Ref: "main", Commit: "0b1c2d3e4f5061728394a5b6c7d8e9f00112233a"}}},
		{Name: "notes", Scope: bundle.ScopeUser, Enabled: true, Token: token("notes"),
			Source: sources.Resolved{Kind: sources.KindArchive, URL: "https://example.com/notes-2.0.tar.gz", SHA256: "5f70bf18a086007016e948b04aed3b82103a36bea41755b6cddfaf10ace3c6ef"}},
		{Name: "stripe", Scope: bundle.ScopeWorkspace, Enabled: true, Token: token("stripe"),
			Source: sources.Resolved{Kind: sources.KindMarketplace, Plugin: "stripe",
				URL: "https://github.com/stripe/ai.git", Ref: "main", Commit: "ec93d4c4b9ffdbc994ac45ce692d4ec1cdb755f0", Subdir: "providers/claude/plugin",
				Marketplace: &sources.MarketplaceSource{Name: "partners", Format: sources.FormatClaude,
					URL: "git@github.com:acme/partner-market.git", Commit: "d6a1f0e2c3b4a5968778695a4b3c2d1e0f9e8d7c"}}},
	}}
}

func TestExampleIsCanonical(t *testing.T) {
	want, err := Marshal(example())
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("testdata/example.lock")
	if err != nil || !bytes.Equal(got, want) {
		if os.Getenv("BUNDLECTL_LOCKFILE_UPDATE") != "" {
			os.WriteFile("testdata/example.lock", want, 0o644)
			return
		}
		t.Fatalf("testdata/example.lock is not Marshal(example()) (set BUNDLECTL_LOCKFILE_UPDATE=1 to rewrite):\n%s", want)
	}
	doc, err := os.ReadFile("../docs/lockfile.md")
	if err != nil || !bytes.Contains(doc, want) {
		t.Errorf("docs/lockfile.md does not show testdata/example.lock verbatim")
	}
	f, err := Parse(got)
	if err != nil {
		t.Fatal(err)
	}
	ex := example()
	if !reflect.DeepEqual(f, ex) {
		t.Errorf("Parse(example) = %+v\nwant %+v", f, ex)
	}
}

func TestMarshalDeterministic(t *testing.T) {
	a := example()
	b := example()
	sort.Slice(b.Bundles, func(i, j int) bool { return b.Bundles[i].Name > b.Bundles[j].Name })
	x, err1 := Marshal(a)
	y, err2 := Marshal(b)
	if err1 != nil || err2 != nil || !bytes.Equal(x, y) {
		t.Errorf("Marshal depends on order: %v %v\n%s\n---\n%s", err1, err2, x, y)
	}
	f, err := Parse(y)
	if err != nil {
		t.Fatal(err)
	}
	if f.Bundles[0].Name != "formatter" || f.Bundles[3].Name != "stripe" {
		t.Errorf("not sorted by name: %v", f.Bundles)
	}
	if _, ok := f.Lookup("notes"); !ok {
		t.Errorf("Lookup(notes) failed")
	}
}

func TestMarshalRefusesInvalid(t *testing.T) {
	for name, mut := range map[string]func(*File){
		"name":      func(f *File) { f.Bundles[0].Name = "a/b" },
		"duplicate": func(f *File) { f.Bundles[1].Name = "Formatter" },
		"scope":     func(f *File) { f.Bundles[0].Scope = bundle.ScopeBuiltin },
		"token":     func(f *File) { f.Bundles[0].Token = receipts.Token{} },
		"source":    func(f *File) { f.Bundles[0].Source.Commit = "" },
	} {
		f := example()
		mut(f)
		if _, err := Marshal(f); err == nil {
			t.Errorf("%s: Marshal accepted an invalid file", name)
		}
		p := filepath.Join(t.TempDir(), FileName)
		if err := Write(p, f); err == nil {
			t.Errorf("%s: Write accepted an invalid file", name)
		}
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s: Write left a file", name)
		}
	}
}

const tok = "1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a.2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b"

func doc(bundles ...string) string {
	return "version = 1\n" + strings.Join(bundles, "")
}

func gitBundle(extra string) string {
	return "\n[[bundle]]\nname = \"fmt\"\nscope = \"workspace\"\nenabled = true\ntoken = \"" + tok + "\"\n" + extra +
		"[bundle.source]\nkind = \"git\"\nurl = \"https://example.com/fmt.git\"\ncommit = \"" + strings.Repeat("a", 40) + "\"\n"
}

func TestParseErrors(t *testing.T) {
	secret := "ghp_0123456789abcdefghijklmnopqrstuvwxyz"
	cases := []struct {
		name, in   string
		line       int
		field, has string
		want       error
	}{
		{"empty", "", 0, "version", "missing", ErrMalformed},
		{"version", "version = 2\n", 1, "version", "unsupported version", ErrUnsupportedVersion},
		{"version-type", "version = \"1\"\n", 1, "version", "wrong type", ErrMalformed},
		{"syntax", "version = 1\n[[bundle]\n", 2, "", "not valid TOML", ErrMalformed},
		{"unknown-top", "version = 1\ncomment = \"" + secret + "\"\n", 2, "comment", "unknown key", ErrMalformed},
		{"unknown-bundle", doc(gitBundle("trusted = true\n")), 8, "bundle.trusted", "unknown key", ErrMalformed},
		{"unknown-source", doc(gitBundle("")) + "extra = 1\n", 12, "bundle.source.extra", "unknown key", ErrMalformed},
		{"dup-key", doc(gitBundle("name = \"again\"\n")), 8, "name", "already defined", ErrMalformed},
		{"dup-bundle", doc(gitBundle(""), gitBundle("")), 14, "bundle[2].name", "same bundle name as bundle[1] (line 4)", ErrMalformed},
		{"missing-token", strings.Replace(doc(gitBundle("")), "token = \""+tok+"\"\n", "", 1), 3, "bundle[1].token", "missing", ErrMalformed},
		{"missing-source", "version = 1\n[[bundle]]\nname = \"a\"\nscope = \"user\"\nenabled = true\ntoken = \"" + tok + "\"\n", 2, "bundle[1].source", "missing", ErrMalformed},
		{"token", strings.Replace(doc(gitBundle("")), tok, secret, 1), 7, "bundle[1].token", "malformed", ErrMalformed},
		{"token-upper", strings.Replace(doc(gitBundle("")), tok, strings.ToUpper(tok), 1), 7, "bundle[1].token", "malformed", ErrMalformed},
		{"scope", strings.Replace(doc(gitBundle("")), "workspace", "builtin", 1), 5, "bundle[1].scope", "want", ErrMalformed},
		{"name", strings.Replace(doc(gitBundle("")), "\"fmt\"", "\"../x\"", 1), 4, "bundle[1].name", "slash", ErrMalformed},
		{"name-untrustable", strings.Replace(doc(gitBundle("")), "\"fmt\"", "\""+strings.Repeat("n", 65)+"\"", 1), 4, "bundle[1].name", "1 to 64 lower-case letters", ErrMalformed},
		{"name-upper", strings.Replace(doc(gitBundle("")), "\"fmt\"", "\"Fmt\"", 1), 4, "bundle[1].name", "not a name bundlectl can trust", ErrMalformed},
		{"commit", strings.Replace(doc(gitBundle("")), strings.Repeat("a", 40), "main", 1), 11, "bundle[1].source.commit", "full commit id", ErrMalformed},
		{"url-creds", strings.Replace(doc(gitBundle("")), "https://example.com", "https://"+secret+"@example.com", 1), 10, "bundle[1].source.url", "credentials", ErrMalformed},
		{"kind", strings.Replace(doc(gitBundle("")), "kind = \"git\"", "kind = \"svn\"", 1), 9, "bundle[1].source.kind", "want", ErrMalformed},
		{"enabled-type", strings.Replace(doc(gitBundle("")), "enabled = true", "enabled = \"yes\"", 1), 6, "bundle.enabled", "wrong type", ErrMalformed},
		{"inline-source", "version = 1\n[[bundle]]\nname = \"a\"\nscope = \"user\"\nenabled = true\ntoken = \"" + tok + "\"\nsource = { kind = \"dir\", path = \"rel\" }\n", 7, "bundle[1].source.path", "absolute", ErrMalformed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.in))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse = %v; want a *ParseError", err)
			}
			if !errors.Is(err, c.want) || pe.Line != c.line || pe.Field != c.field || !strings.Contains(pe.Reason, c.has) {
				t.Errorf("Parse = line %d field %q reason %q (%v); want line %d field %q reason containing %q (%v)",
					pe.Line, pe.Field, pe.Reason, pe.Err, c.line, c.field, c.has, c.want)
			}
			if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "ghp_") {
				t.Errorf("the error echoes a secret: %v", err)
			}
		})
	}
}

func TestReadWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, FileName)
	old := syscall.Umask(0o077)
	err := Write(p, example())
	syscall.Umask(old)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644 whatever the umask", fi.Mode())
	}
	f, err := Read(p)
	if err != nil || !reflect.DeepEqual(f, example()) {
		t.Errorf("Read = %+v, %v", f, err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("Write left temporary files: %v", ents)
	}

	bad := filepath.Join(dir, "bad.lock")
	os.WriteFile(bad, []byte("version = 1\nx = 1\n"), 0o644)
	if _, err := Read(bad); err == nil || !strings.HasPrefix(err.Error(), bad+":2: x: unknown key") {
		t.Errorf("Read(bad) = %v", err)
	}
	link := filepath.Join(dir, "link.lock")
	os.Symlink(p, link)
	if _, err := Read(link); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Read(link) = %v", err)
	}
	if err := Write(link, example()); err == nil {
		t.Errorf("Write replaced a symbolic link")
	}
	if l, _ := os.Readlink(link); l != p {
		t.Errorf("the link was replaced")
	}
	fifo := filepath.Join(dir, "fifo.lock")
	syscall.Mkfifo(fifo, 0o644)
	if _, err := Read(fifo); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Read(fifo) = %v", err)
	}
	big := filepath.Join(dir, "big.lock")
	os.WriteFile(big, bytes.Repeat([]byte("#"), MaxFileSize+1), 0o644)
	if _, err := Read(big); !errors.Is(err, ErrMalformed) {
		t.Errorf("Read(big) = %v", err)
	}
}
