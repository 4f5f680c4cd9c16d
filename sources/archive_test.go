package sources

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"crypto/tls"
	"hash/crc32"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestArchiveTarGz(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "fmt-1.2.tar.gz")
	sum := makeTarGz(t, p, []tmember{
		{name: "fmt-1.2/", typ: tar.TypeDir},
		{name: "fmt-1.2/plugin.json", body: "{}"},
		{name: "fmt-1.2/bin/run", body: "#!/bin/sh", mode: 0o755},
		{name: "fmt-1.2/skills/a/SKILL.md", body: "a", mode: 0o4755}, // setuid is dropped, the x bit kept
	})
	res := mustFetch(t, Request{Source: p, SHA256: "sha256:" + strings.ToUpper(sum)}, Options{})
	checkListing(t, res.Dir, `
d bin
d skills
d skills/a
f plugin.json {}
x bin/run #!/bin/sh
x skills/a/SKILL.md a
`)
	want := Resolved{Kind: KindArchive, Path: p, SHA256: sum}
	if res.Source != want || res.Name != "fmt-1.2" {
		t.Errorf("source %+v name %q", res.Source, res.Name)
	}

	res = mustFetch(t, Request{Source: "file://" + p, SHA256: sum, Subdir: "skills"}, Options{})
	checkListing(t, res.Dir, `
d a
x a/SKILL.md a
`)

	err := mustFail(t, Request{Source: p, SHA256: strings.Repeat("0", 64)}, Options{}, ErrPinMismatch, sum, "nothing was extracted")
	_ = err
	mustFail(t, Request{Source: p}, Options{}, ErrInvalid, "needs its sha256 pin")
	mustFail(t, Request{Source: p, SHA256: "abc"}, Options{}, ErrInvalid, "64 hex")
	mustFail(t, Request{Source: p, SHA256: sum, Ref: "main"}, Options{}, ErrInvalid, "--ref")
}

// TestArchiveNoWrapperWithoutManifest: a single top-level directory is
// unwrapped only when it holds a manifest.
func TestArchiveNoWrapperWithoutManifest(t *testing.T) {
	p := filepath.Join(t.TempDir(), "skills-only.zip")
	sum := makeZip(t, p, []tmember{
		{name: "skills/", typ: tar.TypeDir},
		{name: "skills/a/SKILL.md", body: "a"},
		{name: "__MACOSX/skills/._a", body: "junk"},
	})
	res := mustFetch(t, Request{Source: p, SHA256: sum}, Options{})
	checkListing(t, res.Dir, `
d __MACOSX
d __MACOSX/skills
d skills
d skills/a
f __MACOSX/skills/._a junk
f skills/a/SKILL.md a
`)
	p2 := filepath.Join(t.TempDir(), "wrapped.zip")
	sum2 := makeZip(t, p2, []tmember{
		{name: "w/.claude-plugin/plugin.json", body: "{}"},
		{name: "w/run", body: "x", mode: 0o755},
		{name: "__MACOSX/w/._run", body: "junk"},
	})
	res = mustFetch(t, Request{Source: p2, SHA256: sum2}, Options{})
	checkListing(t, res.Dir, `
d .claude-plugin
f .claude-plugin/plugin.json {}
x run x
`)
}

