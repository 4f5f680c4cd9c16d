package sources

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/bundlectl/bundlectl/bundle"
)

// testOnlyHTTPClient replaces the HTTP client in tests (a local TLS
// server's client).
var testOnlyHTTPClient *http.Client

// manifestMarkers are the entries whose presence makes a directory a
// bundle root, for unwrapping an archive's single top-level directory.
var manifestMarkers = []string{".claude-plugin", ".codex-plugin", "plugin.json", "plugin.toml", "gemini-extension.json"}

// ignoredTop are top-level archive members that do not count when looking
// for a single wrapping directory (macOS archivers add them).
var ignoredTop = map[string]bool{"__MACOSX": true, ".DS_Store": true}

func (f *fetcher) fetchArchive(s *spec, res *Result) error {
	err := f.extractArchiveFile(s, res)
	var e *Error
	if s.path == "" || !errors.As(err, &e) || e.Fix != "" {
		return err
	}
	switch {
	case errors.Is(err, ErrRefused) || errors.Is(err, ErrNotFound):
		// A local archive refused for what it holds, or without the
		// --path asked for: the listing of its members shows the one
		// named (or the directories there are), and the rest.
		e.Fix = listArchive(s.path)
	case errors.Is(err, ErrPinMismatch) && !hasControl(s.path):
		// Not the pinned bytes: the file's own sha256, to compare
		// with where the pin came from.
		e.Fix = "sha256sum " + bundle.ShellArg(s.path)
	}
	return err
}

// listArchive is the command that lists the members of the local archive
// p: tar's or unzip's, as its name says it is read.
func listArchive(p string) string { return listAs(archiveExt(p), p) }

// listAs is the command that lists the local archive p as format ext
// (".zip", else a .tar.gz), or "" for no local archive.
func listAs(ext, p string) string {
	switch {
	case p == "" || hasControl(p):
		return ""
	case ext == ".zip":
		return "unzip -l " + bundle.ShellArg(p)
	}
	return "tar -tvzf " + bundle.ShellArg(p)
}

// extractArchiveFile is fetchArchive but for the hint of a refusal.
func (f *fetcher) extractArchiveFile(s *spec, res *Result) error {
	dir, err := f.scratchDir()
	if err != nil {
		return err
	}
	if err := f.scratch.Mkdir(dir, 0o700); err != nil {
		return err
	}
	// The copy is written and read back through the scratch directory
	// held open: what is hashed is what is extracted.
	file := dir + "/archive"
	sum, err := f.download(s, file)
	if err != nil {
		return err
	}
	if sum != s.sha256 {
		return &Error{Source: s.display, Reason: fmt.Sprintf("the archive's sha256 is %s, not the pinned %s; nothing was extracted", sum, s.sha256), Err: ErrPinMismatch}
	}
	t, err := f.newTree("archive", s.display, false)
	if err != nil {
		return err
	}
	defer t.close()
	loc := s.url
	if loc == "" {
		loc = s.path
	}
	if err := checkArchiveFormat(f.scratch, file, archiveExt(loc), s.display, s.path); err != nil {
		return err
	}
	var a archiveReader
	if archiveExt(loc) == ".zip" {
		a, err = openZipIn(f.ctx, f.scratch, file, f.lim.MaxEntries)
	} else {
		// Room for a few global headers beyond the members (git archive
		// and GitHub tarballs carry one); extractArchive counts members.
		a = &tarGz{ctx: f.ctx, in: f.scratch, file: file, maxHeaders: f.lim.MaxEntries + 16, maxBytes: tarStreamBound(f.lim)}
	}
	if err != nil {
		var tm *tooManyMembers
		if errors.As(err, &tm) {
			return &Error{Source: s.display, Reason: tm.Error(), Err: ErrRefused}
		}
		return &Error{Source: s.display, Reason: "not a valid zip archive: " + bundle.Sanitize(err.Error()), Err: ErrRefused, Fix: dumpHead(s.path)}
	}
	defer a.close()
	if err := extractArchive(t, a, s.subdir); err != nil {
		if f.ctx.Err() != nil {
			return f.ctxError(s.display)
		}
		return err
	}
	if err := t.finish(); err != nil {
		return err
	}
	res.Source = Resolved{Kind: KindArchive, URL: s.url, Path: s.path, SHA256: s.sha256, Subdir: s.subdir}
	res.archiveRoot = t.archiveRoot
	return nil
}

