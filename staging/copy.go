package staging

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
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
	// testOnlyAfterDirs runs once the directories are created, before any
	// file is opened.
	testOnlyAfterDirs func()
	// testOnlyNoOpenat2 makes Linux take the portable path.
	testOnlyNoOpenat2 bool
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

// workerPool keeps buffers across calls: a harness verifies a snapshot
// before every spawn, and should not allocate megabytes each time.
var workerPool = sync.Pool{New: func() any {
	return &worker{buf: make([]byte, bufSize), h: blake3.New()}
}}

// forEachFile runs fn for every regular file of t (not for links) on a
// small pool of workers. Once one call fails the remaining files are skipped; the error
// returned is the failure of the lowest entry, so it does not depend on
// scheduling more than it must.
func forEachFile(t *bundle.Tree, fn func(w *worker, i int) error) error {
	var idx []int
	for i, e := range t.Entries {
		if e.Kind.Regular() {
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
			w := workerPool.Get().(*worker)
			defer workerPool.Put(w)
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

// srcFile is a walked regular file open for reading: through openat2 on
// Linux, otherwise through bundle.Tree.Open (f is then set).
type srcFile struct {
	fd int
	f  *os.File
	e  bundle.Entry
}

// openWalked opens the walked file e of t, without following any link
// and checking that the inode is the walked one. rootfd is t.Root, open.
func openWalked(t *bundle.Tree, rootfd int, e bundle.Entry) (*srcFile, error) {
	if haveOpenat2() {
		fd, err := openWalkedFast(rootfd, e)
		if err != nil {
			return nil, err
		}
		return &srcFile{fd: fd, e: e}, nil
	}
	f, _, err := t.Open(e.Path)
	if err != nil {
		var ce *bundle.ChangedError
		var pe *os.PathError
		switch {
		case errors.As(err, &ce):
			return nil, err
		case errors.As(err, &pe):
			return nil, openRefusal(e.Path, pe.Err)
		}
		// OpenNoFollow's own refusal of what is not a regular file.
		return nil, changed(e.Path, "no longer a regular file")
	}
	return &srcFile{fd: int(f.Fd()), f: f, e: e}, nil
}

// recheck is bundle.Recheck: the file still matches the walk after it was
// read (size, mode, mtime and ctime).
func (s *srcFile) recheck() error {
	if s.f != nil {
		return bundle.Recheck(s.f, s.e)
	}
	return recheckFast(s.fd, s.e)
}

func (s *srcFile) close() {
	if s.f != nil {
		s.f.Close()
		return
	}
	unix.Close(s.fd)
}

// openRefusal turns the errors of a no-follow open of a swapped path into
// the ErrChanged they are.
func openRefusal(rel string, err error) error {
	switch {
	case errors.Is(err, unix.ELOOP):
		return changed(rel, "a path element is now a symbolic link")
	case errors.Is(err, unix.EXDEV):
		return changed(rel, "the path now leads outside the tree")
	case errors.Is(err, unix.ENOTDIR):
		return changed(rel, "a path element is no longer a directory")
	case errors.Is(err, unix.ENOENT):
		return changed(rel, "removed")
	case errors.Is(err, unix.ENXIO), errors.Is(err, unix.ENODEV):
		return changed(rel, "no longer a regular file")
	}
	return &os.PathError{Op: "open", Path: rel, Err: err}
}

// digestCopy streams in through w's hasher and, when out ≥ 0, into the
// descriptor out: every byte hashed is a byte written. It reads at most
// one byte beyond the walked size, so a file that grows is refused without
// being read further, and it adds what it read to total, refusing once
// total passes maxTotal. It rechecks the file after reading it.
func digestCopy(w *worker, in *srcFile, out int, total *atomic.Int64, maxTotal int64) (receipts.Digest, error) {
	var d receipts.Digest
	e := in.e
	w.h.Reset()
	var n int64
	for {
		b := w.buf
		if rest := e.Size + 1 - n; int64(len(b)) > rest {
			b = b[:rest]
		}
		m, err := unix.Read(in.fd, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return d, &os.PathError{Op: "read", Path: e.Path, Err: err}
		}
		if m == 0 {
			break
		}
		n += int64(m)
		if n > e.Size {
			return d, changed(e.Path, "grew")
		}
		if t := total.Add(int64(m)); t > maxTotal {
			return d, &LimitError{Path: e.Path, Bound: "total bytes", Value: t, Max: maxTotal}
		}
		w.h.Write(b[:m])
		if out >= 0 {
			if err := writeAll(out, b[:m]); err != nil {
				return d, &os.PathError{Op: "write", Path: e.Path, Err: err}
			}
		}
	}
	if n != e.Size {
		return d, changed(e.Path, "shrank")
	}
	if err := in.recheck(); err != nil {
		return d, err
	}
	copy(d[:], w.h.Sum(nil))
	return d, nil
}

func writeAll(fd int, b []byte) error {
	for len(b) > 0 {
		m, err := unix.Write(fd, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		b = b[m:]
	}
	return nil
}

// dstFile is a file of the copy open for writing: a raw descriptor from
// openat2, or an *os.File from os.Root.
type dstFile struct {
	fd   int
	f    *os.File
	path string
}

// createCopy creates rel in the copy, O_EXCL, with mode, through no link.
func createCopy(dst *os.Root, dstfd int, rel string, mode os.FileMode) (*dstFile, error) {
	if dstfd >= 0 {
		fd, err := createFast(dstfd, rel, uint32(mode))
		if err != nil {
			return nil, &os.PathError{Op: "create", Path: rel, Err: err}
		}
		return &dstFile{fd: fd, path: rel}, nil
	}
	f, err := dst.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, mode)
	if err != nil {
		return nil, err
	}
	return &dstFile{fd: int(f.Fd()), f: f, path: rel}, nil
}

// finish gives the written file its final mode unless it was created with
// it, optionally fsyncs it, and closes it.
func (d *dstFile) finish(mode os.FileMode, chmod, fsync bool) error {
	var err error
	if chmod {
		err = unix.Fchmod(d.fd, uint32(mode))
	}
	if err == nil && fsync {
		err = unix.Fsync(d.fd)
	}
	if cerr := d.close(); err == nil {
		err = cerr
	}
	if err != nil {
		return &os.PathError{Op: "finish", Path: d.path, Err: err}
	}
	return nil
}

func (d *dstFile) close() error {
	if d.f != nil {
		return d.f.Close()
	}
	return unix.Close(d.fd)
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
// returns the file digests and the content hash of the bytes written.
// Directories are created 0700, links (each to a file of the copy) and
// files O_EXCL, never through a link; each file has its final mode (0400 or 0500) once written, and
// each directory below the root 0500 once its last file is written. The
// caller seals the root.
//
// umaskStrips says the umask removes owner bits (the temporary directory
// did not come out 0700); every mode is then set with an explicit chmod.
func copyTree(src *bundle.Tree, dst *os.Root, lim bundle.Limits, umaskStrips, fsyncFiles bool) ([]receipts.Digest, receipts.Digest, error) {
	fail := func(err error) ([]receipts.Digest, receipts.Digest, error) { return nil, receipts.Digest{}, err }
	srcfd, err := unix.Open(src.Root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fail(&os.PathError{Op: "open", Path: src.Root, Err: err})
	}
	defer unix.Close(srcfd)
	dstfd := -1
	if haveOpenat2() {
		d, err := dst.Open(".")
		if err != nil {
			return fail(err)
		}
		defer d.Close()
		dstfd = int(d.Fd())
	}
	for _, e := range src.Entries {
		if e.Kind != bundle.KindDir {
			continue
		}
		// Directories are never read, only created, but one swapped for
		// a link or another directory is a changed source all the same.
		var st unix.Stat_t
		if err := unix.Fstatat(srcfd, e.Path, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return fail(changed(e.Path, "no longer reachable as a directory"))
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR || uint64(st.Dev) != e.Dev || uint64(st.Ino) != e.Ino {
			return fail(changed(e.Path, "directory replaced"))
		}
		if dstfd >= 0 {
			err = mkdirFast(dstfd, e.Path)
		} else {
			err = dst.Mkdir(e.Path, 0o700)
		}
		if err == nil && umaskStrips {
			err = dst.Chmod(e.Path, 0o700)
		}
		if err != nil {
			return fail(err)
		}
	}
	// Links next, while their directories are still writable. Each is
	// written from the walk, never copied from the source: its text is
	// the shortest relative path to its resolved target (bundle.LinkText),
	// so it cannot lead out of the snapshot.
	for _, e := range src.Entries {
		if e.Kind != bundle.KindLink {
			continue
		}
		if err := copyLink(srcfd, dst, dstfd, e); err != nil {
			return fail(err)
		}
	}
	if testOnlyAfterDirs != nil {
		testOnlyAfterDirs()
	}
	// unsealed[d] counts the files still to be written directly in the
	// directory entry d; the worker that writes the last one seals it, so
	// sealing runs on the pool too. parent[i] is the directory entry
	// holding entry i, -1 for the root.
	parent := make([]int, len(src.Entries))
	unsealed := make([]atomic.Int32, len(src.Entries))
	dirs := map[string]int{}
	for i, e := range src.Entries {
		parent[i] = -1
		if j := strings.LastIndexByte(e.Path, '/'); j >= 0 {
			p, ok := dirs[e.Path[:j]]
			if !ok {
				return fail(fmt.Errorf("stage: %s: its directory was not walked", bundle.Quote(e.Path)))
			}
			parent[i] = p
		}
		if e.Kind == bundle.KindDir {
			dirs[e.Path] = i
		} else if e.Kind.Regular() && parent[i] >= 0 {
			unsealed[parent[i]].Add(1)
		}
	}
	sealDir := func(d int) error {
		rel := src.Entries[d].Path
		if dstfd >= 0 {
			return sealFast(dstfd, rel)
		}
		return dst.Chmod(rel, dirMode)
	}
	for d, e := range src.Entries {
		if e.Kind == bundle.KindDir && unsealed[d].Load() == 0 {
			if err := sealDir(d); err != nil {
				return fail(err)
			}
		}
	}
	// A file is created with its final mode, 0400 or 0500: the creating
	// open may write a file whatever its mode, and it saves a chmod per
	// file. Not under a umask that strips owner bits: then every file is
	// created 0600 and chmodded.
	createSealed := !umaskStrips
	digests := make([]receipts.Digest, len(src.Entries))
	var total atomic.Int64
	err = forEachFile(src, func(w *worker, i int) error {
		e := src.Entries[i]
		in, err := openWalked(src, srcfd, e)
		if err != nil {
			return err
		}
		defer in.close()
		if testOnlyAfterOpen != nil {
			testOnlyAfterOpen(e.Path)
		}
		mode := fileMode(e.Kind)
		if !createSealed {
			mode = 0o600
		}
		out, err := createCopy(dst, dstfd, e.Path, mode)
		if err != nil {
			return err
		}
		d, err := digestCopy(w, in, out.fd, &total, lim.MaxTotalBytes)
		if err != nil {
			out.close()
			return err
		}
		if err := out.finish(fileMode(e.Kind), !createSealed, fsyncFiles); err != nil {
			return err
		}
		digests[i] = d
		if p := parent[i]; p >= 0 && unsealed[p].Add(-1) == 0 {
			return sealDir(p)
		}
		return nil
	})
	if err != nil {
		return fail(err)
	}
	sum, err := treeSum(src, digests)
	return digests, sum, err
}

// copyLink checks that the source link e is still the walked one (a
// link's text cannot change in place, so the same inode and ctime is the
// same text) and creates its snapshot copy, through no link, holding
// bundle.LinkText of its resolved target; it reads the new link back.
func copyLink(srcfd int, dst *os.Root, dstfd int, e bundle.Entry) error {
	var st unix.Stat_t
	if err := unix.Fstatat(srcfd, e.Path, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return changed(e.Path, "no longer reachable as a symbolic link")
	}
	if st.Mode&unix.S_IFMT != unix.S_IFLNK || uint64(st.Dev) != e.Dev || uint64(st.Ino) != e.Ino || st.Ctim.Nano() != e.CtimeNs {
		return changed(e.Path, "symbolic link replaced")
	}
	text := bundle.LinkText(e.Path, e.Target)
	var got string
	var err error
	if dstfd >= 0 {
		got, err = symlinkFast(dstfd, e.Path, text)
	} else if err = dst.Symlink(text, e.Path); err == nil {
		got, err = dst.Readlink(e.Path)
	}
	if err != nil {
		return err
	}
	if got != text {
		return fmt.Errorf("stage: %s: the new link holds %s, not %s", bundle.Quote(e.Path), bundle.Quote(got), bundle.Quote(text))
	}
	return nil
}

// treeSum encodes the records of t, in its sorted order, with the file
// digests computed by the workers.
func treeSum(t *bundle.Tree, digests []receipts.Digest) (receipts.Digest, error) {
	th := review.NewTreeHasher()
	for i, e := range t.Entries {
		if err := th.AddEntry(e, digests[i]); err != nil {
			return receipts.Digest{}, err
		}
	}
	return th.Sum(), nil
}
