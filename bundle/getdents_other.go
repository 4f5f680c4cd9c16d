//go:build !linux

package bundle

import "golang.org/x/sys/unix"

// getdents reads directory entries of fd into buf (getdirentries: the
// directory's own offset advances, so the base is not needed).
func getdents(fd int, buf []byte) (int, error) {
	var base uintptr
	return unix.Getdirentries(fd, buf, &base)
}

// appendNames appends the names of the directory entries in b to names,
// leaving out "." and "..".
func appendNames(names []string, b []byte) []string {
	_, _, names = unix.ParseDirent(b, -1, names)
	return names
}
