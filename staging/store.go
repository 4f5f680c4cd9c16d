package staging

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/fingerprint"
	"github.com/bundlectl/bundlectl/receipts"
	"golang.org/x/sys/unix"
)

// Store is the snapshot store, $BUNDLECTL_HOME/store.
type Store struct {
	Dir string // absolute
	// Limits bound Verify's walk and reads of a snapshot; zero fields mean
	// the defaults. Stage takes the limits of the tree it copies.
	Limits bundle.Limits
	// Serial walks each snapshot on the calling goroutine, for a caller
	// that checks many snapshots at once on its own workers.
	Serial bool
}

func (s *Store) walk(dir string, lim bundle.Limits) (*bundle.Tree, bundle.Report) {
	if s.Serial {
		return bundle.WalkSerial(dir, lim)
	}
	return bundle.Walk(dir, lim)
}

// Names in the store other than snapshots.
const (
	tmpPrefix     = ".tmp-" // a copy being built (and its records file)
	delPrefix     = ".del-" // a snapshot moved aside to be deleted
	recordsSuffix = ".records"
)

// fsyncEach makes Stage fsync every file and directory instead of one
// syncfs; kept for platforms without syncfs and for the benchmark that
// justifies syncfs.
var fsyncEach = !syncfsWorks

// Path returns the snapshot directory for a content hash.
func (s *Store) Path(hash receipts.Digest) string {
	return filepath.Join(s.Dir, hash.String())
}

// Stage copies the walked tree src into the store as the snapshot of want
// and returns its path. The digest is computed from the bytes written; if it
// is not want, nothing is left behind and the error is a *MismatchError. A
// source entry that is no longer the walked one fails with
// bundle.ErrChanged, a tree beyond lim with a *LimitError. An existing
// snapshot of want is reused only if it verifies; a bad one is replaced.
// The caller must hold state.lock (see the package documentation).
func (s *Store) Stage(src *bundle.Tree, want receipts.Digest, lim bundle.Limits) (snapshot string, err error) {
	defer func() {
		if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
			err = &SpaceError{Store: s.Dir, Err: err}
		}
	}()
	if src == nil {
		return "", errors.New("stage: no source tree")
	}
	lim = lim.WithDefaults()
	if err := checkBounds(src, lim); err != nil {
		return "", err
	}
	if err := s.ensure(); err != nil {
		return "", err
	}
	final := s.Path(want)
	if _, err := os.Lstat(final); err == nil {
		if s.Verify(want) == nil {
			return final, nil
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if testOnlyBeforeCopy != nil {
		testOnlyBeforeCopy()
	}

	tmp, err := os.MkdirTemp(s.Dir, tmpPrefix+"*")
	if err != nil {
		return "", err
	}
	// The umask applies to MkdirTemp; one that strips owner bits would
	// leave a copy we cannot write, so modes are then set explicitly.
	var umaskStrips bool
	if fi, err := os.Lstat(tmp); err != nil || fi.Mode().Perm() != 0o700 {
		umaskStrips = true
		if err := os.Chmod(tmp, 0o700); err != nil {
			removeTree(tmp)
			return "", err
		}
	}
	tmpRecords := tmp + recordsSuffix
	installed := false
	defer func() {
		if !installed {
			removeTree(tmp)
			os.Remove(tmpRecords)
		}
	}()

	digests, got, err := s.copyInto(tmp, src, lim, umaskStrips)
	if err != nil {
		return "", err
	}
	if got != want {
		return "", &MismatchError{Want: want, Got: got}
	}
	if err := writeFileExcl(tmpRecords, encodeRecords(want, src, digests), 0o400); err != nil {
		return "", err
	}
	// copyTree sealed every directory below the root; seal the root last.
	if err := os.Chmod(tmp, dirMode); err != nil {
		return "", err
	}
	if fsyncEach {
		err = fsyncDirs(tmp, src)
	} else {
		err = syncFS(tmp)
	}
	if err != nil {
		return "", fmt.Errorf("make the snapshot durable: %w", err)
	}

	if err := os.Rename(tmpRecords, final+recordsSuffix); err != nil {
		return "", err
	}
	if _, err := os.Lstat(final); err == nil {
		// Staged meanwhile by a process not holding the lock, or the bad
		// snapshot found above: keep it only if it verifies.
		if s.Verify(want) == nil {
			return final, nil
		}
		if err := s.discard(final); err != nil {
			return "", err
		}
	}
	if err := os.Rename(tmp, final); err != nil {
		return "", err
	}
	installed = true
	if err := syncDir(s.Dir); err != nil {
		return "", fmt.Errorf("make the snapshot durable: %w", err)
	}
	return final, nil
}

// copyInto copies src below dir and returns the file digests and the
// content hash of what was written.
func (s *Store) copyInto(dir string, src *bundle.Tree, lim bundle.Limits, umaskStrips bool) ([]receipts.Digest, receipts.Digest, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, receipts.Digest{}, err
	}
	defer root.Close()
	return copyTree(src, root, lim, umaskStrips, fsyncEach)
}

