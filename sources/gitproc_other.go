//go:build !linux

package sources

import "syscall"

// procAttr puts git in its own process group, so a cancelled fetch kills
// git and every helper it started.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// gitWorkDir is the working directory git runs in: the scratch
// directory's path (there is no /proc/self/fd to change into it by its
// descriptor; docs/sources.md says what that leaves open).
func (f *fetcher) gitWorkDir() string { return f.scratchPath("") }
