package lifecycle

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/bundlectl/bundlectl/bundle"
)

// fetchParent opens the directory a tree bound for root is fetched or
// moved into (tmpFor), made sure of, and returns its descriptor (the
// caller closes it) and its path, for messages. In the workspace, which anyone may
// have written (a cloned repository can ship .bundlectl, .bundlectl/tmp
// or this home's directory in it as a symbolic link to anywhere), each of
// those is entered with O_NOFOLLOW from the one checked before it and
// made with mkdirat there when missing: a link (or a non-directory) is
// refused, never followed, so a fetch, an uninstall's move or their
// removal cannot be redirected out of the workspace. This home's
// directory must be this user's, and is made (or set) 0700.
//
// The workspace's tmp is made with the group, permission bits and
// set-group-ID bit of .bundlectl, and the sticky bit (as /tmp): the users
// who may write .bundlectl (and so install into it) may each make their
// home's directory there, and none can remove or rename another's. A tmp
// every user may write without the sticky bit is refused.
func (m *Manager) fetchParent(root string) (int, string, error) {
	dir := m.tmpFor(root)
	if dir == filepath.Join(m.Roots.Home, TmpDir) {
		// The home's, which is this user's: made when missing.
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return -1, "", fmt.Errorf("cannot make the fetch directory %s: %w", bundle.Quote(dir), err)
		}
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1, "", fmt.Errorf("cannot open the fetch directory %s (a symbolic link is refused): %w", bundle.Quote(dir), err)
		}
		return fd, dir, nil
	}
	dot := filepath.Dir(root)
	tmp := filepath.Join(dot, TmpDir)
	fd, err := openDirNoFollow(unix.AT_FDCWD, dot, dot)
	if err != nil {
		return -1, "", err
	}
	defer unix.Close(fd)
	var dst unix.Stat_t
	if err := unix.Fstat(fd, &dst); err != nil {
		return -1, "", wsTmpError(dot, "cannot be read: "+err.Error(), "ls -ld -- "+bundle.ShellArg(dot))
	}
	tfd, made, err := mkdirOpenNoFollow(fd, TmpDir, tmp)
	if err != nil {
		return -1, "", mkdirError(err, tmp)
	}
	defer unix.Close(tfd)
	if made {
		// .bundlectl's group, so that the users who share it through
		// that group can use tmp too (best effort: this user may not be
		// in it). Then the mode, which the umask may have cut.
		_ = unix.Fchown(tfd, -1, int(dst.Gid))
		if err := unix.Fchmod(tfd, tmpModeFor(uint32(dst.Mode))); err != nil {
			return -1, "", wsTmpError(tmp, "cannot be set up: "+err.Error(), "ls -ld -- "+bundle.ShellArg(tmp))
		}
	}
	var tst unix.Stat_t
	if err := unix.Fstat(tfd, &tst); err != nil {
		return -1, "", wsTmpError(tmp, "cannot be read: "+err.Error(), "ls -ld -- "+bundle.ShellArg(tmp))
	}
	if tst.Mode&0o002 != 0 && tst.Mode&unix.S_ISVTX == 0 {
		// Any user could rename this home's directory away between
		// this check and its use and put one of theirs in its place.
		return -1, "", wsTmpError(tmp, fmt.Sprintf("is writable by every user without the sticky bit (mode %o), so any of them could swap this home's directory in it for their own; bundlectl makes it sticky", tst.Mode&0o7777),
			fmt.Sprintf("chmod %o -- %s", tst.Mode&0o7777|unix.S_ISVTX, bundle.ShellArg(tmp)))
	}
	kfd, _, err := mkdirOpenNoFollow(tfd, filepath.Base(dir), dir)
	if err != nil {
		if errors.Is(err, unix.EACCES) {
			return -1, "", wsTmpError(dir, fmt.Sprintf("cannot be made: %s belongs to user %d and does not let this user (%d) make a directory in it, so this home cannot use this workspace; its owner can let every user who may write %s do so",
				bundle.Quote(tmp), tst.Uid, os.Geteuid(), bundle.Quote(dot)),
				fmt.Sprintf("chmod %o -- %s", tmpModeFor(uint32(dst.Mode)), bundle.ShellArg(tmp)))
		}
		return -1, "", mkdirError(err, dir)
	}
	ok := false
	defer func() {
		if !ok {
			unix.Close(kfd)
		}
	}()
	var kst unix.Stat_t
	if err := unix.Fstat(kfd, &kst); err != nil {
		return -1, "", wsTmpError(dir, "cannot be read: "+err.Error(), "ls -ld -- "+bundle.ShellArg(dir))
	}
	if int(kst.Uid) != os.Geteuid() {
		// Made by another user: it could read or change what this home
		// fetches there.
		return -1, "", wsTmpError(dir, fmt.Sprintf("belongs to user %d, not to this user (%d), so this home does not fetch into it (its owner could read or change what is fetched there); have it removed (as its owner or root)", kst.Uid, os.Geteuid()),
			"rm -r -- "+bundle.ShellArg(dir))
	}
	if kst.Mode&0o7777 != 0o700 {
		if err := unix.Fchmod(kfd, 0o700); err != nil {
			return -1, "", wsTmpError(dir, "cannot be made private (0700): "+err.Error(), "chmod 700 -- "+bundle.ShellArg(dir))
		}
	}
	ok = true
	return kfd, dir, nil
}

