package main

import (
	"path/filepath"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSealListedFiles: the fallback of sealInheritedFiles for kernels
// without close_range(2) marks an inherited descriptor (one opened
// without close-on-exec) close-on-exec; run_fds.txtar covers the
// close_range path end to end.
func TestSealListedFiles(t *testing.T) {
	dir := "/proc/self/fd"
	if runtime.GOOS != "linux" {
		dir = "/dev/fd"
	}
	fd, err := unix.Open(filepath.Join(t.TempDir(), "f"), unix.O_CREAT|unix.O_RDWR, 0o600) // no O_CLOEXEC
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if flags, _ := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); flags&unix.FD_CLOEXEC != 0 {
		t.Fatal("the descriptor is close-on-exec before the seal")
	}
	sealListedFiles(dir)
	if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil || flags&unix.FD_CLOEXEC == 0 {
		t.Fatalf("descriptor %d not close-on-exec after the seal (flags %d, %v)", fd, flags, err)
	}
	for _, std := range []int{0, 1, 2} {
		if flags, err := unix.FcntlInt(uintptr(std), unix.F_GETFD, 0); err == nil && flags&unix.FD_CLOEXEC != 0 {
			t.Fatalf("descriptor %d was sealed too", std)
		}
	}
}
