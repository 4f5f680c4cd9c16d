package sources

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	dir := t.TempDir()
	arch := filepath.Join(dir, "x.zip")
	writeFile(t, arch, "", 0o644)
	bare := filepath.Join(dir, "bare.git")
	for _, d := range []string{"objects", "refs"} {
		os.MkdirAll(filepath.Join(bare, d), 0o755)
	}
	writeFile(t, filepath.Join(bare, "HEAD"), "ref: refs/heads/main\n", 0o644)
	work := filepath.Join(t.TempDir(), "work") // a checkout: a ref is read from it
	os.MkdirAll(filepath.Join(work, ".git"), 0o755)
	os.MkdirAll(filepath.Join(work, "plugins", "fmt"), 0o755)
	for _, c := range []struct {
		q    Request
		want Kind
		err  string
	}{
		{Request{Source: dir}, KindDir, ""},
		{Request{Source: work, Ref: "main"}, KindGit, ""},
		{Request{Source: filepath.Join(work, "plugins", "fmt"), Ref: "main"}, "", "--path plugins/fmt --ref main"},
		{Request{Source: dir, Ref: "main"}, "", "in no git repository"},
		{Request{Source: dir, Kind: KindGit}, KindGit, ""},
		{Request{Source: bare}, KindGit, ""},
		{Request{Source: arch, SHA256: strings.Repeat("a", 64)}, KindArchive, ""},
		{Request{Source: "https://example.com/a/b.git"}, KindGit, ""},
		{Request{Source: "https://example.com/a/b.git", Ref: "v1.2.3"}, KindGit, ""},
		{Request{Source: "ssh://git@example.com/a/b.git"}, KindGit, ""},
		{Request{Source: "git@github.com:acme/tools.git"}, KindGit, ""},
		{Request{Source: "file:///srv/repo.git"}, KindGit, ""},
		{Request{Source: "https://example.com/x-1.0.tar.gz", SHA256: strings.Repeat("a", 64)}, KindArchive, ""},
		{Request{Source: "fmt@" + dir}, KindMarketplace, ""},
		{Request{Source: "fmt@https://github.com/acme/market.git", Ref: "main"}, KindMarketplace, ""},
		{Request{Source: "fmt@git@github.com:acme/market.git"}, KindMarketplace, ""},
		{Request{Source: ""}, "", "no source"},
		{Request{Source: dir, SHA256: strings.Repeat("a", 64)}, "", "only to archives"},
		{Request{Source: arch}, "", "sha256 pin"},
		{Request{Source: "https://example.com/x.zip", SHA256: strings.Repeat("a", 64), Ref: "v1"}, "", "--ref applies only"},
		{Request{Source: "fmt@" + dir, Subdir: "x"}, "", "--path does not apply"},
		{Request{Source: "fmt@" + work, Ref: "main"}, "", ""}, // a ref makes a local marketplace a git one
		{Request{Source: "f/m@" + dir}, KindDir, "no such file"},
		{Request{Source: ".x@" + dir}, "", "starts with a dot"},
		{Request{Source: "fmt@" + arch, SHA256: strings.Repeat("a", 64)}, "", "--sha256 applies only"},
		{Request{Source: "fmt@" + arch}, "", "not an archive"},
		{Request{Source: dir, Format: FormatCodex}, "", "format applies only"},
		{Request{Source: "fmt@" + dir, Format: "cursor"}, "", "format must be"},
		{Request{Source: dir, Kind: KindArchive}, "", "is a directory, not an archive"},
		{Request{Source: "https://example.com/a.git", Ref: "a..b"}, "", "--ref"},
		{Request{Source: "https://example.com/a.git", Subdir: "/abs"}, "", "--path"},
		{Request{Source: "https://example.com/a\x1b.git"}, "", "control"},
		{Request{Source: "user:ghp_SECRET@github.com:a/b.git"}, "", "credentials in a URL are refused"},
		{Request{Source: "user:ab/SECRET@github.com:a/b.git"}, "", "credentials in a URL are refused"},
		{Request{Source: "user:SECRET@github.com/a/b.git"}, "", "credentials in a URL are refused"},
		{Request{Source: "git@github.com:a/b.git"}, KindGit, ""},
	} {
		k, err := Classify(c.q)
		if err != nil && strings.Contains(err.Error(), "SECRET") {
			t.Errorf("Classify(%+v): the error repeats the password: %v", c.q, err)
		}
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Classify(%+v) = %v, %v; want error containing %q", c.q, k, err, c.err)
			}
			continue
		}
		if err != nil || (c.want != "" && k != c.want) {
			t.Errorf("Classify(%+v) = %v, %v; want %v", c.q, k, err, c.want)
		}
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"https://tok@example.com/a.git":         "https://[redacted]@example.com/a.git",
		"https://u:p@w@example.com/a.git?x=y@z": "https://[redacted]@example.com/a.git?[redacted]",
		"https://example.com/a.tgz?token=ghp_x": "https://example.com/a.tgz?[redacted]",
		"https://example.com/a.tgz#sig=abc":     "https://example.com/a.tgz#[redacted]",
		"git@github.com:a/b.git":                "git@github.com:a/b.git",
		"user:tok@github.com:a/b.git":           "[redacted]@github.com:a/b.git",
		"user:a/tok@github.com/a/b.git":         "[redacted]@github.com/a/b.git",
		"./dir":                                 "./dir",
	} {
		if got := redact(in); got != want {
			t.Errorf("redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func sampleResolved() []Resolved {
	c1, c2 := strings.Repeat("a", 40), strings.Repeat("b", 40)
	return []Resolved{
		{Kind: KindDir, Path: "/src/fmt"},
		{Kind: KindDir, Path: "/src/mono", Subdir: "plugins/fmt"},
		{Kind: KindGit, URL: "https://example.com/fmt.git", Ref: "v1", Commit: c1},
		{Kind: KindGit, Path: "/srv/fmt.git", Commit: strings.Repeat("c", 64), Subdir: "p"},
		{Kind: KindArchive, URL: "https://example.com/fmt.tgz", SHA256: strings.Repeat("d", 64)},
		{Kind: KindMarketplace, Plugin: "fmt", URL: "https://example.com/m.git", Ref: "main", Commit: c1, Subdir: "plugins/fmt",
			Marketplace: &MarketplaceSource{Name: "acme", Format: FormatClaude, URL: "https://example.com/m.git", Ref: "main", Commit: c1}},
		{Kind: KindMarketplace, Plugin: "fmt", URL: "https://github.com/acme/fmt.git", Commit: c2,
			Marketplace: &MarketplaceSource{Name: "acme", Format: FormatCodex, Path: "/srv/market"}},
		{Kind: KindMarketplace, Plugin: "fmt", Path: "/srv/market", Subdir: "plugins/fmt",
			Marketplace: &MarketplaceSource{Name: "acme", Format: FormatClaude, Path: "/srv/market"}},
	}
}

func TestResolvedString(t *testing.T) {
	want := []string{
		"dir /src/fmt",
		"dir /src/mono subdir=plugins/fmt",
		"git https://example.com/fmt.git ref=v1 commit=" + strings.Repeat("a", 40),
		"git /srv/fmt.git commit=" + strings.Repeat("c", 64) + " subdir=p",
		"archive https://example.com/fmt.tgz sha256=" + strings.Repeat("d", 64),
		"marketplace fmt@acme (claude catalogue https://example.com/m.git ref=main commit=" + strings.Repeat("a", 40) + ") from git https://example.com/m.git ref=main commit=" + strings.Repeat("a", 40) + " subdir=plugins/fmt",
		"marketplace fmt@acme (codex catalogue /srv/market) from git https://github.com/acme/fmt.git commit=" + strings.Repeat("b", 40),
		"marketplace fmt@acme (claude catalogue /srv/market) from dir /srv/market subdir=plugins/fmt",
	}
	for i, r := range sampleResolved() {
		if err := r.Validate(); err != nil {
			t.Errorf("%d: Validate: %v", i, err)
		}
		if got := r.String(); got != want[i] {
			t.Errorf("%d: String()\n got %s\nwant %s", i, got, want[i])
		}
		data, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var back Resolved
		if err := json.Unmarshal(data, &back); err != nil || !sameSource(back, r) {
			t.Errorf("%d: JSON round trip: %s → %+v %v", i, data, back, err)
		}
	}
	evil := Resolved{Kind: KindDir, Path: "/x\x1b[2J"}
	if s := evil.String(); strings.ContainsRune(s, 0x1b) {
		t.Errorf("String() passes a control character: %q", s)
	}
}

func TestResolvedValidate(t *testing.T) {
	c := strings.Repeat("a", 40)
	m := &MarketplaceSource{Name: "acme", Format: FormatClaude, Path: "/m"}
	for _, bad := range []struct {
		r   Resolved
		has string
	}{
		{Resolved{}, "kind: missing"},
		{Resolved{Kind: "svn", Path: "/x"}, "kind"},
		{Resolved{Kind: KindDir}, "path"},
		{Resolved{Kind: KindDir, Path: "rel"}, "absolute"},
		{Resolved{Kind: KindDir, Path: "/a/../b"}, "clean"},
		{Resolved{Kind: KindDir, Path: "/a", Commit: c}, "commit"},
		{Resolved{Kind: KindGit, URL: "https://e.com/x.git"}, "commit"},
		{Resolved{Kind: KindGit, URL: "https://e.com/x.git", Commit: "abc"}, "commit"},
		{Resolved{Kind: KindGit, URL: "https://e.com/x.git", Commit: strings.ToUpper(c)}, "commit"},
		{Resolved{Kind: KindGit, URL: "https://e.com/x.git", Path: "/x", Commit: c}, "not both"},
		{Resolved{Kind: KindGit, URL: "ext::sh", Commit: c}, "url"},
		{Resolved{Kind: KindGit, URL: "https://t@e.com/x.git", Commit: c}, "credentials"},
		{Resolved{Kind: KindGit, URL: "https://e.com/x.git", Commit: c, Subdir: "../x"}, "subdir"},
		{Resolved{Kind: KindGit, URL: "https://e.com/x.git", Commit: c, Ref: "-x"}, "ref"},
		{Resolved{Kind: KindArchive, URL: "https://e.com/x.zip"}, "sha256"},
		{Resolved{Kind: KindArchive, URL: "https://e.com/x.git", SHA256: strings.Repeat("a", 64)}, "url"},
		{Resolved{Kind: KindMarketplace, Plugin: "p", Path: "/m"}, "marketplace"},
		{Resolved{Kind: KindMarketplace, Plugin: "a@b", Path: "/m", Marketplace: m}, "plugin"},
		{Resolved{Kind: KindMarketplace, Plugin: "p", Path: "/m", Marketplace: &MarketplaceSource{Name: "acme", Format: "x", Path: "/m"}}, "format"},
		{Resolved{Kind: KindMarketplace, Plugin: "p", Path: "/m", Marketplace: &MarketplaceSource{Name: "acme", Format: FormatClaude, URL: "https://e.com/m.git"}}, "marketplace.commit"},
		{Resolved{Kind: KindMarketplace, Plugin: "p", URL: "https://e.com/p.git", Marketplace: m}, "commit"},
	} {
		err := bad.r.Validate()
		if err == nil || !strings.Contains(err.Error(), bad.has) {
			t.Errorf("Validate(%+v) = %v; want an error containing %q", bad.r, err, bad.has)
		}
	}
}

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"fmt", "my_plugin", "Plugin.v2", "日本"} {
		if err := CheckName(ok); err != nil {
			t.Errorf("CheckName(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".", "..", ".hidden", "a/b", "a@b", "con", "a\nb", " a", strings.Repeat("x", 129), "a\u202eb"} {
		if err := CheckName(bad); err == nil {
			t.Errorf("CheckName(%q) accepted", bad)
		} else if bad != "" && len(bad) > 3 && strings.Contains(err.Error(), bad) {
			t.Errorf("CheckName(%q) echoes the name: %v", bad, err)
		}
	}
	if CollisionKey("Straße") != CollisionKey("STRASSE") || CollisionKey("é") != CollisionKey("e\u0301") {
		t.Errorf("CollisionKey does not fold")
	}
}

func TestErrorShape(t *testing.T) {
	e := &Error{Source: "x\x1b", Path: "a\x1bb", Reason: "bad", Err: ErrRefused}
	if strings.ContainsRune(e.Error(), 0x1b) || !errors.Is(e, ErrRefused) {
		t.Errorf("Error() = %q", e.Error())
	}
}
