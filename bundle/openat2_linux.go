package bundle

import (
	"sync"

	"golang.org/x/sys/unix"
)

var (
	openat2Once sync.Once
	openat2OK   bool
)

// haveOpenat2 reports whether openat2(2) works here (Linux ≥ 5.6, and not
// filtered by a seccomp policy).
func haveOpenat2() bool {
	openat2Once.Do(func() {
		fd, err := unix.Openat2(unix.AT_FDCWD, ".", &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC})
		if err == nil {
			unix.Close(fd)
			openat2OK = true
		}
	})
	return openat2OK
}

// openBeneath opens the directory rel below dirfd with one openat2 that
// refuses every symbolic link and any escape from dirfd.
func openBeneath(dirfd int, rel string) (int, error) {
	return unix.Openat2(dirfd, rel, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
}
