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

// watcher is change notification over snapshot and source directories
// (inotify). The kernel queues an event before the modifying system call
// returns, so draining the queue synchronously at check time sees every
// change that finished before the check: a clean drain proves nothing
// changed since the last full verification. A lost event (queue overflow)
// or a removed watch marks everything dirty, which means "re-verify".
type watcher struct {
	mu    sync.Mutex
	fd    int
	owner map[int32]int // watch descriptor -> entry index
	dirs  map[int]map[string]bool
	dirty map[int]bool
	all   bool // the queue overflowed: every entry must re-verify
	buf   []byte
}

const watchMask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_CREATE |
	unix.IN_DELETE | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_DONT_FOLLOW | unix.IN_ONLYDIR

// errNoWatch means change notification is not available; callers fall back
// to a full verification before every spawn.
var errNoWatch = errors.New("change notification unavailable")

func newWatcher() (*watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, errNoWatch
	}
	return &watcher{fd: fd, owner: map[int32]int{}, dirs: map[int]map[string]bool{}, dirty: map[int]bool{}, buf: make([]byte, 64<<10)}, nil
}

// watchTree watches root and every directory of t for entry, and reports
// whether every directory was already watched (false: new directories were
// added, so the caller must verify again).
func (w *watcher) watchTree(entry int, root string, t *bundle.Tree) (bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.dirs[entry] == nil {
		w.dirs[entry] = map[string]bool{}
	}
	stable := true
	add := func(dir string) error {
		if w.dirs[entry][dir] {
			return nil
		}
		wd, err := unix.InotifyAddWatch(w.fd, dir, watchMask)
		if err != nil {
			return err
		}
		w.owner[int32(wd)] = entry
		w.dirs[entry][dir] = true
		stable = false
		return nil
	}
	if err := add(root); err != nil {
		return false, err
	}
	for _, e := range t.Entries {
		if e.Kind == bundle.KindDir {
			if err := add(filepath.Join(root, filepath.FromSlash(e.Path))); err != nil {
				return false, err
			}
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
			switch {
			case ev.Mask&unix.IN_Q_OVERFLOW != 0:
				w.all = true
			default:
				if i, ok := w.owner[ev.Wd]; ok {
					w.dirty[i] = true
				} else {
					w.all = true // an event we cannot attribute: be safe
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
		for _, i := range w.owner {
			if i != entry {
				w.dirty[i] = true
			}
		}
		w.all = false
	}
}

func (w *watcher) close() {
	if w != nil {
		unix.Close(w.fd)
	}
}
