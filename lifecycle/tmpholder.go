package lifecycle

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/sources"
)

// tmpHolder is a private directory (stagePrefix*, 0700) that one command
// made with mkdirat in this home's tmp directory for a root
// (fetchParent), held open with that directory. A tree is fetched into
// it, and moved into and out of a root from it, by descriptor
// (renameat): a user who may write a workspace's .bundlectl can rename
// the checked directories away and put a link or a directory of theirs
// in their place, and that redirects no move and no removal. A fetch
// writes only through the holder opened as an os.Root (sources.Options
// Parent), checked to be the held directory; what needs a path (the
// readers) gets h.path, checked to lead to the held directory right
// before and after (check), the validation's walk checked to have read
// the held tree (holds), and the fetched tree is taken only from the
// held directory: a swap meanwhile is refused, never used.
type tmpHolder struct {
	dir   string    // this home's tmp directory (fetchParent's path)
	ws    bool      // dir is in a workspace
	name  string    // the holder's name in dir
	path  string    // dir/name
	dirfd int       // dir, held open
	fd    int       // the holder, held open
	id    *entryID  // the holder's
	root  *heldRoot // the bundle root trees are moved into and out of
}

// fetchHolder makes a tmpHolder in this home's tmp directory for root.
// The caller removes it (remove) when done.
func (m *Manager) fetchHolder(root string) (*tmpHolder, error) {
	dirfd, dir, err := m.fetchParent(root)
	if err != nil {
		return nil, err
	}
	h := &tmpHolder{dir: dir, ws: dir != filepath.Join(m.Roots.Home, TmpDir), dirfd: dirfd, fd: -1}
	if h.root, err = m.openRoot(root); err != nil {
		h.close()
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		h.name = stagePrefix + strconv.FormatUint(rand.Uint64(), 36)
		err = unix.Mkdirat(dirfd, h.name, 0o700)
		if !errors.Is(err, unix.EEXIST) || attempt >= 100 {
			break
		}
	}
	h.path = filepath.Join(dir, h.name)
	if err == nil {
		h.fd, err = unix.Openat(dirfd, h.name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	}
	var st unix.Stat_t
	if err == nil {
		err = unix.Fstat(h.fd, &st)
	}
	if err != nil {
		h.remove()
		return nil, h.refuse("cannot be used: cannot make a directory in it: "+err.Error(), "ls -ld -- "+bundle.ShellArg(dir))
	}
	h.id = idOf(&st)
	if testOnlyHolderMade != nil {
		testOnlyHolderMade()
	}
	return h, nil
}

// testOnlyHolderMade runs in fetchHolder once the tmp directory is
// checked and the holder made in it, before any use.
var testOnlyHolderMade func()

func (h *tmpHolder) refuse(reason, fix string) error {
	if h.ws {
		return wsTmpError(h.dir, reason, fix)
	}
	return &SourceError{Reason: "the fetch directory " + bundle.Quote(h.dir) + " " + reason, Fix: fix, Err: ErrRefused}
}

// check refuses when h.path no longer leads to the held directory: it,
// or a directory above it, was renamed away and a link or another
// directory put in its place.
func (h *tmpHolder) check() error {
	var st unix.Stat_t
	if unix.Stat(h.path, &st) == nil && idOf(&st).is(h.id) {
		return nil
	}
	return h.swapped()
}

// holds refuses, as check does, when h.path no longer leads to the held
// directory, and when t, the validation's walk of the entry name, did
// not walk the held directory's entry: the walk opens its root by path
// (and reads every file again by path, checked to be the inode it
// walked), so a swap made and undone while it opened the root would
// have it validate another tree than the one that would be placed.
func (h *tmpHolder) holds(name string, t *bundle.Tree) error {
	if err := h.check(); err != nil {
		return err
	}
	id := statEntry(h.fd, name)
	if t == nil || !id.is(&entryID{dev: t.RootDev, ino: t.RootIno}) {
		return h.swapped()
	}
	return nil
}

func (h *tmpHolder) swapped() error {
	who := "someone who may write it"
	if h.ws {
		who = "a user who may write the workspace's " + bundle.Quote(filepath.Dir(filepath.Dir(h.dir)))
	}
	return h.refuse("was replaced while this command used it: it, or a directory above it, was renamed away and a link or another directory put in its place (by "+who+"), so this command stopped: nothing fetched through it was used, and nothing was moved through it; find out who before running the command again",
		"ls -la -- "+bundle.ShellArg(filepath.Dir(h.dir)))
}

// fetch runs fetch with h.path as the parent and the holder opened as
// an os.Root (checked to be the held directory), which the fetch writes
// through (sources.Options.Parent): a swap of h.path, or of a directory
// above it, after the check redirects none of its writes. It takes the
// tree fetched from the held directory, renamed there to the name the
// fetch gives it (h.at(res.Name)), and refuses it when h.path no longer
// leads to the held directory afterwards.
func (h *tmpHolder) fetch(fetch func(parent string, held *os.Root) (*sources.Result, error)) (*sources.Result, error) {
	if err := h.check(); err != nil {
		return nil, err
	}
	held, err := h.openRoot()
	if err != nil {
		return nil, err
	}
	defer held.Close()
	if testOnlyFetchStarting != nil {
		testOnlyFetchStarting()
	}
	res, err := fetch(h.path, held)
	if err != nil {
		if cerr := h.check(); cerr != nil {
			return nil, cerr // why it failed, whatever the fetch says
		}
		return nil, err
	}
	if err := h.check(); err != nil {
		return nil, err
	}
	if filepath.Dir(res.Dir) != h.path {
		return nil, fmt.Errorf("the fetch placed its tree at %s, outside %s", bundle.Quote(res.Dir), bundle.Quote(h.path))
	}
	name := res.Name
	if err := unix.Renameat(h.fd, filepath.Base(res.Dir), h.fd, name); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil, h.swapped() // fetched elsewhere, and swapped back
		}
		return nil, linkError("rename", res.Dir, h.at(name), err)
	}
	res.Dir = h.at(name)
	return res, nil
}

