//go:build !linux

package harness

// waitExitedNoReap is not available here; see child.reap.
func waitExitedNoReap(pid int) bool { return false }
