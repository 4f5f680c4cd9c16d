//go:build !linux

package main

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// sealInheritedFiles is the Linux version's walk, over /dev/fd.
func sealInheritedFiles() {
	d, err := os.Open("/dev/fd")
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, n := range names {
		if fd, err := strconv.Atoi(n); err == nil && fd > 2 {
			_, _ = unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC)
		}
	}
}
