package sources

import (
	"strconv"
	"syscall"
)

// procAttr puts git in its own process group, so a cancelled fetch kills
// git and every helper it started (remote-https, ssh, upload-pack), and
// kills git when bundlectl itself dies.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// gitWorkDir is the working directory git runs in: the scratch
// directory, held open. The child changes into it through its copy of
// the descriptor (/proc/self/fd/N, before exec closes it), so no path
// above it is resolved again: a directory renamed away and a link put in
// its place redirects nothing git writes.
func (f *fetcher) gitWorkDir() string {
	return "/proc/self/fd/" + strconv.FormatUint(uint64(f.scratchF.Fd()), 10)
}
