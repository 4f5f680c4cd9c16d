//go:build linux

package harness

import (
	"errors"
	"path/filepath"
	"sync"
	"unsafe"

	"github.com/bundlectl/bundlectl/bundle"
	"golang.org/x/sys/unix"
)

// watcher is change notification over every directory and file of the
// snapshots in use (inotify). The kernel queues an event before the modifying system call
// returns, so draining the queue synchronously at check time sees every
// change that finished before the check: a clean drain proves nothing
// changed since the last full verification. A lost event (queue overflow)
// marks everything dirty and a removed watch (its directory was deleted or
// replaced) marks its entries dirty, which means "re-verify". Writes through
// a shared memory mapping raise no inotify event at all (inotify(7)); see
// SECURITY.md.
type watcher struct {
	mu sync.Mutex
	fd int
	// owners maps a watch descriptor to the entries watching it (two
	// bundles with the same content share one snapshot directory).
	owners map[int32]map[int]bool
	dirty  map[int]bool
	all    bool // the queue overflowed: every entry must re-verify
	buf    []byte
}

const watchMask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_CREATE |
	unix.IN_DELETE | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_DONT_FOLLOW | unix.IN_ONLYDIR

// fileMask watches one file's inode: a write or a chmod through any of its
// links, or its removal, raises an event (a directory watch sees only
// changes made through a name in that directory).
const fileMask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_DELETE_SELF |
	unix.IN_MOVE_SELF | unix.IN_DONT_FOLLOW

// errNoWatch means change notification is not available; callers fall back
// to a full verification before every spawn.
var errNoWatch = errors.New("change notification unavailable")

func newWatcher() (*watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, errNoWatch
	}
	return &watcher{fd: fd, owners: map[int32]map[int]bool{}, dirty: map[int]bool{}, buf: make([]byte, 64<<10)}, nil
}

// watchTree watches root and every directory and file of t for entry, and reports
// whether every one of them was already watched for it (false: the caller
// must walk again). Every directory is added again each time: a watch
// follows its inode, so a directory replaced under the same path needs a
// new watch, and inotify_add_watch returns the existing descriptor for an
// inode already watched.
func (w *watcher) watchTree(entry int, root string, t *bundle.Tree) (bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	stable := true
	add := func(p string, mask uint32) error {
		wd, err := unix.InotifyAddWatch(w.fd, p, mask)
		if err != nil {
			return err
		}
		set := w.owners[int32(wd)]
		if set == nil {
			set = map[int]bool{}
			w.owners[int32(wd)] = set
		}
		if !set[entry] {
			set[entry] = true
			stable = false
		}
		return nil
	}
	if err := add(root, watchMask); err != nil {
		return false, err
	}
	for _, e := range t.Entries {
		mask := uint32(fileMask)
		if e.Kind == bundle.KindDir {
			mask = watchMask
		}
		if err := add(filepath.Join(root, filepath.FromSlash(e.Path)), mask); err != nil {
			return false, err
		}
	}
	return stable, nil
}

// drain reads every queued event without blocking and marks their entries.
func (w *watcher) drain() {
	for {
		n, err := unix.Read(w.fd, w.buf)
		if n <= 0 || err != nil {
			if err != nil && err != unix.EAGAIN && err != unix.EINTR {
				w.all = true
			}
			return
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			switch set, ok := w.owners[ev.Wd]; {
			case ev.Mask&unix.IN_Q_OVERFLOW != 0:
				w.all = true
			case !ok:
				w.all = true // an event we cannot attribute: be safe
			default:
				for i := range set {
					w.dirty[i] = true
				}
				if ev.Mask&unix.IN_IGNORED != 0 {
					// The watch is gone (its directory was removed): the
					// next verification must watch whatever stands there.
					delete(w.owners, ev.Wd)
				}
			}
			off += unix.SizeofInotifyEvent + int(ev.Len)
		}
	}
}

// changed drains the queue and reports whether entry changed since its
// last clean(), clearing nothing.
func (w *watcher) changed(entry int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.drain()
	return w.all || w.dirty[entry]
}

// clean marks entry as freshly verified. Call it before the verification
// it stands for, so that a change during that verification stays visible.
func (w *watcher) clean(entry int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.drain()
	delete(w.dirty, entry)
	if w.all {
		// Overflow: every other entry stays dirty individually.
		for _, set := range w.owners {
			for i := range set {
				if i != entry {
					w.dirty[i] = true
				}
			}
		}
		w.all = false
	}
}

func (w *watcher) close() {
	if w != nil {
		w.mu.Lock()
		unix.Close(w.fd)
		w.fd = -1
		w.mu.Unlock()
	}
}
