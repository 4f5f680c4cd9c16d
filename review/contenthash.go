package review

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/receipts"
	"github.com/zeebo/blake3"
	"golang.org/x/sys/unix"
)

// hashBufSize is the read buffer each hashing worker reuses for files
// below mmapMinSize. zeebo/blake3 (AVX2, 8 chunks at a time) ran fastest
// with 256 KiB writes in BenchmarkFileDigestBuffer; 16 KiB was ~25% slower.
const hashBufSize = 256 << 10

// mmapMinSize is the size from which a file is hashed from a read-only
// memory mapping instead of read into the buffer: it saves copying the
// content out of the page cache, which for large files costs about half
// as much CPU as hashing it (bench/hash.sh, docs/hashing.md).
const mmapMinSize = 1 << 20

// testOnlyBeforeRead runs after a file was opened (and mapped) and before
// its content is read; testOnlyAfterRead after it was read and before it
// is re-checked. Tests modify the file in those windows.
var testOnlyBeforeRead, testOnlyAfterRead func(rel string)

// ErrTreeInvalid is wrapped when a tree cannot be hashed because its walk
// reported errors: a hash of a partly walked tree would bind nothing.
var ErrTreeInvalid = errors.New("the bundle tree did not walk cleanly")

// TreeError refuses to hash a tree whose walk report had errors.
type TreeError struct {
	Dir      string
	Findings []bundle.Finding
}

func (e *TreeError) Error() string {
	msg := fmt.Sprintf("content hash: %s: %v (%d finding(s))", bundle.Quote(e.Dir), ErrTreeInvalid, len(e.Findings))
	if len(e.Findings) > 0 {
		msg += "; first: " + bundle.Sanitize(e.Findings[0].String())
	}
	return msg
}
func (e *TreeError) Unwrap() error { return ErrTreeInvalid }

// HashError is a failure to hash one file. When the file is not the one
// the walk recorded (changed, replaced, removed), Err wraps
// bundle.ErrChanged.
type HashError struct {
	Path string // relative to the bundle root
	Err  error
	Root string // the tree's root, when known (for Hint)
}

// Hint is the command that makes a file the walk found but cannot open
// readable; "" for any other failure.
func (e *HashError) Hint() string {
	if e.Root == "" || !errors.Is(e.Err, fs.ErrPermission) {
		return ""
	}
	p := filepath.Join(e.Root, filepath.FromSlash(e.Path))
	// Only the file's owner can chmod it: for another owner's file the
	// command would fail as printed.
	if fi, err := os.Lstat(p); err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
			return ""
		}
	}
	return "chmod u+r " + bundle.ShellArg(p)
}

func (e *HashError) Error() string {
	var ce *bundle.ChangedError
	if errors.As(e.Err, &ce) {
		return fmt.Sprintf("content hash: %s: %s since the walk", bundle.EscapePath(e.Path), ce.Reason)
	}
	return fmt.Sprintf("content hash: %s: %s", bundle.EscapePath(e.Path), bundle.Sanitize(e.Err.Error()))
}
func (e *HashError) Unwrap() error { return e.Err }

// Hash returns the content hash of a loaded bundle. It refuses a bundle
// without a tree or one that is rejected (any Error finding, which includes
// every tree rule), since its walk may be incomplete.
func Hash(b *bundle.Bundle) (receipts.Digest, error) {
	if b.Tree == nil || b.Rejected() {
		return receipts.Digest{}, &TreeError{Dir: b.Dir, Findings: errorFindings(b.Report)}
	}
	return ContentHash(b.Tree)
}

// HashDir walks dir with lim and returns its content hash and the walked
// tree. It refuses a tree whose walk reported any error.
func HashDir(dir string, lim bundle.Limits) (receipts.Digest, *bundle.Tree, error) {
	t, rep := bundle.Walk(dir, lim)
	if t == nil || rep.Rejected() {
		return receipts.Digest{}, t, &TreeError{Dir: dir, Findings: errorFindings(rep)}
	}
	d, err := ContentHash(t)
	return d, t, err
}

func errorFindings(r bundle.Report) []bundle.Finding {
	var out []bundle.Finding
	for _, f := range r.Findings {
		if f.Severity == bundle.Error {
			out = append(out, f)
		}
	}
	return out
}

