//go:build linux && (amd64 || arm64)

package bundle

import (
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// lstatAt is fstatat(fd, name, AT_SYMLINK_NOFOLLOW) with name copied to a
// buffer on the stack rather than the heap copy unix.Fstatat makes: walks
// stat every entry, and a listing stats thousands. (The runtime never
// moves the stack of a goroutine that is in a system call.)
func lstatAt(fd int, name string, st *unix.Stat_t) error {
	var buf [unix.NAME_MAX + 1]byte
	if len(name) >= len(buf) {
		return unix.Fstatat(fd, name, st, unix.AT_SYMLINK_NOFOLLOW)
	}
	if strings.IndexByte(name, 0) >= 0 {
		return unix.EINVAL // as unix.Fstatat refuses it
	}
	copy(buf[:], name) // buf[len(name)] stays 0
	_, _, e := unix.Syscall6(unix.SYS_NEWFSTATAT, uintptr(fd), uintptr(unsafe.Pointer(&buf[0])),
		uintptr(unsafe.Pointer(st)), unix.AT_SYMLINK_NOFOLLOW, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}
