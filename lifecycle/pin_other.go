//go:build !linux

package lifecycle

import (
	"golang.org/x/sys/unix"
)

// pinEntry returns the identity of the entry name of the directory dirfd,
// not followed (nil when there is none), and holds it open until release
// when it can be opened: an inode held open is not freed, so no file made
// meanwhile can take its number and pass for it. A directory it cannot
// read, or a symbolic link, is only stat'd (without O_PATH there is no
// other way).
func pinEntry(dirfd int, name string) (id *entryID, release func()) {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err == nil {
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
			return idOf(&st), func() { unix.Close(fd) }
		}
		unix.Close(fd)
	}
	return statEntry(dirfd, name), func() {}
}
