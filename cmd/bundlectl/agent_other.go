//go:build !linux

package main

import (
	"os"
	"syscall"
	"time"
)

// agentProcAttr starts the agent in bundlectl's session, process group and
// terminal. There is no parent-death signal off Linux: an agent whose
// bundlectl is killed goes on.
func agentProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }

// agentStopped trusts wait4's report off Linux.
func agentStopped(int) bool { return true }

// raise sends sig to the process (off Linux there is no thread-directed
// kill) and waits a moment for it to arrive.
func raise(sig syscall.Signal) {
	syscall.Kill(os.Getpid(), sig)
	time.Sleep(time.Second)
}
