package main

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// agentProcAttr starts the agent in bundlectl's session, process group and
// terminal, with SIGTERM as its parent-death signal.
func agentProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}

// agentStopped reports whether the process pid is stopped now (state T in
// /proc/<pid>/stat); true when that cannot be read, as wait4 said so.
func agentStopped(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 || i+2 >= len(b) {
		return true
	}
	return b[i+2] == 'T'
}

// raise sends sig to this goroutine's own thread, where it is delivered
// before tgkill returns: the process cannot exit meanwhile.
func raise(sig syscall.Signal) {
	runtime.LockOSThread()
	syscall.Tgkill(os.Getpid(), syscall.Gettid(), sig)
}
