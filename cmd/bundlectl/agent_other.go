//go:build !linux

package main

import "syscall"

// agentProcAttr starts the agent in bundlectl's session, process group and
// terminal. There is no parent-death signal off Linux: an agent whose
// bundlectl is killed goes on.
func agentProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }

// agentStopped trusts wait4's report off Linux.
func agentStopped(int) bool { return true }
