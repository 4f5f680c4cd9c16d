package lifecycle

import (
	"os"

	"golang.org/x/sys/unix"
)

// pinEntry returns the identity of the entry at path, not followed (nil
// when there is none), and holds it open until release: an inode held
// open is not freed, so no file made meanwhile can take its number and
// pass for it. O_PATH needs no permission to read the entry, and opens a
// symbolic link itself.
func pinEntry(path string) (fi os.FileInfo, release func()) {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		fi, _ := os.Lstat(path)
		return fi, func() {}
	}
	f := os.NewFile(uintptr(fd), path)
	if fi, err = f.Stat(); err != nil {
		f.Close()
		fi, _ := os.Lstat(path)
		return fi, func() {}
	}
	return fi, func() { f.Close() }
}
