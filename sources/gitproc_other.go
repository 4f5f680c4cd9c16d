//go:build !linux

package sources

import (
	"os/exec"
	"syscall"
)

// procAttr puts git in its own process group, so a cancelled fetch kills
// git and every helper it started. (ssh matters only on Linux.)
func procAttr(ssh bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// sshLauncher is "": a parent-death signal is Linux's.
func sshLauncher() string { return "" }

// noHeldDir says why git cannot be started in a directory held open.
const noHeldDir = "this system has no /proc/self/fd, and Go starts a process in a directory only by its path"

// heldWorkDir reports false: there is no /proc/self/fd to start git in
// the scratch directory by its descriptor (Darwin's /dev/fd/N names the
// descriptor's fdesc node, not the directory, and Go's fork and exec on
// Darwin changes directory only by path; docs/sources.md says what that
// leaves).
func (f *fetcher) heldWorkDir() (string, bool) { return "", false }

// gitHeldDir does nothing here: git works in the scratch directory by
// its path (privateWorkDir).
func (f *fetcher) gitHeldDir(cmd *exec.Cmd) {}

// waitGit is cmd.Wait: without waitid(WNOWAIT) here, git's process group
// cannot be killed after git exits without the risk that its id names
// another group by then; a program git started that outlives it (git
// killed from outside) is not killed.
func waitGit(cmd *exec.Cmd) error { return cmd.Wait() }
