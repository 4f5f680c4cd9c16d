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
// change that finished before the check. Each event raises the generation
// of the entries watching its inode; a lost one (queue overflow, an event
// no watch accounts for, a failed read) raises every entry's. Generations
// only grow, and no check resets them: a check remembers the generation it
// started from and proves the snapshot as of then, and a reader compares
// the generation before and after its read, so one check can never
// consume the change another needs to see. A removed watch (its directory
// was deleted or replaced) raises its entries' generation, which means
// "re-verify". Writes through a shared memory mapping raise no inotify
// event at all (inotify(7)); see SECURITY.md.
type watcher struct {
	mu sync.Mutex
	fd int
	// owners maps a watch descriptor to the entries watching it (two
	// bundles with the same content share one snapshot directory).
	owners map[int32]map[int]bool
	events map[int]uint64 // by entry, the events on its inodes
	lost   uint64         // events no entry can be told from: every entry's
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
	return &watcher{fd: fd, owners: map[int32]map[int]bool{}, events: map[int]uint64{}, buf: make([]byte, 64<<10)}, nil
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

// drain reads every queued event without blocking and counts each against
// the entries it concerns.
func (w *watcher) drain() {
	for {
		n, err := unix.Read(w.fd, w.buf)
		if n <= 0 || err != nil {
			if err != nil && err != unix.EAGAIN && err != unix.EINTR {
				w.lost++ // closed, or unreadable: nothing proves a clean queue
			}
			return
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			switch set, ok := w.owners[ev.Wd]; {
			case ev.Mask&unix.IN_Q_OVERFLOW != 0:
				w.lost++
			case !ok:
				w.lost++ // an event we cannot attribute: be safe
			default:
				for i := range set {
					w.events[i]++
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

// generation drains the queue and returns entry's generation: it grows
// with every event on entry's inodes and every lost event, and nothing
// lowers it. Two equal generations prove that no change finished between
// the two calls.
func (w *watcher) generation(entry int) uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.drain()
	return w.events[entry] + w.lost
}

func (w *watcher) close() {
	if w != nil {
		w.mu.Lock()
		unix.Close(w.fd)
		w.fd = -1
		w.mu.Unlock()
	}
}
