//go:build linux

package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func TestContainmentReadStat(t *testing.T) {
	st, ok := readStat(os.Getpid(), make([]byte, 512))
	// The state is the main thread's, which may be asleep while this
	// goroutine runs on another thread: running or sleeping, never a
	// zombie or stopped.
	if !ok || st.ppid != os.Getppid() || st.pgrp != syscall.Getpgrp() || (st.state != 'R' && st.state != 'S') {
		t.Fatalf("readStat(self) = %+v, %v", st, ok)
	}
	if _, ok := readStat(1<<30, make([]byte, 512)); ok {
		t.Fatal("a missing pid was read")
	}
}

func TestContainmentParsePids(t *testing.T) {
	got := parsePids([]byte("12 345 x 0 -3 7\n"))
	if len(got) != 3 || got[0] != 12 || got[1] != 345 || got[2] != 7 {
		t.Fatalf("parsePids = %v", got)
	}
}

// TestContainmentChildrenOfSelf: where the kernel lists children per thread, the
// list holds a child just started; elsewhere the sweep scans /proc.
func TestContainmentChildrenOfSelf(t *testing.T) {
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

func TestContainmentAllPids(t *testing.T) {
	if !slices.Contains(allPids(), os.Getpid()) {
		t.Fatal("allPids lacks this process")
	}
}

// TestContainmentUnprivilegedUser runs the test binary as an unprivileged
// user (nobody) playing bundlectl: it gets the user and PID namespace
// where the host allows unprivileged user namespaces, or the subreaper,
// and in either case no descendant of a finished call survives.
func TestContainmentUnprivilegedUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to switch to an unprivileged user")
	}
	const nobody = 65534
	base := t.TempDir()
	dir := filepath.Join(base, "run")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Dir(base), base, dir} {
		if err := os.Chmod(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	bin, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	self := filepath.Join(base, "harness.test")
	if err := os.WriteFile(self, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	_, files := escapingChild(t, dir, "exit 0")
	helper := exec.Command(self)
	helper.Env = []string{"HARNESS_TEST_HELPER=unprivileged", "HARNESS_TEST_DIR=" + dir, "PATH=/usr/bin:/bin"}
	helper.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := helper.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	level := strings.TrimSpace(string(out))
	t.Logf("containment as uid %d: %s", nobody, level)
	if level != ContainUserPIDNamespace.String() && level != ContainSubreaper.String() {
		t.Fatalf("level %q as an unprivileged user", level)
	}
	for _, f := range files {
		waitGone(t, readPidFile(t, f))
	}
}

// hideChildrenLists makes the rest of t run as on a kernel without
// CONFIG_PROC_CHILDREN: every /proc/<pid>/task/*/children read fails, so
// containment falls back to one scan of /proc.
func hideChildrenLists(t *testing.T) {
	saved := childrenOf
	childrenOf = func(string) ([]int, bool) { return nil, false }
	t.Cleanup(func() { childrenOf = saved })
}
