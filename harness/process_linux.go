//go:build linux

package harness

import "golang.org/x/sys/unix"

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
