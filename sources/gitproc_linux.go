package sources

import (
	"os"
	"strconv"
	"syscall"
)

// procAttr puts git in its own process group, so a cancelled fetch kills
// git and every helper it started (remote-https, ssh, upload-pack), and
// kills git when bundlectl itself dies.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// procSelfFD is where a process finds its descriptors by number; a test
// points it elsewhere to stand for a system without /proc mounted.
var procSelfFD = "/proc/self/fd/"

// noHeldDir says why git cannot be started in a directory held open.
const noHeldDir = "/proc/self/fd is not available (is /proc mounted?)"

// heldWorkDir is git's working directory entered through the scratch
// directory's descriptor: the child changes into it through its copy of
// the descriptor (/proc/self/fd/N, before exec closes it), so no path
// above it is resolved again: a directory renamed away and a link put in
// its place redirects nothing git writes. It reports false when that
// path does not lead to the scratch directory held (no /proc mounted: a
// container, a chroot).
func (f *fetcher) heldWorkDir() (string, bool) {
	p := procSelfFD + strconv.FormatUint(uint64(f.scratchF.Fd()), 10)
	fi, err := os.Stat(p)
	if err != nil {
		return "", false
	}
	held, err := f.scratchF.Stat()
	return p, err == nil && os.SameFile(fi, held)
}
