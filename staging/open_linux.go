package staging

import (
	"os"
	"path"
	"sync"

	"github.com/bundlectl/bundlectl/bundle"
	"golang.org/x/sys/unix"
)

// On Linux ≥ 5.6 a file is opened with one openat2(2) whose resolution the
// kernel confines: RESOLVE_BENEATH (no escape from the directory) and
// RESOLVE_NO_SYMLINKS (no link at any element). That is the guarantee of
// bundle.OpenNoFollow in one system call instead of one per path element,
// which is most of the cost of copying many small files.
const resolveStrict = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS

var (
	openat2Once sync.Once
	openat2OK   bool
)

// haveOpenat2 reports whether openat2 works here (seccomp filters of some
// container runtimes refuse it with EPERM or ENOSYS).
func haveOpenat2() bool {
	openat2Once.Do(func() {
		fd, err := unix.Openat2(unix.AT_FDCWD, "/", &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS})
		if err == nil {
			unix.Close(fd)
			openat2OK = true
		}
	})
	return openat2OK && !testOnlyNoOpenat2
}

// openWalkedFast opens the walked regular file e below the directory open
// as rootfd and checks it is the walked inode, like bundle.Tree.Open.
// O_NONBLOCK keeps a FIFO swapped in from blocking the open; the type check
// then refuses it.
func openWalkedFast(rootfd int, e bundle.Entry) (int, error) {
	fd, err := unix.Openat2(rootfd, e.Path, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_NOCTTY | unix.O_CLOEXEC,
		Resolve: resolveStrict,
	})
	if err != nil {
		return -1, openRefusal(e.Path, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, err
	}
	if why := bundle.SameFile(e, &st); why != "" {
		unix.Close(fd)
		return -1, changed(e.Path, why)
	}
	return fd, nil
}

// recheckFast is bundle.Recheck for a raw descriptor.
func recheckFast(fd int, e bundle.Entry) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if why := bundle.SameFile(e, &st); why != "" {
		return changed(e.Path, why)
	}
	if st.Mtim.Nano() != e.MtimeNs || st.Ctim.Nano() != e.CtimeNs {
		return changed(e.Path, "modified")
	}
	return nil
}

// createFast creates rel below the directory open as dirfd, exclusively,
// with mode, through no link.
func createFast(dirfd int, rel string, mode uint32) (int, error) {
	return unix.Openat2(dirfd, rel, &unix.OpenHow{
		Flags:   unix.O_WRONLY | unix.O_CREAT | unix.O_EXCL | unix.O_NOFOLLOW | unix.O_CLOEXEC,
		Mode:    uint64(mode),
		Resolve: resolveStrict,
	})
}

// mkdirFast creates the directory rel, mode 0700, below the directory open
// as dirfd; its parent is reached through no link.
func mkdirFast(dirfd int, rel string) error {
	parent, base := path.Split(rel)
	pfd := dirfd
	if parent != "" {
		fd, err := unix.Openat2(dirfd, parent, &unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: resolveStrict})
		if err != nil {
			return &os.PathError{Op: "mkdir", Path: rel, Err: err}
		}
		defer unix.Close(fd)
		pfd = fd
	}
	if err := unix.Mkdirat(pfd, base, 0o700); err != nil {
		return &os.PathError{Op: "mkdir", Path: rel, Err: err}
	}
	return nil
}

// symlinkFast creates the symbolic link rel holding text below the
// directory open as dirfd, whose parent is reached through no link, and
// returns what the new link holds, read back.
func symlinkFast(dirfd int, rel, text string) (string, error) {
	parent, base := path.Split(rel)
	pfd := dirfd
	if parent != "" {
		fd, err := unix.Openat2(dirfd, parent, &unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: resolveStrict})
		if err != nil {
			return "", &os.PathError{Op: "symlink", Path: rel, Err: err}
		}
		defer unix.Close(fd)
		pfd = fd
	}
	if err := unix.Symlinkat(text, pfd, base); err != nil {
		return "", &os.PathError{Op: "symlink", Path: rel, Err: err}
	}
	buf := make([]byte, len(text)+1)
	n, err := unix.Readlinkat(pfd, base, buf)
	if err != nil {
		return "", &os.PathError{Op: "readlink", Path: rel, Err: err}
	}
	return string(buf[:n]), nil
}

// sealFast gives the directory rel below dirfd mode 0500, reaching it
// through no link.
func sealFast(dirfd int, rel string) error {
	fd, err := unix.Openat2(dirfd, rel, &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: resolveStrict})
	if err == nil {
		err = unix.Fchmod(fd, dirMode)
		unix.Close(fd)
	}
	if err != nil {
		return &os.PathError{Op: "seal", Path: rel, Err: err}
	}
	return nil
}
