package sources

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
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
	// The pin in either case, its prefix too: "SHA256:" was refused
	// as not 64 hex digits.
	mustFetch(t, Request{Source: p, SHA256: "SHA256:" + strings.ToUpper(sum)}, Options{})
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

	// The other format than the name says: named, not left to the
	// reader's "gzip: invalid header".
	zipData := zipBytes([]tmember{{name: "plugin.json", body: "{}"}})
	p = filepath.Join(t.TempDir(), "x.tar.gz")
	writeFile(t, p, string(zipData), 0o644)
	mustFail(t, Request{Source: p, SHA256: sha(zipData)}, Options{}, ErrRefused, "is a zip archive, not a gzip-compressed tar, though its name ends in .tar.gz")
	tgz := tarGzBytes([]tmember{{name: "plugin.json", body: "{}"}})
	z = filepath.Join(t.TempDir(), "x.zip")
	writeFile(t, z, string(tgz), 0o644)
	mustFail(t, Request{Source: z, SHA256: sha(tgz)}, Options{}, ErrRefused, "is gzip-compressed (a .tar.gz), not a zip archive, though its name ends in .zip")
}

func TestArchiveURL(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fmt.tgz")
	sum := makeTarGz(t, p, []tmember{{name: "plugin.json", body: "{}"}})
	data, _ := os.ReadFile(p)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/fmt.tgz":
			w.Write(data)
		case "/labelled.tgz":
			// The file as it is, labelled gzip-encoded, as Apache's
			// "AddEncoding x-gzip .gz .tgz" (or a CDN) serves it:
			// the pin is of these bytes.
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(data)
		case "/moved.tgz":
			http.Redirect(w, r, "http://127.0.0.1:1/fmt.tgz", http.StatusFound)
		case "/signed.tgz":
			http.Redirect(w, r, "http://127.0.0.1:1/fmt.tgz?X-Amz-Signature=SECRETSIG&token=SECRETTOKEN", http.StatusFound)
		case "/signed-https.tgz":
			http.Redirect(w, r, "https://u:SECRETPASS@127.0.0.1:1/fmt.tgz?X-Amz-Signature=SECRETSIG#SECRETFRAG", http.StatusFound)
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
	// Go's client undid that encoding of a response to the Accept-Encoding
	// it sent itself, so the hash was of the tar inside, and the pin of the
	// file never matched.
	res = mustFetch(t, Request{Source: srv.URL + "/labelled.tgz", SHA256: sum}, Options{})
	checkListing(t, res.Dir, "f plugin.json {}")
	mustFail(t, Request{Source: srv.URL + "/nope.tgz", SHA256: sum}, Options{}, ErrNotFound, "404")
	mustFail(t, Request{Source: srv.URL + "/moved.tgz", SHA256: sum}, Options{}, ErrRefused, "left https")
	// A redirect's target is often a signed URL: its query, fragment and
	// userinfo are never printed.
	for _, path := range []string{"/signed.tgz", "/signed-https.tgz"} {
		parent := filepath.Join(t.TempDir(), "tmp")
		_, err := Fetch(context.Background(), parent, Request{Source: srv.URL + path, SHA256: sum}, Options{})
		if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1/fmt.tgz?[redacted]") {
			t.Errorf("%s: %v, want the redirect named without its query", path, err)
		}
		if err != nil && strings.Contains(err.Error(), "SECRET") {
			t.Errorf("%s: the error repeats a secret: %v", path, err)
		}
	}
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

// rawTarHeader is one ustar header block of type typ for a member of
// size bytes, with its checksum: the tar writer refuses to write the
// meta headers (PAX, GNU) an archive can chain.
func rawTarHeader(name string, typ byte, size int) []byte {
	b := make([]byte, 512)
	copy(b, name)
	copy(b[100:], "0000644\x00")
	copy(b[108:], "0000000\x00")
	copy(b[116:], "0000000\x00")
	copy(b[124:], fmt.Sprintf("%011o\x00", size))
	copy(b[136:], "00000000000\x00")
	b[156] = typ
	copy(b[257:], "ustar\x0000")
	copy(b[148:], "        ")
	sum := 0
	for _, c := range b {
		sum += int(c)
	}
	copy(b[148:], fmt.Sprintf("%06o\x00 ", sum))
	return b
}

