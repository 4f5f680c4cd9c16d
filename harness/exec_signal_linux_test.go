package harness

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// TestExecSIGTERMRightAfterStartLeavesNoDescendant: a SIGTERM that reaches
// bundlectl the moment its child has started — the child has already
// started a descendant in a session of its own, and nothing has read a
// relayed signal yet — neither ends bundlectl nor leaves the descendant
// running. Exec subscribes to the signals it relays before the child
// starts, so the signal waits to be relayed to the child's group, and the
// containment level then takes the descendant with the child. Were the
// subscription made after the start, the signal would end this process at
// its default action (the test binary dies of SIGTERM) and, below the
// namespace levels, leave the descendant running.
//
// The signal is raised on the calling thread (tgkill), so it is handled
// before the hook returns: the window is hit every time, not by chance.
// The process-group level is left out: a setsid descendant outliving its
// call is its documented limit (TestRunDoesNotWaitForAnEscapedProcess).
func TestExecSIGTERMRightAfterStartLeavesNoDescendant(t *testing.T) {
	for _, level := range allLevels[:3] {
		t.Run(level.String(), func(t *testing.T) {
			forceLevel(t, level)
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "descendant.pid")
			s := script(t, dir, "s.sh", spawnRecorded("setsid", pidFile)+"\nwait\n")
			devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer devnull.Close()
			descendant := 0
			testOnlyExecStarted = func() {
				descendant = readPidFile(t, pidFile)
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				if err := syscall.Tgkill(os.Getpid(), syscall.Gettid(), syscall.SIGTERM); err != nil {
					t.Error(err)
				}
			}
			defer func() { testOnlyExecStarted = nil }()
			testOnlySignalGrace = 100 * time.Millisecond
			defer func() { testOnlySignalGrace = 0 }()
			// On this goroutine, so that the hook may fail the test: the
			// SIGKILL after the grace bounds the call.
			res, err := Exec(context.Background(), Spec{Argv: []string{s}, Dir: dir, Env: testEnv}, Stdio{In: devnull, Out: devnull, Err: devnull})
			if err != nil {
				t.Fatal(err)
			}
			if descendant == 0 {
				t.Fatal("the hook never ran")
			}
			defer syscall.Kill(descendant, syscall.SIGKILL)
			if res == nil || res.Signal == 0 {
				t.Fatalf("result %+v: the child was not ended by the relayed SIGTERM (or the SIGKILL after it)", res)
			}
			if !processGone(descendant) {
				t.Fatalf("the child's setsid descendant %d still runs after Exec returned at level %s", descendant, level)
			}
		})
	}
}
