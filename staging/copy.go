package staging

import (
	"errors"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/receipts"
	"github.com/bundlectl/bundlectl/review"
	"github.com/zeebo/blake3"
	"golang.org/x/sys/unix"
)

// bufSize is each worker's read buffer. Large enough that BLAKE3 hashes
// many chunks per call and a big file needs few system calls.
const bufSize = 1 << 20

// Test seams, nil outside tests.
var (
	// testOnlyBeforeCopy runs after Stage checked the tree and before it
	// reads the source, so a test can change the source between walk and copy.
	testOnlyBeforeCopy func()
	// testOnlyAfterOpen runs after a source file was opened and identity-
	// checked, before it is read.
	testOnlyAfterOpen func(rel string)
)

// workers is how many files are copied and hashed at once.
func workers() int {
	n := 2 * runtime.GOMAXPROCS(0)
	return min(max(n, 2), 8)
}

// worker holds one goroutine's reused buffer and hasher.
type worker struct {
	buf []byte
	h   *blake3.Hasher
}

// forEachFile runs fn for every regular file of t on a small pool of
// workers. Once one call fails the remaining files are skipped; the error
// returned is the failure of the lowest entry, so it does not depend on
// scheduling more than it must.
func forEachFile(t *bundle.Tree, fn func(w *worker, i int) error) error {
	var idx []int
	for i, e := range t.Entries {
		if e.Kind != bundle.KindDir {
			idx = append(idx, i)
		}
	}
	// Tree.Lookup builds its index lazily and without a lock: build it
	// here, before the workers call Tree.Open concurrently.
	t.Lookup("")
	errs := make([]error, len(t.Entries))
	var failed atomic.Bool
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(workers(), max(len(idx), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &worker{buf: make([]byte, bufSize), h: blake3.New()}
			for i := range jobs {
				if failed.Load() {
					continue
				}
				if err := fn(w, i); err != nil {
					errs[i] = err
					failed.Store(true)
				}
			}
		}()
	}
	for _, i := range idx {
		if failed.Load() {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// digestCopy streams in (the walked entry e) through w's hasher and, when
// out is not nil, into out: every byte hashed is a byte written. It reads
// at most one byte beyond the walked size, so a file that grows is refused
// without being read further, and it adds what it read to total, refusing
// once total passes maxTotal.
func digestCopy(w *worker, in, out *os.File, e bundle.Entry, total *atomic.Int64, maxTotal int64) (receipts.Digest, error) {
	var d receipts.Digest
	w.h.Reset()
	var n int64
	for {
		b := w.buf
		if rest := e.Size + 1 - n; int64(len(b)) > rest {
			b = b[:rest]
		}
		m, err := in.Read(b)
		if m > 0 {
			n += int64(m)
			if n > e.Size {
				return d, changed(e.Path, "grew while it was copied")
			}
			if t := total.Add(int64(m)); t > maxTotal {
				return d, &LimitError{Path: e.Path, Bound: "total bytes", Value: t, Max: maxTotal}
			}
			w.h.Write(b[:m])
			if out != nil {
				if _, err := out.Write(b[:m]); err != nil {
					return d, err
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return d, &os.PathError{Op: "read", Path: e.Path, Err: err}
		}
	}
	if n != e.Size {
		return d, changed(e.Path, "shrank while it was copied")
	}
	if err := bundle.Recheck(in, e); err != nil {
		return d, err
	}
	copy(d[:], w.h.Sum(nil))
	return d, nil
}

// openSource opens a walked file through the tree (no link followed, the
// inode checked against the walk) and turns the refusals of a swapped path
// into the ErrChanged they are.
func openSource(t *bundle.Tree, e bundle.Entry) (*os.File, error) {
	f, _, err := t.Open(e.Path)
	if err == nil {
		return f, nil
	}
	var ce *bundle.ChangedError
	switch {
	case errors.As(err, &ce):
		return nil, err
	case errors.Is(err, unix.ELOOP):
		return nil, changed(e.Path, "a path element is now a symbolic link")
	case errors.Is(err, unix.ENOTDIR):
		return nil, changed(e.Path, "a path element is no longer a directory")
	case errors.Is(err, unix.ENOENT):
		return nil, changed(e.Path, "removed")
	case errors.Is(err, unix.ENXIO), errors.Is(err, unix.ENODEV):
		return nil, changed(e.Path, "no longer a regular file")
	}
	var pe *os.PathError
	if !errors.As(err, &pe) {
		// OpenNoFollow's own "not a regular file" refusal.
		return nil, changed(e.Path, "no longer a regular file")
	}
	return nil, err
}

// fileMode is the mode a snapshot gives a file of kind k.
func fileMode(k bundle.Kind) os.FileMode {
	if k == bundle.KindExec {
		return 0o500
	}
	return 0o400
}

const dirMode = 0o500

// copyTree copies every entry of src below dst (an empty directory) and
// returns the content hash of the bytes written. Directories are created
// 0700 and files 0600|O_EXCL, never through a link; each file gets its final
// mode (0400 or 0500) once written; directories are left writable for the
// caller to seal.
func copyTree(src *bundle.Tree, dst *os.Root, lim bundle.Limits, fsyncFiles bool) ([]receipts.Digest, receipts.Digest, error) {
	srcfd, err := unix.Open(src.Root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, receipts.Digest{}, &os.PathError{Op: "open", Path: src.Root, Err: err}
	}
	defer unix.Close(srcfd)
	for _, e := range src.Entries {
		if e.Kind != bundle.KindDir {
			continue
		}
		// Directories are never read, only created, but one swapped for
		// a link or another directory is a changed source all the same.
		var st unix.Stat_t
		if err := unix.Fstatat(srcfd, e.Path, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return nil, receipts.Digest{}, changed(e.Path, "no longer reachable as a directory")
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR || uint64(st.Dev) != e.Dev || uint64(st.Ino) != e.Ino {
			return nil, receipts.Digest{}, changed(e.Path, "directory replaced")
		}
		if err := dst.Mkdir(e.Path, 0o700); err != nil {
			return nil, receipts.Digest{}, err
		}
	}
	digests := make([]receipts.Digest, len(src.Entries))
	var total atomic.Int64
	err = forEachFile(src, func(w *worker, i int) error {
		e := src.Entries[i]
		in, err := openSource(src, e)
		if err != nil {
			return err
		}
		defer in.Close()
		if testOnlyAfterOpen != nil {
			testOnlyAfterOpen(e.Path)
		}
		out, err := dst.OpenFile(e.Path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
		if err != nil {
			return err
		}
		d, err := digestCopy(w, in, out, e, &total, lim.MaxTotalBytes)
		if err == nil {
			err = out.Chmod(fileMode(e.Kind))
		}
		if err == nil && fsyncFiles {
			err = out.Sync()
		}
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		digests[i] = d
		return err
	})
	if err != nil {
		return nil, receipts.Digest{}, err
	}
	sum, err := treeSum(src, digests)
	return digests, sum, err
}

// treeSum encodes the records of t, in its sorted order, with the file
// digests computed by the workers.
func treeSum(t *bundle.Tree, digests []receipts.Digest) (receipts.Digest, error) {
	th := review.NewTreeHasher()
	for i, e := range t.Entries {
		if err := th.Add(e.Path, e.Kind, e.Size, digests[i]); err != nil {
			return receipts.Digest{}, err
		}
	}
	return th.Sum(), nil
}