func TestArchiveHostileMembers(t *testing.T) {
	cases := []struct {
		name    string
		members []tmember
		has     string
	}{
		{"dotdot", []tmember{{name: "ok", body: "x"}, {name: "../evil", body: "x"}}, "leaves the tree"},
		{"inner-dotdot", []tmember{{name: "a/../../evil", body: "x"}}, "leaves the tree"},
		{"absolute", []tmember{{name: "/etc/evil", body: "x"}}, "absolute path"},
		{"symlink", []tmember{{name: "a", body: "x"}, {name: "l", typ: tar.TypeSymlink, linkname: "a"}}, "links are not allowed"},
		{"hardlink", []tmember{{name: "a", body: "x"}, {name: "l", typ: tar.TypeLink, linkname: "a"}}, "links are not allowed"},
		{"chardev", []tmember{{name: "null", typ: tar.TypeChar}}, "device files"},
		{"fifo", []tmember{{name: "p", typ: tar.TypeFifo}}, "FIFO"},
		{"duplicate", []tmember{{name: "a", body: "x"}, {name: "./a", body: "y"}}, "twice"},
		{"collision", []tmember{{name: "A.md", body: "x"}, {name: "a.md", body: "y"}}, "collides"},
		{"control", []tmember{{name: "a\x1b[2Jb", body: "x"}}, "control"},
		{"entries", manyMembers(11), "more than 10 members"},
		{"file", []tmember{{name: "big", body: strings.Repeat("x", 51)}}, "larger than the limit of 50"},
		{"total", []tmember{{name: "a", body: strings.Repeat("x", 50)}, {name: "b", body: strings.Repeat("x", 50)}, {name: "c", body: "x"}}, "exceed the limit of 100"},
		{"depth", []tmember{{name: "a/b/c/d", body: "x"}}, "deeper than the limit of 3"},
		{"file-as-dir", []tmember{{name: "a", body: "x"}, {name: "a/b", body: "y"}}, "not a directory"},
	}
	for _, c := range cases {
		for _, ext := range []string{".tar.gz", ".zip"} {
			if ext == ".zip" && (c.name == "hardlink" || c.name == "fifo") {
				continue // zip has no such members
			}
			t.Run(c.name+ext, func(t *testing.T) {
				p := filepath.Join(t.TempDir(), "a"+ext)
				var sum string
				if ext == ".zip" {
					sum = makeZip(t, p, c.members)
				} else {
					sum = makeTarGz(t, p, c.members)
				}
				mustFail(t, Request{Source: p, SHA256: sum}, Options{Limits: smallLimits()}, ErrRefused, c.has)
			})
		}
	}
}

func manyMembers(n int) []tmember {
	var ms []tmember
	for i := 0; i < n; i++ {
		ms = append(ms, tmember{name: "f" + string(rune('a'+i)), body: ""})
	}
	return ms
}

// TestArchiveGarbage: what is not an archive is refused.
func TestArchiveGarbage(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.tar.gz")
	writeFile(t, p, "not gzip at all", 0o644)
	mustFail(t, Request{Source: p, SHA256: sha([]byte("not gzip at all"))}, Options{}, ErrRefused, "gzip")
	z := filepath.Join(t.TempDir(), "x.zip")
	writeFile(t, z, "not zip", 0o644)
	mustFail(t, Request{Source: z, SHA256: sha([]byte("not zip"))}, Options{}, ErrRefused, "zip")
}

func TestArchiveURL(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fmt.tgz")
	sum := makeTarGz(t, p, []tmember{{name: "plugin.json", body: "{}"}})
	data, _ := os.ReadFile(p)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/fmt.tgz":
			w.Write(data)
		case "/moved.tgz":
			http.Redirect(w, r, "http://127.0.0.1:1/fmt.tgz", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	client := srv.Client()
	client.Transport.(*http.Transport).TLSClientConfig.MinVersion = tls.VersionTLS12
	testOnlyHTTPClient = client
	defer func() { testOnlyHTTPClient = nil }()

	res := mustFetch(t, Request{Source: srv.URL + "/fmt.tgz", SHA256: sum}, Options{})
	if res.Source.URL != srv.URL+"/fmt.tgz" || res.Name != "fmt" {
		t.Errorf("source %+v name %q", res.Source, res.Name)
	}
	checkListing(t, res.Dir, "f plugin.json {}")
	mustFail(t, Request{Source: srv.URL + "/nope.tgz", SHA256: sum}, Options{}, ErrNotFound, "404")
	mustFail(t, Request{Source: srv.URL + "/moved.tgz", SHA256: sum}, Options{}, ErrRefused, "left https")
	mustFail(t, Request{Source: strings.Replace(srv.URL, "https", "http", 1) + "/fmt.tgz", SHA256: sum}, Options{}, ErrInvalid, "plain http")
	mustFail(t, Request{Source: srv.URL + "/fmt.tgz?sig=secret", SHA256: sum}, Options{}, ErrInvalid, "query")
}

// TestArchiveLyingZip: a zip member whose content is longer than its
// declared size, or whose checksum is wrong, is refused.
func TestArchiveLyingZip(t *testing.T) {
	for _, c := range []struct {
		name     string
		declared uint64
		crc      uint32
	}{
		{"size", 2, crc32.ChecksumIEEE([]byte("0123456789"))},
		{"crc", 10, 12345},
	} {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, err := zw.CreateRaw(&zip.FileHeader{Name: "a", Method: zip.Store, CompressedSize64: 10, UncompressedSize64: c.declared, CRC32: c.crc})
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("0123456789"))
		zw.Close()
		p := filepath.Join(t.TempDir(), "lie.zip")
		writeFile(t, p, buf.String(), 0o644)
		mustFail(t, Request{Source: p, SHA256: sha(buf.Bytes())}, Options{}, ErrRefused, "a: ")
	}
}