func gzipped(t *testing.T, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	gz.Write(data)
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestArchiveTarHeadersAreBounded: tar headers that carry no member —
// global headers, a chain of PAX headers — are bounded too. Without that a
// small archive decompressed without end (a 46 MB one ran for minutes
// past --timeout): every header counts against the entry limit, and the
// decompressed stream against what members within the limits can need.
func TestArchiveTarHeadersAreBounded(t *testing.T) {
	manifest := rawTarHeader("plugin.json", tar.TypeReg, 2)
	manifest = append(manifest, []byte("{}")...)
	manifest = append(manifest, make([]byte, 510+1024)...)

	var globals []byte
	for range 11 + 16 {
		globals = append(globals, rawTarHeader("g", tar.TypeXGlobalHeader, 0)...)
	}
	p := filepath.Join(t.TempDir(), "globals.tar.gz")
	data := gzipped(t, append(globals, manifest...))
	writeFile(t, p, string(data), 0o644)
	mustFail(t, Request{Source: p, SHA256: sha(data)}, Options{Limits: smallLimits()}, ErrRefused, "more than 26 members and global headers")

	// 1,000 PAX headers, each applying to the next: one member to the
	// reader, 1 MB of stream, more than 11 members' worth of headers.
	record := "12 comment=\n"
	var chain []byte
	for range 1000 {
		chain = append(chain, rawTarHeader("x", tar.TypeXHeader, len(record))...)
		block := make([]byte, 512)
		copy(block, record)
		chain = append(chain, block...)
	}
	p = filepath.Join(t.TempDir(), "chain.tar.gz")
	data = gzipped(t, append(chain, manifest...))
	writeFile(t, p, string(data), 0o644)
	mustFail(t, Request{Source: p, SHA256: sha(data)}, Options{Limits: smallLimits()}, ErrRefused, "unpacks to more than")
}

// TestArchiveReadingStopsWithTheContext: extraction reads no further once
// the fetch's context has ended (its --timeout), for either format.
func TestArchiveReadingStopsWithTheContext(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	members := []tmember{{name: "plugin.json", body: "{}"}, {name: "a", body: "x"}}
	tgz := filepath.Join(dir, "a.tar.gz")
	makeTarGz(t, tgz, members)
	a := &tarGz{ctx: ctx, file: tgz, maxHeaders: 10, maxBytes: 1 << 20}
	if err := a.each(func(member, io.Reader) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("tar.gz read under an ended context: %v", err)
	}
	zp := filepath.Join(dir, "a.zip")
	makeZip(t, zp, members)
	z, err := openZip(ctx, zp, 10)
	if err != nil {
		t.Fatal(err)
	}
	defer z.close()
	if err := z.each(func(member, io.Reader) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("zip read under an ended context: %v", err)
	}
}

// hostileZip is a zip whose central directory has n records, all naming
// one empty local file, and whose end record declares n modulo 65536 of
// them (as zip.NewReader checks), after prefix bytes (a self-extracting
// stub).
func hostileZip(prefix []byte, n int) []byte {
	var b bytes.Buffer
	b.Write(prefix)
	le := binary.LittleEndian
	local := make([]byte, 30)
	le.PutUint32(local, 0x04034b50)
	le.PutUint16(local[4:], 20)
	le.PutUint16(local[26:], 1)
	b.Write(local)
	b.WriteString("a")
	dirOff := b.Len() - len(prefix)
	rec := make([]byte, 46)
	le.PutUint32(rec, 0x02014b50)
	le.PutUint16(rec[4:], 20)
	le.PutUint16(rec[6:], 20)
	le.PutUint16(rec[28:], 1)
	for range n {
		b.Write(rec)
		b.WriteString("a")
	}
	end := make([]byte, 22)
	le.PutUint32(end, 0x06054b50)
	le.PutUint16(end[8:], uint16(n))
	le.PutUint16(end[10:], uint16(n))
	le.PutUint32(end[12:], uint32(n*47))
	le.PutUint32(end[16:], uint32(dirOff))
	b.Write(end)
	return b.Bytes()
}

// TestArchiveZipDirectoryCountedFirst: a zip's directory records are
// counted where zip.NewReader will read them before it builds any, so a
// directory of millions of tiny records (one declared, modulo 65536) is
// refused without the memory it would take.
func TestArchiveZipDirectoryCountedFirst(t *testing.T) {
	for _, prefix := range [][]byte{nil, []byte("#!/bin/sh\nexit 0\n")} {
		data := hostileZip(prefix, 65536+5)
		if n, err := zipRecords(bytes.NewReader(data), int64(len(data)), 20001); err != nil || n != 20001 {
			t.Errorf("prefix %d bytes: counted %d, %v; want the limit, 20001", len(prefix), n, err)
		}
		// The count is the one the reader sees.
		small := hostileZip(prefix, 7)
		if n, err := zipRecords(bytes.NewReader(small), int64(len(small)), 100); err != nil || n != 7 {
			t.Errorf("prefix %d bytes: counted %d, %v; want 7", len(prefix), n, err)
		}
		if zr, err := zip.NewReader(bytes.NewReader(small), int64(len(small))); err != nil || len(zr.File) != 7 {
			t.Fatalf("the test's zip does not read as 7 records: %v", err)
		}
		p := filepath.Join(t.TempDir(), "many.zip")
		writeFile(t, p, string(data), 0o644)
		mustFail(t, Request{Source: p, SHA256: sha(data)}, Options{Limits: smallLimits()}, ErrRefused, "more than 10 members")
	}
}

// TestFetchRefusesOverlongName: a name longer than a file system takes
// (a tar or zip member, a git tree entry) is refused naming the source
// and the path, as a hostile tree; the create that would fail with
// ENAMETOOLONG used to end the install with that raw error (exit 1).
func TestFetchRefusesOverlongName(t *testing.T) {
	long := strings.Repeat("a", MaxPathNameBytes+1)
	members := []tmember{{name: "p/.claude-plugin/plugin.json", body: "{}"}, {name: "p/" + long, body: "x"}}
	for _, ext := range []string{".tar.gz", ".zip"} {
		t.Run(ext, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "a"+ext)
			sum := makeTarGz
			if ext == ".zip" {
				sum = makeZip
			}
			mustFail(t, Request{Source: p, SHA256: sum(t, p, members)}, Options{}, ErrRefused, "256 bytes, longer than the 255")
		})
	}
	t.Run("git", func(t *testing.T) {
		r := newTestRepo(t)
		r.write(".claude-plugin/plugin.json", "{}", 0o644)
		r.git("add", "-A")
		oid := r.git("hash-object", "-w", "--stdin", "--path", "x")
		r.git("update-index", "--add", "--cacheinfo", "100644,"+oid+","+long)
		r.git("commit", "-q", "-m", "long")
		mustFail(t, Request{Source: r.url()}, Options{}, ErrRefused, long, "256 bytes, longer than the 255")
	})
}