// ContentHash returns the "bundle tree v1" hash (see TreeHasher) of a
// walked tree. An accepted link is recorded with its target and never
// opened: its target is hashed as the file it is. t must come from a walk whose report had no errors (Hash and
// HashDir check that). Every regular file is opened with a bundle.Opener,
// which follows no link and checks that each directory on the way and the
// file are the walked inodes, read, and then re-checked with
// bundle.RecheckFD: a file that changed since the walk fails
// the hash with an error wrapping bundle.ErrChanged, so the result is
// always the hash of exactly the walked tree, never a mix.
func ContentHash(t *bundle.Tree) (receipts.Digest, error) {
	d, _, err := hashTree(t, false)
	return d, err
}

// TreeRecords returns the records of the content hash in hash order, and
// the hash. It is ContentHash for test vectors and debugging.
func TreeRecords(t *bundle.Tree) ([][]byte, receipts.Digest, error) {
	d, recs, err := hashTree(t, true)
	return recs, d, err
}

func hashTree(t *bundle.Tree, keep bool) (receipts.Digest, [][]byte, error) {
	digests, err := fileDigests(t)
	if err != nil {
		var he *HashError
		if errors.As(err, &he) && he.Root == "" {
			he.Root = t.Root
		}
		return receipts.Digest{}, nil, err
	}
	th := NewTreeHasher()
	var recs [][]byte
	for i, e := range t.Entries {
		switch e.Kind {
		case bundle.KindDir, bundle.KindFile, bundle.KindExec:
		case bundle.KindLink:
			// The walk keeps a link only when its target is a walked
			// regular file; a tree built otherwise is not hashed.
			if te, ok := t.Lookup(e.Target); !ok || !te.Kind.Regular() {
				return receipts.Digest{}, nil, &HashError{Path: e.Path, Err: fmt.Errorf("link target %s is not a walked regular file", bundle.Quote(e.Target))}
			}
		default:
			return receipts.Digest{}, nil, &HashError{Path: e.Path, Err: fmt.Errorf("unknown entry kind %q", e.Kind)}
		}
		if err := th.AddEntry(e, digests[i]); err != nil {
			return receipts.Digest{}, nil, err
		}
		if keep {
			recs = append(recs, EntryRecord(e, digests[i]))
		}
	}
	return th.Sum(), recs, nil
}

// fileDigests hashes every regular file of t on GOMAXPROCS workers and
// returns the digests indexed like t.Entries. The first failure stops
// every worker; of the failures seen, the earliest in tree order is
// returned.
func fileDigests(t *bundle.Tree) ([]receipts.Digest, error) {
	files := make([]int, 0, t.Files)
	for i, e := range t.Entries {
		if e.Kind.Regular() {
			files = append(files, i) // a link has no content of its own
		}
	}
	digests := make([]receipts.Digest, len(t.Entries))
	workers := min(runtime.GOMAXPROCS(0), len(files))
	// Workers take runs of consecutive files, so that the files of one
	// directory mostly go to one worker and its Opener opens the
	// directory once; runs stay short enough to share the work evenly.
	batch := max(1, min(32, len(files)/(8*max(workers, 1))))
	var (
		next    atomic.Int64
		stop    atomic.Bool
		mu      sync.Mutex
		errAt   = len(t.Entries)
		lastErr error
	)
	work := func() {
		w := newFileHasher()
		w.op = t.NewOpener()
		defer w.op.Close()
		for !stop.Load() {
			start := int(next.Add(int64(batch))) - batch
			if start >= len(files) {
				return
			}
			for _, i := range files[start:min(start+batch, len(files))] {
				if stop.Load() {
					return
				}
				d, err := w.digest(t.Entries[i])
				if err != nil {
					mu.Lock()
					if i < errAt {
						errAt, lastErr = i, err
					}
					mu.Unlock()
					stop.Store(true)
					return
				}
				digests[i] = d
			}
		}
	}
	switch {
	case len(files) == 0:
	case workers <= 1:
		work()
	default:
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() { defer wg.Done(); work() }()
		}
		wg.Wait()
	}
	if lastErr != nil {
		return nil, lastErr
	}
	return digests, nil
}

