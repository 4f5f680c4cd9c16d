//go:build !linux

package sources

import "syscall"

// procAttr puts git in its own process group, so a cancelled fetch kills
// git and every helper it started.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