// openRoot opens the holder as an os.Root, by its path (os.Root cannot
// be made from a descriptor), and refuses it unless it is the held
// directory: a swap between check and the open is refused, never used.
func (h *tmpHolder) openRoot() (*os.Root, error) {
	r, err := os.OpenRoot(h.path)
	if err != nil {
		return nil, h.swapped()
	}
	// A directory swapped in may open but refuse the Stat (r--, another
	// user's): refused as a swap, never a nil FileInfo's Sys.
	fi, err := r.Stat(".")
	var st *syscall.Stat_t
	if err == nil {
		st, _ = fi.Sys().(*syscall.Stat_t)
	}
	if st == nil || uint64(st.Dev) != h.id.dev || uint64(st.Ino) != h.id.ino {
		r.Close()
		return nil, h.swapped()
	}
	return r, nil
}

// testOnlyFetchStarting runs in tmpHolder.fetch once the holder is
// checked and opened, right before the fetch.
var testOnlyFetchStarting func()

// at is the path of the entry name of the holder.
func (h *tmpHolder) at(name string) string { return filepath.Join(h.path, name) }

// has reports whether the holder has an entry name.
func (h *tmpHolder) has(name string) bool {
	var st unix.Stat_t
	return unix.Fstatat(h.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil
}

// rename renames the entry from of the holder to to.
func (h *tmpHolder) rename(from, to string) error {
	return linkError("rename", h.at(from), h.at(to), unix.Renameat(h.fd, from, h.fd, to))
}

// place moves the holder's entry name to the root's entry to, which must
// not exist. A workspace's root is checked first (heldRoot.check); the
// move is made in the root held, whatever its path leads to by then.
func (h *tmpHolder) place(name, to string) error {
	if err := h.root.check(); err != nil {
		return err
	}
	return renamed(renameNoReplaceAt(h.fd, name, h.root.fd, h.root.at(to)), h.at(name), filepath.Join(h.root.path, to))
}

// takeIn moves the root's entry from into the holder as its entry name.
func (h *tmpHolder) takeIn(from, name string) error {
	if err := h.root.check(); err != nil {
		return err
	}
	return linkError("rename", filepath.Join(h.root.path, from), h.at(name), unix.Renameat(h.root.fd, h.root.at(from), h.fd, name))
}

// exchange swaps the holder's entry name with the root's directory
// other.
func (h *tmpHolder) exchange(name, other string) error {
	if err := h.root.check(); err != nil {
		return err
	}
	return renamed(exchangeAt(h.fd, name, h.root.fd, h.root.at(other)), h.at(name), filepath.Join(h.root.path, other))
}

// undoPlace, undoTakeIn and undoExchange undo place, takeIn and
// exchange in the root held, without checking where its path leads: a
// tree this command moved is moved back to where it was, wherever that
// directory is now.
func (h *tmpHolder) undoPlace(name, to string) error {
	return linkError("rename", filepath.Join(h.root.path, to), h.at(name), unix.Renameat(h.root.fd, h.root.at(to), h.fd, name))
}

func (h *tmpHolder) undoTakeIn(from, name string) error {
	return renamed(renameNoReplaceAt(h.fd, name, h.root.fd, h.root.at(from)), h.at(name), filepath.Join(h.root.path, from))
}

func (h *tmpHolder) undoExchange(name, other string) error {
	return renamed(exchangeAt(h.fd, name, h.root.fd, h.root.at(other)), h.at(name), filepath.Join(h.root.path, other))
}

// renamed names the paths from and to in err, a *os.LinkError of
// renameNoReplaceAt or exchangeAt, which name the entries relative to
// their directories.
func renamed(err error, from, to string) error {
	var le *os.LinkError
	if errors.As(err, &le) {
		le.Old, le.New = from, to
	}
	return err
}

// remove deletes the holder and what it holds, by descriptor, and closes
// it. Safe to call more than once.
func (h *tmpHolder) remove() {
	if h.fd >= 0 {
		var st unix.Stat_t
		if unix.Fstatat(h.dirfd, h.name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && idOf(&st).is(h.id) {
			_ = removeAllAt(h.dirfd, h.name)
		}
	} else if h.name != "" {
		_ = unix.Unlinkat(h.dirfd, h.name, unix.AT_REMOVEDIR) // made, not opened
	}
	h.close()
}

// close closes the holder, leaving it where it is, and the root.
func (h *tmpHolder) close() {
	h.root.close()
	if h.fd >= 0 {
		unix.Close(h.fd)
		h.fd = -1
	}
	if h.dirfd >= 0 {
		unix.Close(h.dirfd)
		h.dirfd = -1
	}
}

// removeAllAt removes the entry name of the directory dirfd and, when it
// is a directory, everything in it, never following a link: each
// directory is entered with O_NOFOLLOW from the one above it. A
// directory without write permission for its owner is given it first.
func removeAllAt(dirfd int, name string) error {
	err := unix.Unlinkat(dirfd, name, 0)
	if err == nil || errors.Is(err, unix.ENOENT) {
		return nil
	}
	fd, oerr := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if oerr != nil {
		return err // not a directory: the unlink's error says why
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) == nil && st.Mode&0o700 != 0o700 {
		_ = unix.Fchmod(fd, uint32(st.Mode&0o7777)|0o700)
	}
	f := os.NewFile(uintptr(fd), name)
	// All names first: unlinking while reading could skip some.
	names, first := f.Readdirnames(-1)
	for _, n := range names {
		if err := removeAllAt(fd, n); err != nil && first == nil {
			first = err
		}
	}
	f.Close()
	if err := unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR); err != nil && first == nil {
		first = err
	}
	return first
}
