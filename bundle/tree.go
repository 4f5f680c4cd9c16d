package bundle

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"sort"
	"strings"

	"golang.org/x/sys/unix"
)

// Kind is the type of a tree entry, as it is recorded in the content hash.
type Kind byte

const (
	KindDir  Kind = 'D'
	KindFile Kind = 'F' // regular file, no executable bit
	KindExec Kind = 'X' // regular file with any executable bit
	// KindLink is a symbolic link whose target resolves, inside the tree,
	// to a regular file (docs/tree-rules.md). It is never followed: Open
	// and ReadFile of it open the target entry instead.
	KindLink Kind = 'L'
)

// Regular reports whether k is a regular file, with or without the
// executable bit: an entry with content of its own.
func (k Kind) Regular() bool { return k == KindFile || k == KindExec }

// Entry is one file, directory or accepted link below a bundle root, as
// the walk saw it.
type Entry struct {
	Path string // slash-separated, relative to the root, no leading "./"
	Kind Kind
	Size int64  // bytes; 0 for directories and links
	Mode uint32 // permission bits as seen (only the executable bit is hashed)
	// Identity and times of the walked inode (for a link, of the link
	// itself), so a later open can check that it reached the same file,
	// and a fingerprint can detect change.
	Dev, Ino         uint64
	MtimeNs, CtimeNs int64
	// Target is, for a KindLink entry only, the regular file the link
	// names: its path relative to the root, resolved and cleaned ("a/b",
	// never "./a/../a/b"), as the content hash records it.
	Target string `json:",omitempty"`
}

// Tree is a validated walk of one bundle directory. Entries are sorted by
// Path in ascending byte order, the order of the content hash.
type Tree struct {
	Root    string // absolute, canonical
	Entries []Entry
	Files   int   // regular files among Entries
	Bytes   int64 // total size of regular files
	// RefusedLinks are the paths of the symbolic links the walk left out
	// of the tree (each has a tree.symlink finding), sorted, so that a
	// rule can say a path goes through a link that is not part of the
	// bundle rather than that it is missing.
	RefusedLinks []string
	// RootDev and RootIno identify the directory the walk opened at Root
	// and walked by descriptor (zero when it opened none), so a caller
	// that holds the directory can check that the walk read it, and not
	// another one swapped in at Root meanwhile.
	RootDev, RootIno uint64
}

// RefusedLink reports whether rel or one of its parent directories is a
// symbolic link the walk left out of the tree, and returns that link.
func (t *Tree) RefusedLink(rel string) (string, bool) {
	for _, l := range t.RefusedLinks {
		if rel == l || strings.HasPrefix(rel, l+"/") {
			return l, true
		}
	}
	return "", false
}

// Lookup returns the entry for rel, a link as itself (see Resolve). It
// only reads the sorted Entries, so a Tree may be shared by goroutines.
func (t *Tree) Lookup(rel string) (Entry, bool) {
	i := sort.Search(len(t.Entries), func(i int) bool { return t.Entries[i].Path >= rel })
	if i < len(t.Entries) && t.Entries[i].Path == rel {
		return t.Entries[i], true
	}
	return Entry{}, false
}

// Resolve returns the entry whose content rel has: the entry itself for a
// file or directory, the target's entry for an accepted link. It is
// Lookup for callers that care what rel is to a reader of it, not how it
// is stored (a command named through a link to an executable is
// executable).
func (t *Tree) Resolve(rel string) (Entry, bool) {
	e, ok := t.Lookup(rel)
	if ok && e.Kind == KindLink {
		return t.Lookup(e.Target)
	}
	return e, ok
}

// openTarget is the walked regular file that opening rel reads: rel
// itself, or the target of the accepted link rel. The walk only accepts
// a link whose target is a regular file, never another link.
func (t *Tree) openTarget(rel string) (Entry, error) {
	e, ok := t.Resolve(rel)
	if !ok || !e.Kind.Regular() {
		return Entry{}, &ChangedError{Path: rel, Reason: "not a walked regular file"}
	}
	return e, nil
}

// ErrChanged reports that a file no longer is the one the walk recorded.
var ErrChanged = errors.New("file changed since the walk")

// ChangedError names the entry that changed and how.
type ChangedError struct {
	Path   string
	Reason string
}

func (e *ChangedError) Error() string {
	return fmt.Sprintf("%s: %s since the walk", e.Path, e.Reason)
}
func (e *ChangedError) Unwrap() error { return ErrChanged }