// fsyncDirs fsyncs every directory of the copy; files and the records
// file were fsynced as they were written.
func fsyncDirs(dir string, t *bundle.Tree) error {
	for _, e := range t.Entries {
		if e.Kind == bundle.KindDir {
			if err := syncDir(filepath.Join(dir, filepath.FromSlash(e.Path))); err != nil {
				return err
			}
		}
	}
	return syncDir(dir)
}

// Verify re-hashes the snapshot of hash in full and checks that it has
// exactly the snapshot modes (directories 0500, files 0400, executables
// 0500), belongs to the current user and holds only directories, regular
// files and links that resolve to a regular file of the snapshot (any
// other link is a finding of the walk, so tampering). A snapshot that fails is reported by a *TamperError
// naming the first problem. Verify does not need state.lock.
func (s *Store) Verify(hash receipts.Digest) error {
	_, err := s.verify(hash)
	return err
}

// Check proves the snapshot of hash intact at the cost of one walk when a
// fingerprint record (package fingerprint) shows it exactly as a full
// verification saw it, and otherwise verifies in full (Verify) and records
// what that verification saw. full says whether it hashed.
func (s *Store) Check(hash receipts.Digest, cache fingerprint.Cache) (full bool, err error) {
	key := fingerprint.SnapshotKey(hash.String())
	dir := s.Path(hash)
	if rec, ok := cache.Load(key); ok && rec.Digest == hash.String() && s.check(false) == nil {
		var st unix.Stat_t
		if unix.Lstat(dir, &st) == nil && badRoot(&st, uint32(os.Geteuid())) == "" {
			// The lean walk stands in for Walk when it can (no links, no
			// special files): a proof needs the same entries either way.
			proven := false
			walked := bundle.FingerprintWalk(dir, s.Limits, func(now *bundle.Tree) {
				proven = fingerprint.Proves(rec, now, bundle.Report{}, time.Now())
			})
			if !walked {
				now, rep := s.walk(dir, s.Limits)
				proven = fingerprint.Proves(rec, now, rep, time.Now())
			}
			if proven {
				return false, nil
			}
		}
	}
	started := time.Now()
	tree, err := s.verify(hash)
	if err != nil {
		cache.Remove(key)
		return true, err
	}
	cache.Store(fingerprint.NewRecord(key, hash.String(), started, tree))
	return true, nil
}

// verify is Verify, returning the walk it hashed.
func (s *Store) verify(hash receipts.Digest) (*bundle.Tree, error) {
	if err := s.check(false); err != nil {
		return nil, err
	}
	dir := s.Path(hash)
	tamper := func(p, reason string) error { return &TamperError{Snapshot: dir, Path: p, Reason: reason} }
	uid := uint32(os.Geteuid())

	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil, tamper(".", "the snapshot does not exist")
		}
		return nil, tamper(".", "cannot be read: "+err.Error())
	}
	if why := badRoot(&st, uid); why != "" {
		return nil, tamper(".", why)
	}
	lim := s.Limits.WithDefaults()
	tree, rep := s.walk(dir, lim)
	if errs := rep.Errors(); len(errs) > 0 {
		return nil, tamper(errs[0].Path, errs[0].Message)
	}
	if tree == nil {
		return nil, tamper(".", "cannot be walked")
	}

	// Hash everything first: a change of content or shape is the more
	// telling report, and the records file can name it.
	digests := make([]receipts.Digest, len(tree.Entries))
	owners := make([]uint32, len(tree.Entries))
	var total atomic.Int64
	rootfd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, tamper(".", "cannot be read: "+err.Error())
	}
	defer unix.Close(rootfd)
	err = forEachFile(tree, func(w *worker, i int) error {
		e := tree.Entries[i]
		f, err := openWalked(tree, rootfd, e)
		if err != nil {
			return tamper(e.Path, "cannot be read: "+err.Error())
		}
		defer f.close()
		var fst unix.Stat_t
		if err := unix.Fstat(f.fd, &fst); err != nil {
			return tamper(e.Path, "cannot be read: "+err.Error())
		}
		owners[i] = fst.Uid
		d, err := digestCopy(w, f, -1, &total, lim.MaxTotalBytes)
		if err != nil {
			return tamper(e.Path, "cannot be read: "+err.Error())
		}
		digests[i] = d
		return nil
	})
	if err != nil {
		return nil, err
	}
	got, err := treeSum(tree, digests)
	if err != nil {
		return nil, tamper(".", err.Error())
	}
	if got != hash {
		maxRecords := int64(lim.MaxEntries+1) * int64(lim.MaxPathBytes+100)
		if was, ok := readRecords(dir+recordsSuffix, hash, maxRecords); ok {
			if p, why := diffRecords(was, tree, digests); p != "" {
				return nil, tamper(p, why)
			}
		}
		return nil, tamper(".", fmt.Sprintf("content hash is %s, not %s", got.Short(), hash.Short()))
	}
	for i, e := range tree.Entries {
		if !e.Kind.Regular() {
			// Files were stat'ed when they were read.
			var dst unix.Stat_t
			if err := unix.Lstat(filepath.Join(dir, filepath.FromSlash(e.Path)), &dst); err != nil {
				return nil, tamper(e.Path, "cannot be read: "+err.Error())
			}
			owners[i] = dst.Uid
		}
		// A link has no mode to check (Linux ignores a link's mode); the
		// walk resolved it to a file of the snapshot, and the hash covers
		// its target.
		if want := snapshotMode(e.Kind); e.Kind != bundle.KindLink && e.Mode != want {
			return nil, tamper(e.Path, fmt.Sprintf("mode changed to %04o, want %04o", e.Mode, want))
		}
		if owners[i] != uid {
			return nil, tamper(e.Path, fmt.Sprintf("owned by uid %d, not %d", owners[i], uid))
		}
	}
	return tree, nil
}