// checkArchiveFormat refuses an archive whose first bytes are those of
// the other format than its name says (a zip named .tar.gz, a tar.gz
// named .zip), saying so: the name decides how it is read, and the
// reader's own error ("gzip: invalid header") would not say why.
// For a local archive (path), the hint lists it as what it is.
func checkArchiveFormat(in *os.Root, file, ext, display, path string) error {
	fd, err := in.Open(file)
	if err != nil {
		return err
	}
	defer fd.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(fd, head)
	head = head[:n]
	isZip := bytes.HasPrefix(head, []byte("PK\x03\x04")) || bytes.HasPrefix(head, []byte("PK\x05\x06"))
	isGzip := bytes.HasPrefix(head, []byte{0x1f, 0x8b})
	tarKind := otherTar(head)
	switch {
	case ext == ".zip" && isGzip:
		return &Error{Source: display, Reason: "the file is gzip-compressed (a .tar.gz), not a zip archive, though its name ends in .zip; bundlectl reads an archive as its name says", Err: ErrRefused, Fix: listAs(".tar.gz", path)}
	case ext != ".zip" && isZip:
		return &Error{Source: display, Reason: "the file is a zip archive, not a gzip-compressed tar, though its name ends in " + ext + "; bundlectl reads an archive as its name says", Err: ErrRefused, Fix: listAs(".zip", path)}
	case tarKind != "" && (ext == ".zip" || !isGzip):
		// tar -tvzf (the hint of a .tar.gz) fails on it as gzip does;
		// tar -tvf finds the compression itself.
		return &Error{Source: display, Reason: "the file is " + tarKind + ", not " + map[bool]string{true: "a zip archive", false: "a gzip-compressed tar"}[ext == ".zip"] + ", though its name ends in " + ext + "; bundlectl reads only .tar.gz, .tgz and .zip archives, as their names say", Err: ErrRefused, Fix: listTar(path)}
	case ext != ".zip" && !isGzip:
		return &Error{Source: display, Reason: "the file is not gzip-compressed (it does not start as a gzip stream does), though its name ends in " + ext + "; bundlectl reads an archive as its name says", Err: ErrRefused, Fix: dumpHead(path)}
	}
	return nil
}

// otherTar names the tar archive head (a file's first 512 bytes) starts,
// other than a gzip-compressed one: uncompressed, or compressed with xz,
// bzip2 or zstd; "" for none of them.
func otherTar(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\xfd7zXZ\x00")):
		return "xz-compressed (a .tar.xz)"
	case bytes.HasPrefix(head, []byte("BZh")):
		return "bzip2-compressed (a .tar.bz2)"
	case bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return "zstd-compressed (a .tar.zst)"
	case len(head) >= 263 && bytes.Equal(head[257:262], []byte("ustar")):
		return "an uncompressed tar archive (a .tar)"
	}
	return ""
}

// listTar is the command that lists the local tar archive p whatever its
// compression ("" for no local archive).
func listTar(p string) string {
	if p == "" || hasControl(p) {
		return ""
	}
	return "tar -tvf " + bundle.ShellArg(p)
}

// dumpHead is the command that shows the first bytes of the local file p,
// where what it is shows ("" for no local file).
func dumpHead(p string) string {
	if p == "" || hasControl(p) {
		return ""
	}
	return "od -c -N 64 " + bundle.ShellArg(p)
}