// TestArchiveRefusalHintsItsListing: a local archive refused for what it
// holds hints the command that lists its members (tar's or unzip's, as
// the archive is), and the command works as printed: it runs and shows
// the member refused. A zip named .tar.gz is listed as the zip it is.
func TestArchiveRefusalHintsItsListing(t *testing.T) {
	for _, tool := range []string{"tar", "unzip"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s here to run the hint", tool)
		}
	}
	members := []tmember{{name: "p/plugin.json", body: "{}"}, {name: "p/../../evil", body: "x"}}
	dir := filepath.Join(t.TempDir(), "my archives")
	tgz, zp, misnamed := filepath.Join(dir, "a.tar.gz"), filepath.Join(dir, "a.zip"), filepath.Join(dir, "z.tar.gz")
	sums := map[string]string{tgz: makeTarGz(t, tgz, members), zp: makeZip(t, zp, members), misnamed: makeZip(t, misnamed, members)}
	for p, want := range map[string]string{tgz: "tar -tvzf '" + tgz + "'", zp: "unzip -l '" + zp + "'", misnamed: "unzip -l '" + misnamed + "'"} {
		err := mustFail(t, Request{Source: p, SHA256: sums[p]}, Options{}, ErrRefused)
		var e *Error
		if !errors.As(err, &e) || e.Hint() != want {
			t.Errorf("%s: hint %q, want %q", p, e.Hint(), want)
			continue
		}
		out, rerr := exec.Command("sh", "-c", e.Hint()).CombinedOutput()
		if rerr != nil || !strings.Contains(string(out), "p/../../evil") {
			t.Errorf("%s: the hint %q (%v) printed %q, not the refused member", p, e.Hint(), rerr, out)
		}
	}
}

