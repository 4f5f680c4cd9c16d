//go:build !linux

package main

import (
	"os"
	"os/signal"
	"syscall"
	"time"
)

// agentProcAttr starts the agent in bundlectl's session, process group and
// terminal. There is no parent-death signal off Linux: an agent whose
// bundlectl is killed goes on.
func agentProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }

// agentStopped trusts wait4's report off Linux.
func agentStopped(int) bool { return true }

// dieOf ends bundlectl by sig, the signal that ended its agent, for the
// signals agent_linux.go's dieOf says; it returns for the others. Off Linux
// the signal goes to the process, so it waits a moment for it to arrive.
func dieOf(sig syscall.Signal) {
	switch sig {
	case syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP:
		if signal.Ignored(sig) {
			return
		}
		signal.Reset(sig)
	case syscall.SIGKILL:
	default:
		return
	}
	syscall.Kill(os.Getpid(), sig)
	time.Sleep(time.Second)
}
