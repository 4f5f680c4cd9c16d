package main

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// sealListedFiles marks close-on-exec every descriptor above 2 that the
// directory dir (/proc/self/fd, /dev/fd) lists.
func sealListedFiles(dir string) {
	d, err := os.Open(dir)
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
