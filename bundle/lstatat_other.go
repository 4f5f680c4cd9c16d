//go:build !(linux && (amd64 || arm64))

package bundle

import "golang.org/x/sys/unix"

// lstatAt is fstatat(fd, name, AT_SYMLINK_NOFOLLOW).
func lstatAt(fd int, name string, st *unix.Stat_t) error {
	return unix.Fstatat(fd, name, st, unix.AT_SYMLINK_NOFOLLOW)
}
