package review

import (
	"fmt"
	"io"
	"strconv"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/receipts"
	"github.com/zeebo/blake3"
)

// TreeTag starts every "bundle tree v1" hash.
const TreeTag = "bundlectl-tree-v1\x00"

// TreeHasher computes the content hash, "bundle tree v1" (docs/hashing.md):
//
//	BLAKE3-256( "bundlectl-tree-v1\x00" || record... )
//	directory:       "D" path "\x00"
//	regular file:    "F" path "\x00" size "\x00" digest
//	executable file: "X" path "\x00" size "\x00" digest
//	link:            "L" path "\x00" target "\x00"
//
// with one record per entry below the root in ascending byte order of the
// slash-separated relative path, size in decimal and digest the 32 raw bytes
// of BLAKE3-256 of the file's content. A link record is that of an accepted
// symbolic link (bundle.KindLink); target is the path, relative to the
// root, of the regular file it resolves to. Trees without links hash as
// they did before links were accepted. Records must be added in that
// order; Add refuses an entry that is not strictly greater than the
// previous one.
type TreeHasher struct {
	h    *blake3.Hasher
	last string
	n    int
}

// NewTreeHasher starts a content hash.
func NewTreeHasher() *TreeHasher {
	h := blake3.New()
	h.Write([]byte(TreeTag))
	return &TreeHasher{h: h}
}

// Add appends the record of a directory, file or executable; digest is
// ignored for directories. A link is added with AddLink.
func (t *TreeHasher) Add(path string, kind bundle.Kind, size int64, digest receipts.Digest) error {
	switch kind {
	case bundle.KindDir, bundle.KindFile, bundle.KindExec:
	default:
		return fmt.Errorf("tree hash: entry %q: kind %q has no record of this shape", path, kind)
	}
	return t.add(path, Record(path, kind, size, digest))
}

// AddLink appends the record of an accepted link at path whose target is
// the regular file target (relative to the root).
func (t *TreeHasher) AddLink(path, target string) error {
	if target == "" {
		return fmt.Errorf("tree hash: link %q has no target", path)
	}
	return t.add(path, LinkRecord(path, target))
}

// AddEntry appends the record of the walked entry e; digest is the file's
// content digest and ignored for directories and links.
func (t *TreeHasher) AddEntry(e bundle.Entry, digest receipts.Digest) error {
	if e.Kind == bundle.KindLink {
		return t.AddLink(e.Path, e.Target)
	}
	return t.Add(e.Path, e.Kind, e.Size, digest)
}

func (t *TreeHasher) add(path string, rec []byte) error {
	if t.n > 0 && path <= t.last {
		return fmt.Errorf("tree hash: entry %q out of order after %q", path, t.last)
	}
	t.last, t.n = path, t.n+1
	t.h.Write(rec)
	return nil
}

// Record returns the bytes a directory, file or executable contributes to
// the content hash.
func Record(path string, kind bundle.Kind, size int64, digest receipts.Digest) []byte {
	b := make([]byte, 0, len(path)+64)
	b = append(b, byte(kind))
	b = append(b, path...)
	b = append(b, 0)
	if kind == bundle.KindDir {
		return b
	}
	b = strconv.AppendInt(b, size, 10)
	b = append(b, 0)
	return append(b, digest[:]...)
}

// LinkRecord returns the bytes an accepted link contributes to the content
// hash: "L" path NUL target NUL. Neither path nor target can hold a NUL, so
// the record ends unambiguously before the next one's kind byte.
func LinkRecord(path, target string) []byte {
	b := make([]byte, 0, len(path)+len(target)+3)
	b = append(b, byte(bundle.KindLink))
	b = append(b, path...)
	b = append(b, 0)
	b = append(b, target...)
	return append(b, 0)
}

// EntryRecord returns the bytes the walked entry e contributes.
func EntryRecord(e bundle.Entry, digest receipts.Digest) []byte {
	if e.Kind == bundle.KindLink {
		return LinkRecord(e.Path, e.Target)
	}
	return Record(e.Path, e.Kind, e.Size, digest)
}

// Sum returns the content hash of the records added so far.
func (t *TreeHasher) Sum() receipts.Digest {
	var d receipts.Digest
	copy(d[:], t.h.Sum(nil))
	return d
}

// FileDigest streams r through BLAKE3-256 using buf (reused by the caller
// across files, so no file is ever read whole into memory) and returns the
// digest and the number of bytes read.
func FileDigest(r io.Reader, buf []byte) (receipts.Digest, int64, error) {
	h := blake3.New()
	n, err := io.CopyBuffer(h, r, buf)
	var d receipts.Digest
	if err != nil {
		return d, n, err
	}
	copy(d[:], h.Sum(nil))
	return d, n, nil
}