// TestArchiveOtherCompressionHintsWhatLists: a tar that is not
// gzip-compressed (plain, or xz) named .tar.gz or .zip is refused saying
// what it is, and the hint lists it as printed: tar -tvf, which finds the
// compression itself, where tar -tvzf (the .tar.gz hint) failed with
// "not in gzip format". A file that is no archive hints its first bytes
// (where unzip -l, the .zip hint, failed).
func TestArchiveOtherCompressionHintsWhatLists(t *testing.T) {
	if _, err := exec.LookPath("tar"); err != nil {
		t.Skip("no tar here to run the hint")
	}
	dir := filepath.Join(t.TempDir(), "it's $HOME")
	var plain bytes.Buffer
	tw := tar.NewWriter(&plain)
	tw.WriteHeader(&tar.Header{Name: "p/plugin.json", Mode: 0o644, Size: 2, Typeflag: tar.TypeReg})
	tw.Write([]byte("{}"))
	tw.Close()
	cases := []struct{ name, reason, show string }{
		{"plain.tar.gz", "is an uncompressed tar archive (a .tar), not a gzip-compressed tar", "p/plugin.json"},
		{"plain.zip", "is an uncompressed tar archive (a .tar), not a zip archive", "p/plugin.json"},
		{"garbage.tgz", "is not gzip-compressed", "n   o   t"},
		{"garbage.zip", "not a valid zip archive", "n   o   t"},
	}
	writeFile(t, filepath.Join(dir, "garbage.zip"), "not an archive", 0o644)
	writeFile(t, filepath.Join(dir, "plain.tar.gz"), plain.String(), 0o644)
	writeFile(t, filepath.Join(dir, "plain.zip"), plain.String(), 0o644)
	writeFile(t, filepath.Join(dir, "garbage.tgz"), "not an archive", 0o644)
	if _, err := exec.LookPath("xz"); err == nil {
		writeFile(t, filepath.Join(dir, "p/plugin.json"), "{}", 0o644)
		if out, err := exec.Command("tar", "-cJf", filepath.Join(dir, "xz.tar.gz"), "-C", dir, "p").CombinedOutput(); err != nil {
			t.Fatalf("tar -cJf: %v\n%s", err, out)
		}
		cases = append(cases, struct{ name, reason, show string }{"xz.tar.gz", "is xz-compressed (a .tar.xz)", "p/plugin.json"})
	}
	for _, c := range cases {
		p := filepath.Join(dir, c.name)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		err = mustFail(t, Request{Source: p, SHA256: sha(data)}, Options{}, ErrRefused, c.reason)
		var e *Error
		if !errors.As(err, &e) || e.Hint() == "" {
			t.Errorf("%s: no hint: %v", c.name, err)
			continue
		}
		out, rerr := exec.Command("sh", "-c", e.Hint()).CombinedOutput()
		if rerr != nil || !strings.Contains(string(out), c.show) {
			t.Errorf("%s: the hint %q (%v) printed %q, without %q", c.name, e.Hint(), rerr, out, c.show)
		}
	}
}

// TestArchiveMissingPathAndPinHint: a local archive without the --path
// asked for hints the listing of its members (where the directories it
// does hold show), and one whose bytes are not the pinned ones hints
// sha256sum of it, which prints the sum it has; each runs as printed.
func TestArchiveMissingPathAndPinHint(t *testing.T) {
	for _, tool := range []string{"tar", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s here to run the hint", tool)
		}
	}
	tgz := filepath.Join(t.TempDir(), "it's $HOME", "a.tar.gz")
	sum := makeTarGz(t, tgz, []tmember{{name: "p/plugin.json", body: "{}"}})
	for _, c := range []struct {
		q          Request
		want       error
		hint, show string
	}{
		{Request{Source: tgz, SHA256: sum, Subdir: "nope"}, ErrNotFound, "tar -tvzf " + bundle.ShellArg(tgz), "p/plugin.json"},
		{Request{Source: tgz, SHA256: strings.Repeat("0", 64)}, ErrPinMismatch, "sha256sum " + bundle.ShellArg(tgz), sum},
	} {
		err := mustFail(t, c.q, Options{}, c.want)
		var e *Error
		if !errors.As(err, &e) || e.Hint() != c.hint {
			t.Errorf("%v: hint %q, want %q", c.want, e.Hint(), c.hint)
			continue
		}
		out, rerr := exec.Command("sh", "-c", e.Hint()).CombinedOutput()
		if rerr != nil || !strings.Contains(string(out), c.show) {
			t.Errorf("%v: the hint %q (%v) printed %q, without %q", c.want, e.Hint(), rerr, out, c.show)
		}
	}
}