// download copies the archive into file (a name in the scratch
// directory), at most the total-size bound
// plus 64 MiB, and returns its sha256. Only the copy is read afterwards,
// so the bytes extracted are the bytes hashed.
func (f *fetcher) download(s *spec, file string) (string, error) {
	max := f.lim.MaxTotalBytes + 64<<20
	var in io.Reader
	if s.url != "" {
		client := testOnlyHTTPClient
		if client == nil {
			client = &http.Client{}
		}
		c := *client
		c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return fmt.Errorf("too many redirects: %w", ErrRefused)
			}
			if req.URL.Scheme != "https" {
				return fmt.Errorf("a redirect left https: %w", ErrRefused)
			}
			return nil
		}
		req, err := http.NewRequestWithContext(f.ctx, http.MethodGet, s.url, nil)
		if err != nil {
			return "", invalid(s.display, "%v", err)
		}
		// The bytes as the file holds them: a .tar.gz served with
		// Content-Encoding: gzip (Apache's AddEncoding, some CDNs) is
		// otherwise decompressed by the client, which asked for gzip
		// itself, and the pin, a hash of the file, never matches.
		req.Header.Set("Accept-Encoding", "identity")
		resp, err := c.Do(req)
		if err != nil {
			if f.ctx.Err() != nil {
				return "", f.ctxError(s.display)
			}
			return "", &Error{Source: s.display, Reason: "download failed: " + downloadErr(err), Err: err}
		}
		defer resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusNotFound:
			return "", &Error{Source: s.display, Reason: "the server answered 404 Not Found", Err: ErrNotFound}
		case resp.StatusCode != http.StatusOK:
			return "", &Error{Source: s.display, Reason: fmt.Sprintf("the server answered %d", resp.StatusCode), Err: ErrNotFound}
		}
		in = resp.Body
	} else {
		fd, err := os.OpenFile(s.path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			return "", &Error{Source: s.display, Reason: errText(err), Err: err}
		}
		defer fd.Close()
		fi, err := fd.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return "", &Error{Source: s.display, Reason: "not a regular file", Err: ErrRefused}
		}
		in = fd
	}
	out, err := f.scratch.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	defer out.Close()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), io.LimitReader(in, max+1))
	if err != nil {
		if f.ctx.Err() != nil {
			return "", f.ctxError(s.display)
		}
		return "", &Error{Source: s.display, Reason: "download failed: " + downloadErr(err), Err: err}
	}
	if n > max {
		return "", &Error{Source: s.display, Reason: fmt.Sprintf("the archive is larger than %d bytes", max), Err: ErrRefused}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// downloadErr describes a failed request without its URL's userinfo,
// query or fragment: a redirect's target is often a signed URL whose
// query is a credential.
func downloadErr(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return strings.TrimSpace(bundle.Sanitize(ue.Op + " " + strconv.Quote(redact(ue.URL)) + ": " + ue.Err.Error()))
	}
	return strings.TrimSpace(bundle.Sanitize(err.Error()))
}

// member is one archive entry as the archive declares it.
type member struct {
	name string
	typ  byte // tar type flag; zip entries are mapped onto it
	size int64
	exec bool
}

// archiveReader walks an archive's members in order; open reads one.
type archiveReader interface {
	each(fn func(m member, r io.Reader) error) error
	close()
}

// tarGz reads a gzip-compressed tar archive. Each pass decompresses the
// whole stream, so each is bounded: by ctx (the fetch's deadline), by
// maxBytes of decompressed stream, and by maxHeaders of the headers
// tar.Reader returns (members and global headers; the PAX and GNU headers
// it consumes itself count only against maxBytes).
type tarGz struct {
	ctx        context.Context
	in         *os.Root // file is a name in it (nil: a path)
	file       string
	maxHeaders int
	maxBytes   int64
}

// tarStreamBound is the most decompressed tar stream an archive within
// the limits needs: its files, plus per member room for its header
// blocks (a PAX header with a long path and extended attributes, a GNU
// long name) and padding.
func tarStreamBound(lim bundle.Limits) int64 {
	lim = lim.WithDefaults()
	return lim.MaxTotalBytes + int64(lim.MaxEntries+1)*(64<<10)
}

func (a *tarGz) close() {}

