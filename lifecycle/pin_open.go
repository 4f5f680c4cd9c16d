package lifecycle

import (
	"golang.org/x/sys/unix"
)

// pinEntryByOpen is pinEntry where there is no O_PATH (off Linux; run on
// Linux by its test too): the entry name of the directory dirfd, not
// followed, is opened only as a directory, and without waiting, and held
// open until release; anything else (a symbolic link, a FIFO, a device, a
// directory it cannot read) is only stat'd. A FIFO opened for reading
// would wait for a writer, for ever: a user who may write a workspace's
// .bundlectl could put one in the bundle's place to hang update.
func pinEntryByOpen(dirfd int, name string) (id *entryID, release func()) {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err == nil {
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
			return idOf(&st), func() { unix.Close(fd) }
		}
		unix.Close(fd)
	}
	return statEntry(dirfd, name), func() {}
}
