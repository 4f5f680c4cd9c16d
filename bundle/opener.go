package bundle

import (
	"os"
	"path"
	"strings"

	"golang.org/x/sys/unix"
)

// Opener opens the regular files of a walked tree with the guarantees of
// Tree.Open — no symbolic link followed on the way, a FIFO cannot block the
// open, the opened inode must be the walked one — but keeps the directories
// of the last opened path open. Opening a tree's files in path order then
// costs one openat per file instead of one per path component.
//
// Every directory it opens is opened with O_NOFOLLOW relative to its parent
// and must be the walked directory (same device and inode), which Tree.Open
// does not check. An Opener holds at most one open directory per path
// element; it is not safe for concurrent use (use one per goroutine), and
// Close releases its directories.
type Opener struct {
	t     *Tree
	root  int // -1 until opened
	names []string
	fds   []int
}

// NewOpener returns an Opener for the files of t.
func (t *Tree) NewOpener() *Opener { return &Opener{t: t, root: -1} }

// Close closes the directories the Opener holds.
func (o *Opener) Close() error {
	o.truncate(0)
	if o.root >= 0 {
		unix.Close(o.root)
		o.root = -1
	}
	return nil
}

func (o *Opener) truncate(n int) {
	for _, fd := range o.fds[n:] {
		unix.Close(fd)
	}
	o.fds, o.names = o.fds[:n], o.names[:n]
}

// Open opens the walked regular file rel (for an accepted link, its
// target) and checks it is the walked inode (device, inode, size, mode),
// like Tree.Open.
func (o *Opener) Open(rel string) (*os.File, Entry, error) {
	fd, e, err := o.OpenFD(rel)
	if err != nil {
		return nil, e, err
	}
	// A regular file: O_NONBLOCK has done its job (the open could not
	// block on a FIFO); clear it so the file is an ordinary blocking one.
	unix.FcntlInt(uintptr(fd), unix.F_SETFL, 0)
	return os.NewFile(uintptr(fd), path.Join(o.t.Root, e.Path)), e, nil
}

// OpenFD is Open returning the raw descriptor, which the caller closes. It
// is still O_NONBLOCK, which reads of a regular file ignore. It saves the
// system calls and allocation of an *os.File when hashing many small files.
func (o *Opener) OpenFD(rel string) (int, Entry, error) {
	e, err := o.t.openTarget(rel)
	if err != nil {
		return -1, Entry{}, err
	}
	rel = e.Path
	dir, base := path.Split(rel)
	dfd, err := o.dir(strings.TrimSuffix(dir, "/"))
	if err != nil {
		return -1, e, err
	}
	if !cleanElem(base) {
		return -1, e, &os.PathError{Op: "open", Path: rel, Err: unix.EINVAL}
	}
	fd, err := unix.Openat(dfd, base, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, e, &os.PathError{Op: "open", Path: path.Join(o.t.Root, rel), Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, e, &os.PathError{Op: "fstat", Path: path.Join(o.t.Root, rel), Err: err}
	}
	if why := SameFile(e, &st); why != "" {
		unix.Close(fd)
		return -1, e, &ChangedError{Path: rel, Reason: why}
	}
	return fd, e, nil
}

// RecheckFD is Recheck for a raw descriptor from OpenFD.
func RecheckFD(fd int, e Entry) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
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

// dir returns an open descriptor of the walked directory rel ("" for the
// root), reusing the directories shared with the previous path.
func (o *Opener) dir(rel string) (int, error) {
	if o.root < 0 {
		fd, err := unix.Open(o.t.Root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1, &os.PathError{Op: "open", Path: o.t.Root, Err: err}
		}
		o.root = fd
	}
	if rel == "" {
		o.truncate(0)
		return o.root, nil
	}
	parts := strings.Split(rel, "/")
	common := 0
	for common < len(parts) && common < len(o.names) && o.names[common] == parts[common] {
		common++
	}
	o.truncate(common)
	for i := common; i < len(parts); i++ {
		p := parts[i]
		sub := strings.Join(parts[:i+1], "/")
		if !cleanElem(p) {
			return -1, &os.PathError{Op: "open", Path: sub, Err: unix.EINVAL}
		}
		parent := o.root
		if i > 0 {
			parent = o.fds[i-1]
		}
		fd, err := unix.Openat(parent, p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1, &os.PathError{Op: "open", Path: path.Join(o.t.Root, sub), Err: err}
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			unix.Close(fd)
			return -1, &os.PathError{Op: "fstat", Path: path.Join(o.t.Root, sub), Err: err}
		}
		if e, ok := o.t.Lookup(sub); !ok || e.Kind != KindDir || uint64(st.Dev) != e.Dev || uint64(st.Ino) != e.Ino {
			unix.Close(fd)
			return -1, &ChangedError{Path: sub, Reason: "directory replaced"}
		}
		o.fds, o.names = append(o.fds, fd), append(o.names, p)
	}
	return o.fds[len(o.fds)-1], nil
}

func cleanElem(p string) bool { return p != "" && p != "." && p != ".." && !strings.Contains(p, "/") }
