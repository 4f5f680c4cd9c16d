package lifecycle

import (
	"golang.org/x/sys/unix"
)

// pinEntry returns the identity of the entry name of the directory dirfd,
// not followed (nil when there is none), and holds it open until release:
// an inode held open is not freed, so no file made meanwhile can take its
// number and pass for it. O_PATH needs no permission to read the entry,
// and opens a symbolic link itself.
func pinEntry(dirfd int, name string) (id *entryID, release func()) {
	fd, err := unix.Openat(dirfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return statEntry(dirfd, name), func() {}
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		unix.Close(fd)
		return statEntry(dirfd, name), func() {}
	}
	return idOf(&st), func() { unix.Close(fd) }
}
