package sources

import "syscall"

// procAttr puts git in its own process group, so a cancelled fetch kills
// git and every helper it started (remote-https, ssh, upload-pack), and
// kills git when bundlectl itself dies.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
