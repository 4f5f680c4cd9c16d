//go:build linux

package main

import (
	"math"

	"golang.org/x/sys/unix"
)

// sealInheritedFiles marks every file descriptor above stderr
// close-on-exec, so that bundle code — a tool, hook or server — gets
// stdin, stdout and stderr and nothing else of what bundlectl's caller
// left open (a socket, a secret file, a pipe to the host); and so that
// git, in install, update and sync, and every program it starts (an ssh
// ControlPersist master that outlives bundlectl) keep none of them open,
// a lock file the caller holds included. Descriptors
// Go opens are close-on-exec already; only inherited ones change. One
// close_range(2) call (Linux 5.11), else a walk of /proc/self/fd.
func sealInheritedFiles() {
	if unix.CloseRange(3, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC) == nil {
		return
	}
	sealListedFiles("/proc/self/fd")
}
