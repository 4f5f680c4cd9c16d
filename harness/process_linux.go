//go:build linux

package harness

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// sysProcAttr puts the child in its own process group and asks the kernel
// to SIGKILL it when the thread that started it dies. Pdeathsig is tied to
// the creating OS thread, which is why startChild keeps that thread locked
// until the child is reaped. It reaches only the direct child: a
// grandchild survives bundlectl being SIGKILLed itself.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// waitExitedNoReap blocks until pid has exited without reaping it
// (waitid WNOWAIT), so the caller can kill the group while the pid is
// still reserved by the zombie. It reports false if that is not possible.
func waitExitedNoReap(pid int) bool {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			continue
		}
		return err == nil
	}
}