func (a *tarGz) each(fn func(member, io.Reader) error) error {
	fd, err := openIn(a.in, a.file)
	if err != nil {
		return err
	}
	defer fd.Close()
	gz, err := gzip.NewReader(fd)
	if err != nil {
		return fmt.Errorf("not a gzip stream: %w", err)
	}
	br := &boundedReader{ctx: a.ctx, r: gz, left: a.maxBytes}
	tr := tar.NewReader(br)
	headers := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if br.err != nil {
			return br.err
		}
		if err != nil && !errors.Is(err, tar.ErrInsecurePath) {
			return fmt.Errorf("not a valid tar archive: %w", err)
		}
		if headers++; headers > a.maxHeaders {
			return &tooManyMembers{max: a.maxHeaders, what: "members and global headers"}
		}
		if h.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		typ := h.Typeflag
		if typ == tar.TypeRegA {
			typ = tar.TypeReg
		}
		if err := fn(member{name: h.Name, typ: typ, size: h.Size, exec: h.Mode&0o111 != 0}, tr); err != nil {
			if br.err != nil {
				return br.err
			}
			return err
		}
	}
}

// tooManyMembers refuses an archive with more members than the entry
// limit, counted before they are read (a zip's directory records, every
// tar header).
type tooManyMembers struct {
	max  int
	what string // "members" when empty
}

func (e *tooManyMembers) Error() string {
	what := e.what
	if what == "" {
		what = "members"
	}
	return fmt.Sprintf("the archive has more than %d %s", e.max, what)
}