// fileHasher is one worker's reusable state: a read buffer and a hasher.
type fileHasher struct {
	buf []byte
	h   *blake3.Hasher
	op  *bundle.Opener
}

func newFileHasher() *fileHasher { return newFileHasherSize(hashBufSize) }

func newFileHasherSize(n int) *fileHasher {
	return &fileHasher{buf: make([]byte, n), h: blake3.New()}
}

// digest hashes the walked regular file e. It reads exactly e.Size bytes:
// the open checked the size and bundle.RecheckFD checks size and times
// after the read, so a file that grew or shrank is refused either way.
func (w *fileHasher) digest(e bundle.Entry) (receipts.Digest, error) {
	var d receipts.Digest
	fd, _, err := w.op.OpenFD(e.Path)
	if err != nil {
		return d, &HashError{Path: e.Path, Err: asChanged(e.Path, err)}
	}
	defer unix.Close(fd)
	w.h.Reset()
	if e.Size >= mmapMinSize {
		err = w.hashMapped(fd, e)
	} else {
		err = w.hashRead(fd, e)
	}
	if err != nil {
		return d, err
	}
	if testOnlyAfterRead != nil {
		testOnlyAfterRead(e.Path)
	}
	if err := bundle.RecheckFD(fd, e); err != nil {
		return d, &HashError{Path: e.Path, Err: err}
	}
	w.h.Sum(d[:0])
	return d, nil
}

// hashRead streams exactly e.Size bytes of fd through the worker's buffer.
func (w *fileHasher) hashRead(fd int, e bundle.Entry) error {
	if testOnlyBeforeRead != nil {
		testOnlyBeforeRead(e.Path)
	}
	for left := e.Size; left > 0; {
		n := int64(len(w.buf))
		if left < n {
			n = left
		}
		k, err := unix.Read(fd, w.buf[:n])
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return &HashError{Path: e.Path, Err: &os.PathError{Op: "read", Path: e.Path, Err: err}}
		case k == 0:
			return &HashError{Path: e.Path, Err: &bundle.ChangedError{Path: e.Path, Reason: "truncated"}}
		}
		w.h.Write(w.buf[:k])
		left -= int64(k)
	}
	return nil
}

// hashMapped hashes e.Size bytes of fd from a read-only shared mapping. A
// file truncated while it is mapped makes the access fault (SIGBUS); with
// SetPanicOnFault that is a panic in this goroutine, recovered here and
// reported as a change. A file that cannot be mapped is read instead.
func (w *fileHasher) hashMapped(fd int, e bundle.Entry) (err error) {
	if int64(int(e.Size)) != e.Size {
		return w.hashRead(fd, e)
	}
	// MAP_POPULATE maps the whole file up front instead of faulting it in
	// page by page, which measured cheaper than both faulting and read.
	data, merr := unix.Mmap(fd, 0, int(e.Size), unix.PROT_READ, mapFlags)
	if merr != nil {
		return w.hashRead(fd, e)
	}
	defer unix.Munmap(data)
	if testOnlyBeforeRead != nil {
		testOnlyBeforeRead(e.Path)
	}
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); !fault {
				panic(r)
			}
			err = &HashError{Path: e.Path, Err: &bundle.ChangedError{Path: e.Path, Reason: "truncated"}}
		}
	}()
	w.h.Write(data)
	return nil
}

// asChanged turns the errors of opening a path that no longer leads to a
// regular file (removed, or a component replaced by a link or a file) into
// a ChangedError.
func asChanged(rel string, err error) error {
	if errors.Is(err, bundle.ErrChanged) {
		return err
	}
	var pe *fs.PathError
	var errno syscall.Errno
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.ENOTDIR):
		return &bundle.ChangedError{Path: rel, Reason: "removed or replaced"}
	case errors.As(err, &pe) || errors.As(err, &errno):
		return err // an I/O failure, not a change
	}
	// bundle.OpenNoFollow's own refusals: the path now leads to something
	// that is not a regular file.
	return &bundle.ChangedError{Path: rel, Reason: "no longer a regular file"}
}
