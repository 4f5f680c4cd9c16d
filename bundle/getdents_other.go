//go:build !linux

package bundle

import "golang.org/x/sys/unix"

// getdents reads directory entries of fd into buf (getdirentries: the
// directory's own offset advances, so the base is not needed).
func getdents(fd int, buf []byte) (int, error) {
	var base uintptr
	return unix.Getdirentries(fd, buf, &base)
}