// boundedReader stops a decompression at ctx's end or after left bytes,
// and remembers why in err.
type boundedReader struct {
	ctx  context.Context
	r    io.Reader
	left int64
	err  error
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if err := b.ctx.Err(); err != nil {
		b.err = err
		return 0, err
	}
	if b.left <= 0 {
		b.err = errors.New("the archive unpacks to more than its files and headers can need within the limits")
		return 0, b.err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

type zipArchive struct {
	ctx context.Context
	fd  *os.File
	zr  *zip.Reader
}

// openZip opens a zip archive whose central directory holds at most
// maxEntries records. zip.NewReader builds every record it finds, however
// many the archive declares, before any limit could apply: the records
// are counted first, where it will read them (zipRecords).
func openZip(ctx context.Context, file string, maxEntries int) (*zipArchive, error) {
	return openZipIn(ctx, nil, file, maxEntries)
}

// openZipIn is openZip of the entry file of in (nil: the path file).
func openZipIn(ctx context.Context, in *os.Root, file string, maxEntries int) (*zipArchive, error) {
	fd, err := openIn(in, file)
	if err != nil {
		return nil, err
	}
	fi, err := fd.Stat()
	if err != nil {
		fd.Close()
		return nil, err
	}
	if n, err := zipRecords(fd, fi.Size(), maxEntries+1); err == nil && n > maxEntries {
		fd.Close()
		return nil, &tooManyMembers{max: maxEntries}
	}
	zr, err := zip.NewReader(fd, fi.Size())
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		fd.Close()
		return nil, err
	}
	return &zipArchive{ctx: ctx, fd: fd, zr: zr}, nil
}

// openIn opens name for reading: in r, or as a path when r is nil.
func openIn(r *os.Root, name string) (*os.File, error) {
	if r == nil {
		return os.Open(name)
	}
	return r.Open(name)
}

// zipRecords counts the central directory records zip.NewReader would
// read from r, stopping at limit: it finds the directory as the reader does
// (the end record in the last 64 KiB, its zip64 form, the base offset of
// an archive with a prefix) and walks the records' fixed headers and
// lengths without keeping them. An error means zip.NewReader will fail
// too.
func zipRecords(r io.ReaderAt, size int64, limit int) (int, error) {
	const (
		endLen    = 22
		loc64Len  = 20
		end64Len  = 56
		recordLen = 46
	)
	var tail []byte
	endOff := int64(-1)
	for _, n := range []int64{1024, 65 * 1024} {
		n = min(n, size)
		tail = make([]byte, n)
		if _, err := r.ReadAt(tail, size-n); err != nil && err != io.EOF {
			return 0, err
		}
		for i := len(tail) - endLen; i >= 0; i-- {
			if tail[i] == 'P' && tail[i+1] == 'K' && tail[i+2] == 5 && tail[i+3] == 6 {
				if c := int(binary.LittleEndian.Uint16(tail[i+endLen-2:])); i+endLen+c > len(tail) {
					break // a truncated comment: the reader gives up here too
				}
				endOff, tail = size-n+int64(i), tail[i:]
				break
			}
		}
		if endOff >= 0 || n == size {
			break
		}
	}
	if endOff < 0 {
		return 0, zip.ErrFormat
	}
	records := uint64(binary.LittleEndian.Uint16(tail[10:]))
	dirSize := uint64(binary.LittleEndian.Uint32(tail[12:]))
	dirOff := uint64(binary.LittleEndian.Uint32(tail[16:]))
	if records == 0xffff || dirSize == 0xffff || dirOff == 0xffffffff {
		if loc := endOff - loc64Len; loc >= 0 {
			b := make([]byte, loc64Len)
			if _, err := r.ReadAt(b, loc); err != nil {
				return 0, err
			}
			if binary.LittleEndian.Uint32(b) == 0x07064b50 && binary.LittleEndian.Uint32(b[4:]) == 0 && binary.LittleEndian.Uint32(b[16:]) == 1 {
				p := int64(binary.LittleEndian.Uint64(b[8:]))
				e := make([]byte, end64Len)
				if _, err := r.ReadAt(e, p); err != nil {
					return 0, err
				}
				if binary.LittleEndian.Uint32(e) != 0x06064b50 {
					return 0, zip.ErrFormat
				}
				endOff = p
				dirSize = binary.LittleEndian.Uint64(e[40:])
				dirOff = binary.LittleEndian.Uint64(e[48:])
			}
		}
	}
	if dirSize > 1<<63-1 || dirOff > 1<<63-1 {
		return 0, zip.ErrFormat
	}
	base := endOff - int64(dirSize) - int64(dirOff)
	if o := base + int64(dirOff); o < 0 || o >= size {
		return 0, zip.ErrFormat
	}
	hdr := make([]byte, recordLen)
	isRecord := func(off int64) bool {
		_, err := r.ReadAt(hdr, off)
		return err == nil && binary.LittleEndian.Uint32(hdr) == 0x02014b50
	}
	count := func(off int64) int {
		n := 0
		for ; n < limit && isRecord(off); n++ {
			off += recordLen + int64(binary.LittleEndian.Uint16(hdr[28:])) + int64(binary.LittleEndian.Uint16(hdr[30:])) + int64(binary.LittleEndian.Uint16(hdr[32:]))
		}
		return n
	}
	n := count(base + int64(dirOff))
	if base > 0 {
		// The reader starts at offset 0 instead when it finds a record
		// there; it checks more than the signature, so count both.
		n = max(n, count(int64(dirOff)))
	}
	return n, nil
}

func (a *zipArchive) close() { a.fd.Close() }

func (a *zipArchive) each(fn func(member, io.Reader) error) error {
	for _, zf := range a.zr.File {
		if err := a.ctx.Err(); err != nil {
			return err
		}
		m := member{name: zf.Name, size: int64(zf.UncompressedSize64), exec: zf.Mode().Perm()&0o111 != 0}
		mode := zf.Mode()
		switch {
		case strings.HasSuffix(zf.Name, "/") || mode.IsDir():
			m.typ = tar.TypeDir
		case mode&os.ModeSymlink != 0:
			m.typ = tar.TypeSymlink
		case mode&os.ModeDevice != 0 || mode&os.ModeCharDevice != 0:
			m.typ = tar.TypeChar
		case mode&os.ModeNamedPipe != 0:
			m.typ = tar.TypeFifo
		case mode&os.ModeSocket != 0:
			m.typ = 's'
		case mode.IsRegular():
			m.typ = tar.TypeReg
		default:
			m.typ = '?'
		}
		if zf.UncompressedSize64 > 1<<62 {
			m.size = 1 << 62
		}
		var r io.Reader = strings.NewReader("")
		var rc io.ReadCloser
		if m.typ == tar.TypeReg {
			var err error
			rc, err = zf.Open()
			if err != nil {
				return fmt.Errorf("member %s: %w", bundle.Quote(zf.Name), err)
			}
			r = rc
		}
		err := fn(m, r)
		if rc != nil {
			rc.Close()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// extractArchive checks every member of a (names, types, counts and
// sizes, against the bundle limits, whether it will be extracted or not),
// picks the bundle root (sub, else a single wrapping directory that holds
// a manifest, else the archive root), then extracts the members below it.
func extractArchive(t *tree, a archiveReader, sub string) error {
	seen := map[string]bool{} // every member and every implied parent
	dirs := map[string]bool{}
	n := 0
	var total int64
	err := a.each(func(m member, _ io.Reader) error {
		c, err := t.clean(m.name)
		if err != nil {
			return err
		}
		switch m.typ {
		case tar.TypeReg, tar.TypeDir:
		case tar.TypeSymlink, tar.TypeLink:
			return t.refuse(m.name, "links are not allowed in an archive")
		case tar.TypeChar, tar.TypeBlock:
			return t.refuse(m.name, "device files are not allowed in an archive")
		case tar.TypeFifo:
			return t.refuse(m.name, "named pipes (FIFOs) are not allowed in an archive")
		default:
			return t.refuse(m.name, "unsupported archive member type %q", string(m.typ))
		}
		if n++; n > t.lim.MaxEntries {
			return t.refuse(m.name, "the archive has more than %d members", t.lim.MaxEntries)
		}
		if m.typ == tar.TypeReg {
			if m.size < 0 || m.size > t.lim.MaxFileBytes {
				return t.refuse(m.name, "the file is %d bytes, larger than the limit of %d", m.size, t.lim.MaxFileBytes)
			}
			if total += m.size; total > t.lim.MaxTotalBytes {
				return t.refuse(m.name, "the archive's files exceed the limit of %d bytes in total", t.lim.MaxTotalBytes)
			}
		}
		if c == "" {
			return nil
		}
		seen[c] = true
		if m.typ == tar.TypeDir {
			dirs[c] = true
		}
		for d := c; strings.Contains(d, "/"); {
			d = d[:strings.LastIndexByte(d, '/')]
			seen[d], dirs[d] = true, true
		}
		return nil
	})
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return err
		}
		return t.refuse(".", "%s", bundle.Sanitize(err.Error()))
	}
	var tops []string
	for p := range seen {
		if !strings.Contains(p, "/") && !ignoredTop[p] {
			tops = append(tops, p)
		}
	}
	wrapper := ""
	if len(tops) == 1 && dirs[tops[0]] {
		wrapper = tops[0]
	}
	prefix := ""
	switch {
	case sub != "":
		switch {
		case dirs[sub]:
			prefix = sub
		case wrapper != "" && dirs[wrapper+"/"+sub]:
			prefix = wrapper + "/" + sub
		default:
			return &Error{Source: t.src, Path: sub, Reason: "no such directory in the archive", Err: ErrNotFound}
		}
	case wrapper != "":
		for _, mk := range manifestMarkers {
			if seen[wrapper+"/"+mk] {
				prefix = wrapper
				break
			}
		}
	}
	t.archiveRoot = prefix
	return a.each(func(m member, r io.Reader) error {
		c, err := t.clean(m.name)
		if err != nil {
			return err
		}
		rel, ok := under(c, prefix)
		if !ok || rel == "" {
			return nil
		}
		if m.typ == tar.TypeDir {
			return t.dir(rel)
		}
		return t.file(rel, m.size, m.exec, r)
	})
}

// under returns p relative to prefix, and whether p is prefix or below it.
func under(p, prefix string) (string, bool) {
	if prefix == "" {
		return p, true
	}
	if p == prefix {
		return "", true
	}
	if strings.HasPrefix(p, prefix+"/") {
		return p[len(prefix)+1:], true
	}
	return "", false
}
