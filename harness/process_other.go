//go:build !linux

package harness

import "syscall"

// sysProcAttr puts the child in its own process group. There is no
// parent-death signal outside Linux: a child outlives a bundlectl that is
// itself killed with SIGKILL.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// waitExitedNoReap is not available here; see child.reap.
func waitExitedNoReap(pid int) bool { return false }