// snapshotMode is the mode Stage gives an entry of kind k.
func snapshotMode(k bundle.Kind) uint32 {
	if k == bundle.KindDir {
		return dirMode
	}
	return uint32(fileMode(k))
}

func badRoot(st *unix.Stat_t, uid uint32) string {
	switch {
	case st.Mode&unix.S_IFMT == unix.S_IFLNK:
		return "the snapshot is a symbolic link"
	case st.Mode&unix.S_IFMT != unix.S_IFDIR:
		return "the snapshot is not a directory"
	case st.Uid != uid:
		return fmt.Sprintf("owned by uid %d, not %d", st.Uid, uid)
	case uint32(st.Mode)&0o7777 != dirMode:
		return fmt.Sprintf("mode changed to %04o, want %04o", uint32(st.Mode)&0o7777, dirMode)
	}
	return ""
}

// GC removes every snapshot whose hash is not in referenced, with its
// records file, and every leftover of an interrupted Stage or GC (.tmp-*,
// .del-*, orphaned records). Names it does not know are left alone. It
// returns the paths it removed. The caller must hold state.lock, because a
// .tmp-* directory may belong to a Stage in progress.
func (s *Store) GC(referenced map[receipts.Digest]bool) ([]string, error) {
	if err := s.ensure(); err != nil {
		return nil, err
	}
	d, err := os.Open(s.Dir)
	if err != nil {
		return nil, err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var removed []string
	var errs []error
	for _, name := range names {
		p := filepath.Join(s.Dir, name)
		var err error
		switch {
		case strings.HasPrefix(name, tmpPrefix), strings.HasPrefix(name, delPrefix):
			err = removeTree(p)
		case isHash(name):
			h, _ := receipts.Parse(name)
			if referenced[h] {
				continue
			}
			err = s.discard(p)
		case strings.HasSuffix(name, recordsSuffix) && isHash(strings.TrimSuffix(name, recordsSuffix)):
			h, _ := receipts.Parse(strings.TrimSuffix(name, recordsSuffix))
			if _, serr := os.Lstat(s.Path(h)); referenced[h] && serr == nil {
				continue
			}
			err = os.Remove(p)
		default:
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, p)
	}
	return removed, errors.Join(errs...)
}

// discard removes a snapshot without ever leaving a partial tree under a
// snapshot name: it is first renamed aside (durably), then deleted.
func (s *Store) discard(snap string) error {
	aside := filepath.Join(s.Dir, delPrefix+filepath.Base(snap)+"-"+randomHex())
	if err := os.Rename(snap, aside); err != nil {
		return err
	}
	if err := syncDir(s.Dir); err != nil {
		return err
	}
	// A leftover is only untidy: the next GC removes it.
	removeTree(aside)
	return nil
}

// removeTree makes every directory below p writable, without following
// links, and removes it all.
// RemoveTree removes the directory p (never following a link) and all it
// holds, first making its read-only directories writable; a snapshot or a
// host view is removed this way.
func RemoveTree(p string) error { return removeTree(p) }

func removeTree(p string) error {
	if fd, err := unix.Open(p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err == nil {
		makeWritable(fd, 0)
	}
	return os.RemoveAll(p)
}

// makeWritable gives the directory open as fd (which it closes) and every
// directory below it mode 0700.
func makeWritable(fd, depth int) {
	f := os.NewFile(uintptr(fd), "")
	defer f.Close()
	unix.Fchmod(fd, 0o700)
	if depth > 2*bundle.DefaultMaxDepth {
		return
	}
	ents, err := f.ReadDir(-1)
	if err != nil {
		return
	}
	for _, e := range ents {
		if e.IsDir() {
			if cfd, err := unix.Openat(fd, e.Name(), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err == nil {
				makeWritable(cfd, depth+1)
			}
		}
	}
}

// ensure creates the store 0700 if needed and enforces that mode.
func (s *Store) ensure() error {
	if !filepath.IsAbs(s.Dir) {
		return &UnsafeStoreError{Path: s.Dir, Reason: "not an absolute path"}
	}
	if err := os.MkdirAll(filepath.Dir(s.Dir), 0o700); err != nil {
		return err
	}
	if err := os.Mkdir(s.Dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return s.check(true)
}

// check refuses a store that is a link, not a directory or not the user's;
// with fix it sets mode 0700, otherwise it refuses a store others can write.
func (s *Store) check(fix bool) error {
	if !filepath.IsAbs(s.Dir) {
		return &UnsafeStoreError{Path: s.Dir, Reason: "not an absolute path"}
	}
	var st unix.Stat_t
	if err := unix.Lstat(s.Dir, &st); err != nil {
		return &os.PathError{Op: "lstat", Path: s.Dir, Err: err}
	}
	mode := uint32(st.Mode) & 0o7777
	switch {
	case st.Mode&unix.S_IFMT == unix.S_IFLNK:
		return &UnsafeStoreError{Path: s.Dir, Reason: "is a symbolic link"}
	case st.Mode&unix.S_IFMT != unix.S_IFDIR:
		return &UnsafeStoreError{Path: s.Dir, Reason: "is not a directory"}
	case st.Uid != uint32(os.Geteuid()):
		return &UnsafeStoreError{Path: s.Dir, Reason: fmt.Sprintf("is owned by uid %d, not %d", st.Uid, os.Geteuid())}
	case mode == 0o700:
		return nil
	case fix:
		return os.Chmod(s.Dir, 0o700)
	case mode&0o022 != 0:
		return &UnsafeStoreError{Path: s.Dir, Reason: fmt.Sprintf("has mode %04o: others can write to it", mode)}
	}
	return nil
}

// checkBounds applies lim to the walked tree before anything is copied;
// the copy then counts the bytes it actually reads.
func checkBounds(t *bundle.Tree, lim bundle.Limits) error {
	if n := len(t.Entries); n > lim.MaxEntries {
		return &LimitError{Path: ".", Bound: "entries", Value: int64(n), Max: int64(lim.MaxEntries)}
	}
	var total int64
	for _, e := range t.Entries {
		if len(e.Path) > lim.MaxPathBytes {
			return &LimitError{Path: e.Path, Bound: "path bytes", Value: int64(len(e.Path)), Max: int64(lim.MaxPathBytes)}
		}
		if d := strings.Count(e.Path, "/") + 1; d > lim.MaxDepth {
			return &LimitError{Path: e.Path, Bound: "depth", Value: int64(d), Max: int64(lim.MaxDepth)}
		}
		switch e.Kind {
		case bundle.KindDir:
		case bundle.KindLink:
			if e.Target == "" {
				return fmt.Errorf("stage: %s: a link without a target", bundle.Quote(e.Path))
			}
		case bundle.KindFile, bundle.KindExec:
			if e.Size > lim.MaxFileBytes {
				return &LimitError{Path: e.Path, Bound: "file bytes", Value: e.Size, Max: lim.MaxFileBytes}
			}
			total += e.Size
		default:
			return fmt.Errorf("stage: %s: unknown entry kind %q", bundle.Quote(e.Path), e.Kind)
		}
	}
	if total > lim.MaxTotalBytes {
		return &LimitError{Path: ".", Bound: "total bytes", Value: total, Max: lim.MaxTotalBytes}
	}
	return nil
}

func isHash(name string) bool {
	_, err := receipts.Parse(name)
	return err == nil
}

func randomHex() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func writeFileExcl(name string, data []byte, mode os.FileMode) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil && fsyncEach {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func syncDir(dir string) error { return syncFile(dir) }

func syncFile(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
