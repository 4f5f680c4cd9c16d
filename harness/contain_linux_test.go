//go:build linux

package harness

import (
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
)

func TestReadStat(t *testing.T) {
	st, ok := readStat(os.Getpid(), make([]byte, 512))
	if !ok || st.ppid != os.Getppid() || st.pgrp != syscall.Getpgrp() || st.state != 'R' {
		t.Fatalf("readStat(self) = %+v, %v", st, ok)
	}
	if _, ok := readStat(1<<30, make([]byte, 512)); ok {
		t.Fatal("a missing pid was read")
	}
}

func TestParsePids(t *testing.T) {
	got := parsePids([]byte("12 345 x 0 -3 7\n"))
	if len(got) != 3 || got[0] != 12 || got[1] != 345 || got[2] != 7 {
		t.Fatalf("parsePids = %v", got)
	}
}

// TestChildrenOfSelf: where the kernel lists children per thread, the
// list holds a child just started; elsewhere the sweep scans /proc.
func TestChildrenOfSelf(t *testing.T) {
	cmd := exec.Command("/bin/sleep", "1000")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	pids, ok := childrenOfSelf()
	if !ok {
		t.Skip("no /proc/self/task/<tid>/children (CONFIG_PROC_CHILDREN) on this kernel")
	}
	if !slices.Contains(pids, cmd.Process.Pid) {
		t.Fatalf("children %v lack %d", pids, cmd.Process.Pid)
	}
}

func TestAllPids(t *testing.T) {
	if !slices.Contains(allPids(), os.Getpid()) {
		t.Fatal("allPids lacks this process")
	}
}