// tmpModeFor is the mode of a workspace's tmp made in a .bundlectl of
// mode dotMode: its permission bits and set-group-ID bit, and the sticky
// bit.
func tmpModeFor(dotMode uint32) uint32 {
	return dotMode&(0o777|unix.S_ISGID) | unix.S_ISVTX
}

// mkdirOpenNoFollow makes the directory name in dirfd when it is missing
// (0700, so nobody else can use it until it is set up) and opens it
// without following a link; path names it in errors. made says whether
// this call made it.
func mkdirOpenNoFollow(dirfd int, name, path string) (fd int, made bool, err error) {
	err = unix.Mkdirat(dirfd, name, 0o700)
	made = err == nil
	if err != nil && !errors.Is(err, unix.EEXIST) {
		return -1, false, &os.PathError{Op: "mkdir", Path: path, Err: err}
	}
	fd, err = openDirNoFollow(dirfd, name, path)
	return fd, made, err
}

// openDirNoFollow opens the directory name in dirfd, refusing a symbolic
// link or anything else that is not a directory.
func openDirNoFollow(dirfd int, name, path string) (int, error) {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err == nil {
		return fd, nil
	}
	var st unix.Stat_t
	if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		switch {
		case st.Mode&unix.S_IFMT == unix.S_IFLNK:
			return -1, wsTmpError(path, "is a symbolic link; bundlectl never follows a link in a workspace's .bundlectl (a repository can ship one to redirect what bundlectl writes or removes); remove the link (what it points to is not touched)",
				"rm -- "+bundle.ShellArg(path))
		case st.Mode&unix.S_IFMT != unix.S_IFDIR:
			return -1, wsTmpError(path, "is not a directory; bundlectl keeps its temporary directories there; move it aside",
				"mv -- "+bundle.ShellArg(path)+" "+bundle.ShellArg(path+".moved"))
		}
	}
	return -1, wsTmpError(path, "cannot be opened: "+err.Error(), "ls -ld -- "+bundle.ShellArg(path))
}

func wsTmpError(path, reason, fix string) error {
	return &SourceError{Reason: "the workspace's " + bundle.Quote(path) + " " + reason, Fix: fix, Err: ErrRefused}
}

// mkdirError words a failure of mkdirOpenNoFollow to make path (its own
// refusals are worded already).
func mkdirError(err error, path string) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return wsTmpError(path, "cannot be made: "+pe.Err.Error(), "ls -ld -- "+bundle.ShellArg(filepath.Dir(path)))
	}
	return err
}
