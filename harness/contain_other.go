//go:build !linux

package harness

import "syscall"

// Outside Linux there are no PID namespaces, no subreaper and no
// parent-death signal: the process group is all there is.
func probeLevel() ContainmentLevel { return ContainProcessGroup }

func presumedLevel() ContainmentLevel { return ContainProcessGroup }

func levelAvailable(l ContainmentLevel) bool { return l == ContainProcessGroup }

// sysProcAttr starts the child as the leader of a new session and process
// group. A child outlives a bundlectl that is itself killed with SIGKILL.
func sysProcAttr(ContainmentLevel) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}

func ensureSubreaper() error { return nil }
func registerChild(int)      {}
func unregisterChild(int)    {}
func sweepOrphans()          {}
func reapZombieOrphans()     {}
func lockForkShared() func() { return func() {} }
