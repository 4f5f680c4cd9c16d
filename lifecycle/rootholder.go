package lifecycle

import (
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/bundlectl/bundlectl/bundle"
)

// heldRoot is the bundle root a command moves trees into and out of.
//
// The workspace's root (.bundlectl/bundles) is opened with O_NOFOLLOW
// from .bundlectl, itself opened with O_NOFOLLOW, and held open for the
// command: every placement, move out and exchange is made relative to it
// (renameat2 with the holder's descriptor and this one), and right before
// each the root's path must still lead to it (check). A user who may
// write .bundlectl (a workspace shared through a group) can rename
// bundles away and put a symbolic link to anywhere in its place; that
// redirects no move: the command refuses, or acts in the directory it
// checked, never in the link's target.
//
// The user root ($BUNDLECTL_HOME/bundles) is this user's own, made 0700
// in a home only this user writes: it is used by path (fd is
// unix.AT_FDCWD and entries are named by their full path).
type heldRoot struct {
	path string   // the root, for messages
	ws   bool     // the workspace's root, held by fd
	fd   int      // the root, held open (ws); unix.AT_FDCWD otherwise
	id   *entryID // the held root's (ws)
}

// entryID is a directory entry's identity (its device and inode) and
// whether it is a directory.
type entryID struct {
	dev, ino uint64
	dir      bool
}

// is reports whether id is the entry start (nil: none).
func (id *entryID) is(start *entryID) bool {
	return id != nil && start != nil && id.dev == start.dev && id.ino == start.ino
}

func idOf(st *unix.Stat_t) *entryID {
	return &entryID{uint64(st.Dev), uint64(st.Ino), st.Mode&unix.S_IFMT == unix.S_IFDIR}
}

// statEntry is the identity of the entry name of dirfd, not followed;
// nil when there is none.
func statEntry(dirfd int, name string) *entryID {
	var st unix.Stat_t
	if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return nil
	}
	return idOf(&st)
}

// openRoot opens root, the user's or the workspace's bundle root, which
// ensureRoot or discovery found a real directory. The caller closes it.
func (m *Manager) openRoot(root string) (*heldRoot, error) {
	if user, err := m.rootDir(bundle.ScopeUser); err == nil && filepath.Clean(user) == filepath.Clean(root) {
		return &heldRoot{path: root, fd: unix.AT_FDCWD}, nil
	}
	dot := filepath.Dir(root)
	dfd, err := openDirNoFollow(unix.AT_FDCWD, dot, dot)
	if err != nil {
		return nil, err
	}
	defer unix.Close(dfd)
	fd, err := openDirNoFollow(dfd, filepath.Base(root), root)
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, wsTmpError(root, "cannot be read: "+err.Error(), "ls -ld -- "+bundle.ShellArg(root))
	}
	return &heldRoot{path: root, ws: true, fd: fd, id: idOf(&st)}, nil
}

// at names the entry name of the root for a call relative to r.fd.
func (r *heldRoot) at(name string) string {
	if r.ws {
		return name
	}
	return filepath.Join(r.path, name)
}

// entry is the identity of the root's entry name, not followed; nil when
// there is none.
func (r *heldRoot) entry(name string) *entryID { return statEntry(r.fd, r.at(name)) }

// check refuses when the workspace's root path no longer leads to the
// held root: .bundlectl is a link now, or bundles was renamed away and a
// link or another directory put in its place.
func (r *heldRoot) check() error {
	if !r.ws {
		return nil
	}
	dot := filepath.Dir(r.path)
	var st unix.Stat_t
	if unix.Lstat(dot, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR &&
		unix.Lstat(r.path, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR && idOf(&st).is(r.id) {
		if testOnlyRootChecked != nil {
			testOnlyRootChecked()
		}
		return nil
	}
	return wsTmpError(r.path, "was replaced while this command used it: it was renamed away and a symbolic link or another directory put in its place (by a user who may write "+bundle.Quote(dot)+"), so this command stopped: nothing was placed, moved or removed through it; find out who before running the command again",
		"ls -la -- "+bundle.ShellArg(dot))
}

// testOnlyRootChecked runs in check once the workspace's root was found
// where it was opened, right before the move that check guards.
var testOnlyRootChecked func()

// close closes the root. Safe to call more than once.
func (r *heldRoot) close() {
	if r != nil && r.ws && r.fd >= 0 {
		unix.Close(r.fd)
		r.fd = -1
	}
}
