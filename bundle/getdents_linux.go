//go:build linux

package bundle

import "golang.org/x/sys/unix"

// getdents reads directory entries of fd into buf.
func getdents(fd int, buf []byte) (int, error) { return unix.Getdents(fd, buf) }
