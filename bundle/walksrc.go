package bundle

import (
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// dirSource is one directory as the rule pass sees it: its sorted names,
// the lstat of each, and its subdirectories.
type dirSource interface {
	// list returns the names sorted, or over when there are more than max.
	list(max int) (names []string, over bool, err error)
	// stat is the lstat of names[i].
	stat(i int, name string) (unix.Stat_t, error)
	// readlink is the text of the symbolic link names[i], whose lstat
	// was st; it fails if the name no longer is that link.
	readlink(i int, name string, st *unix.Stat_t) (string, error)
	// child opens the subdirectory name, whose path below the root is rel.
	child(name, rel string) (dirSource, error)
	close()
}

// fdDir reads the file system directly, through an open directory.
type fdDir struct {
	fd int
}

func newFdDir(fd int) *fdDir { return &fdDir{fd: fd} }

func (d *fdDir) list(max int) ([]string, bool, error) {
	names, over, err := readNames(d.fd, max)
	sortStrings(names)
	return names, over, err
}

func (d *fdDir) stat(_ int, name string) (unix.Stat_t, error) {
	var st unix.Stat_t
	err := lstatAt(d.fd, name, &st)
	return st, err
}

func (d *fdDir) readlink(_ int, name string, st *unix.Stat_t) (string, error) {
	return readlinkChecked(d.fd, name, st)
}

func (d *fdDir) child(name, _ string) (dirSource, error) {
	cfd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return newFdDir(cfd), nil
}

func (d *fdDir) close() { unix.Close(d.fd) }

// scanned is one directory as the prescan saw it.
type scanned struct {
	names []string // sorted
	stats []unix.Stat_t
	errs  []error
	// links and linkErrs hold the text of each symbolic link (by index
	// in names), or why it could not be read; nil when there is none.
	links    map[int]string
	linkErrs map[int]error
	err      error // listing failed
	over     bool
}

// rawDir serves the rule pass from the prescan.
type rawDir struct {
	all map[string]*scanned
	rel string
}

func (d *rawDir) list(int) ([]string, bool, error) {
	s := d.all[d.rel]
	return s.names, s.over, s.err
}

func (d *rawDir) stat(i int, _ string) (unix.Stat_t, error) {
	s := d.all[d.rel]
	return s.stats[i], s.errs[i]
}

func (d *rawDir) readlink(i int, _ string, _ *unix.Stat_t) (string, error) {
	s := d.all[d.rel]
	if err := s.linkErrs[i]; err != nil {
		return "", err
	}
	if t, ok := s.links[i]; ok {
		return t, nil
	}
	return "", unix.EINVAL // the prescan saw no link here; fail closed
}

func (d *rawDir) child(_, rel string) (dirSource, error) {
	if _, ok := d.all[rel]; !ok {
		// The prescan did not descend here (a rule stops the pass from
		// descending first, so this cannot happen; fail closed anyway).
		return nil, unix.ENOENT
	}
	return &rawDir{all: d.all, rel: rel}, nil
}

func (d *rawDir) close() {}

func prescanIf(parallel bool, rootfd int, lim Limits) (map[string]*scanned, bool) {
	if !parallel || runtime.GOMAXPROCS(0) < 2 {
		return nil, false
	}
	return prescan(rootfd, lim)
}

// prescan lists and lstats the whole tree below rootfd on a few workers,
// opening every directory with one openat2 that refuses symbolic links and
// escapes from the root, and checking that the directory opened is the one
// its parent's lstat saw. It descends exactly where the rule pass would
// (a directory whose name and path pass the rules, within the depth
// bound). It reports false — and the caller walks the file system
// directly — when openat2 is unavailable, a bound on entries is exceeded,
// or a directory changed under it.
func prescan(rootfd int, lim Limits) (map[string]*scanned, bool) {
	if !haveOpenat2() {
		return nil, false
	}
	type job struct {
		rel      string
		depth    int
		dev, ino uint64 // what the parent's lstat saw; 0 for the root
	}
	var (
		mu      sync.Mutex
		cond    = sync.NewCond(&mu)
		queue   = []job{{rel: ""}}
		pending = 1 // jobs queued or running
		all     = map[string]*scanned{}
		total   = 0
		failed  = false
	)
	work := func(j job) {
		fd := -1
		var err error
		if j.rel == "" {
			// A new open of the root, not a dup: a dup would share the
			// directory offset with the caller's descriptor.
			fd, err = openBeneath(rootfd, ".")
		} else {
			fd, err = openBeneath(rootfd, j.rel)
		}
		if err != nil {
			mu.Lock()
			failed = true
			mu.Unlock()
			return
		}
		d := newFdDir(fd)
		defer d.close()
		if j.rel != "" {
			var st unix.Stat_t
			if unix.Fstat(fd, &st) != nil || uint64(st.Dev) != j.dev || uint64(st.Ino) != j.ino {
				mu.Lock()
				failed = true
				mu.Unlock()
				return
			}
		}
		s := &scanned{}
		s.names, s.over, s.err = d.list(lim.MaxEntries)
		var next []job
		if s.err == nil && !s.over {
			s.stats = make([]unix.Stat_t, len(s.names))
			s.errs = make([]error, len(s.names))
			for i, name := range s.names {
				s.stats[i], s.errs[i] = d.stat(i, name)
				p := pathJoin(j.rel, name)
				st := &s.stats[i]
				if s.errs[i] == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
					if s.links == nil {
						s.links, s.linkErrs = map[int]string{}, map[int]error{}
					}
					if t, err := d.readlink(i, name, st); err != nil {
						s.linkErrs[i] = err
					} else {
						s.links[i] = t
					}
				}
				if s.errs[i] == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR &&
					len(p) <= lim.MaxPathBytes && j.depth+1 <= lim.MaxDepth {
					if msg, _ := CheckName(name); msg == "" {
						next = append(next, job{rel: p, depth: j.depth + 1, dev: uint64(st.Dev), ino: uint64(st.Ino)})
					}
				}
			}
		}
		mu.Lock()
		all[j.rel] = s
		total += len(s.names)
		if s.over || total > lim.MaxEntries {
			failed = true // the bound is broken: let the direct walk report it exactly
		}
		if !failed {
			queue = append(queue, next...)
			pending += len(next)
		}
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for i := 0; i < runtime.GOMAXPROCS(0); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			for {
				for len(queue) == 0 && pending > 0 && !failed {
					cond.Wait()
				}
				if pending == 0 || failed {
					mu.Unlock()
					cond.Broadcast()
					return
				}
				j := queue[len(queue)-1]
				queue = queue[:len(queue)-1]
				mu.Unlock()
				work(j)
				mu.Lock()
				pending--
				cond.Broadcast()
			}
		}()
	}
	wg.Wait()
	if failed {
		return nil, false
	}
	return all, true
}