// Open opens the regular file rel without following any symbolic link on
// the way (every component is opened with O_NOFOLLOW relative to its
// parent) and checks that the opened inode is the walked one: same device,
// inode, size and mode. It never opens a FIFO or device, so it cannot hang.
// When rel is an accepted link, Open opens the link's target entry the
// same way, and returns that entry: the link itself is never followed.
func (t *Tree) Open(rel string) (*os.File, Entry, error) {
	e, err := t.openTarget(rel)
	if err != nil {
		return nil, Entry{}, err
	}
	rel = e.Path
	f, err := OpenNoFollow(t.Root, rel)
	if err != nil {
		// The walk saw a regular file reached through directories; a
		// missing entry, a link or another type on the way is a change.
		if errors.Is(err, errNotRegular) || errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			return nil, e, &ChangedError{Path: rel, Reason: "removed or replaced"}
		}
		return nil, e, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		f.Close()
		return nil, e, err
	}
	if why := SameFile(e, &st); why != "" {
		f.Close()
		return nil, e, &ChangedError{Path: rel, Reason: why}
	}
	return f, e, nil
}

// ReadFile reads the walked regular file rel, or the target of the
// accepted link rel, at most max bytes.
func (t *Tree) ReadFile(rel string, max int64) ([]byte, error) {
	f, e, err := t.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if e.Size > max {
		return nil, fmt.Errorf("%s: %d bytes is larger than the limit of %d", e.Path, e.Size, max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) != e.Size {
		return nil, &ChangedError{Path: e.Path, Reason: "size changed"}
	}
	// The bytes are those the walk saw only if nothing touched the file
	// since: a same-size rewrite still moves ctime.
	if err := Recheck(f, e); err != nil {
		return nil, err
	}
	return data, nil
}

// Recheck stats an open file again after it was read and reports whether it
// still matches the walked entry (size, mode, mtime and ctime), so a caller
// hashing it can refuse a file that was modified while it was read.
func Recheck(f *os.File, e Entry) error {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return err
	}
	if why := SameFile(e, &st); why != "" {
		return &ChangedError{Path: e.Path, Reason: why}
	}
	if mt, ct := statTimes(&st); mt != e.MtimeNs || ct != e.CtimeNs {
		return &ChangedError{Path: e.Path, Reason: "modified"}
	}
	return nil
}

// SameFile compares an fstat of an opened file with the walked entry and
// returns "" when it is the same regular file (device, inode, size, mode),
// otherwise how it differs.
func SameFile(e Entry, st *unix.Stat_t) string {
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return "no longer a regular file"
	case uint64(st.Dev) != e.Dev || uint64(st.Ino) != e.Ino:
		return "replaced"
	case st.Size != e.Size:
		return "size changed"
	case uint32(st.Mode)&0o7777 != e.Mode:
		return "mode changed"
	}
	return ""
}

var errNotRegular = errors.New("not a regular file")

// OpenNoFollow opens root/rel, refusing a symbolic link at any component of
// rel and any component that is not a directory or, for the last one, a
// regular file. root itself must not be a symbolic link.
func OpenNoFollow(root, rel string) (*os.File, error) {
	if rel == "" || path.IsAbs(rel) || strings.Contains("/"+rel+"/", "/../") || strings.Contains("/"+rel+"/", "/./") {
		return nil, fmt.Errorf("%q: not a clean relative path", rel)
	}
	dfd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: root, Err: err}
	}
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		last := i == len(parts)-1
		flags := unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_CLOEXEC
		if last {
			// O_NONBLOCK so that a FIFO swapped in after the walk cannot
			// block the open; the type check below then refuses it.
			flags |= unix.O_NONBLOCK
		} else {
			flags |= unix.O_DIRECTORY
		}
		fd, err := unix.Openat(dfd, p, flags, 0)
		unix.Close(dfd)
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: path.Join(root, strings.Join(parts[:i+1], "/")), Err: err}
		}
		dfd = fd
	}
	var st unix.Stat_t
	if err := unix.Fstat(dfd, &st); err != nil {
		unix.Close(dfd)
		return nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(dfd)
		return nil, fmt.Errorf("%s: %w", rel, errNotRegular)
	}
	// Clear O_NONBLOCK again: regular files ignore it, but be explicit.
	if fl, err := unix.FcntlInt(uintptr(dfd), unix.F_GETFL, 0); err == nil {
		unix.FcntlInt(uintptr(dfd), unix.F_SETFL, fl&^unix.O_NONBLOCK)
	}
	return os.NewFile(uintptr(dfd), path.Join(root, rel)), nil
}

func sortEntries(es []Entry) {
	cmp := func(a, b Entry) int { return strings.Compare(a.Path, b.Path) }
	// A walk appends in depth-first order of sorted names, which is
	// already byte order unless a name sorts between a directory and its
	// children ("a.txt" beside "a/"): one pass usually settles it.
	if !slices.IsSortedFunc(es, cmp) {
		slices.SortFunc(es, cmp)
	}
}
