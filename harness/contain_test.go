package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// allLevels, strongest first.
var allLevels = []ContainmentLevel{ContainPIDNamespace, ContainUserPIDNamespace, ContainSubreaper, ContainProcessGroup}

// forceLevel makes children of this test start at level l, or skips the
// test when the host cannot offer l.
func forceLevel(t testing.TB, l ContainmentLevel) {
	t.Helper()
	if !levelAvailable(l) {
		t.Skipf("containment level %s is not available on this host", l)
	}
	prev := testOnlyContainment
	testOnlyContainment = l
	t.Cleanup(func() { testOnlyContainment = prev })
}

// TestContainmentIsTheStrongestAvailable: the probed level is the first
// level, strongest first, that this host can start children at.
func TestContainmentIsTheStrongestAvailable(t *testing.T) {
	got := Containment()
	t.Logf("containment on this host: %s (euid %d)", got, os.Geteuid())
	for _, l := range allLevels {
		if levelAvailable(l) {
			if got != l {
				t.Fatalf("Containment() = %s, but %s is available", got, l)
			}
			return
		}
	}
	t.Fatalf("no level available, Containment() = %s", got)
}

func TestContainmentLevelNames(t *testing.T) {
	seen := map[string]bool{}
	for _, l := range allLevels {
		s := l.String()
		if s == "unknown" || seen[s] {
			t.Fatalf("level %d has name %q", int(l), s)
		}
		seen[s] = true
	}
	if ContainmentLevel(0).String() != "unknown" {
		t.Fatal("the zero level has a name")
	}
}

// escapingChild writes a script that starts a grandchild that leaves the
// group (setsid), one that is orphaned at once (a double fork), and one
// plain background grandchild; it waits until each recorded its pid, then
// does finish. It returns the script and the pid files.
func escapingChild(t *testing.T, dir, finish string) (string, map[string]string) {
	t.Helper()
	setsid, err := exec.LookPath("setsid")
	if err != nil {
		t.Skip("no setsid")
	}
	files := map[string]string{
		"setsid":      filepath.Join(dir, "setsid.pid"),
		"double-fork": filepath.Join(dir, "doublefork.pid"),
		"background":  filepath.Join(dir, "background.pid"),
	}
	body := spawnRecorded(setsid, files["setsid"]) + "\n" +
		"(" + spawnRecorded("", files["double-fork"]) + ") &\n" +
		spawnRecorded("", files["background"]) + "\n" +
		waitFiles(files["setsid"], files["double-fork"], files["background"]) + "\n" +
		finish + "\n"
	return script(t, dir, "child.sh", body), files
}

// TestRunLeavesNoDescendant: after Run returns — the child exited, or was
// cancelled — none of its descendants exists, however it left the group,
// at every level that claims so. The process-group level's documented
// limit is pinned too: the setsid grandchild survives it.
func TestRunLeavesNoDescendant(t *testing.T) {
	for _, level := range allLevels {
		for _, how := range []string{"exit", "cancel"} {
			t.Run(level.String()+"/"+how, func(t *testing.T) {
				forceLevel(t, level)
				dir := t.TempDir()
				finish := "exit 0"
				if how == "cancel" {
					finish = "exec sleep 1000"
				}
				s, files := escapingChild(t, dir, finish)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				if how == "cancel" {
					go func() {
						for _, f := range files {
							waitFile(t, f)
						}
						cancel()
					}()
				}
				res := noHang(t, "Run", func() *Result {
					res, err := Run(ctx, Spec{Argv: []string{s}, Dir: dir, Env: testEnv, Timeout: MaxTimeout})
					if err != nil {
						t.Error(err)
					}
					return res
				})
				if res == nil || res.Canceled != (how == "cancel") || res.OutputHeld {
					t.Fatalf("result %+v", res)
				}
				for name, f := range files {
					pid := readPidFile(t, f)
					if level == ContainProcessGroup && name == "setsid" {
						if processGone(pid) {
							t.Errorf("the setsid grandchild is gone at the process-group level: update its documentation")
						}
						_ = syscall.Kill(pid, syscall.SIGKILL)
						continue
					}
					waitGone(t, pid)
				}
			})
		}
	}
}

// TestContainmentSIGKILLedBundlectlTakesServerAndDescendants plays bundlectl running
// an MCP server through Exec in a helper process, whose server forks
// grandchildren (in its group, setsid, double-forked); the helper is
// SIGKILLed. At a namespace level the server and every grandchild die;
// below it only the server does (parent-death signal), which pins the
// documented limit.
func TestContainmentSIGKILLedBundlectlTakesServerAndDescendants(t *testing.T) {
	for _, level := range allLevels {
		t.Run(level.String(), func(t *testing.T) {
			forceLevel(t, level)
			dir := t.TempDir()
			serverPid := filepath.Join(dir, "server.pid")
			_, files := escapingChild(t, dir, recordPid(serverPid)+"\nexec cat")
			helper := startHelper(t, "exec", level, dir)
			pids := map[string]int{"server": readPidFile(t, serverPid)}
			for name, f := range files {
				pids[name] = readPidFile(t, f)
			}
			if err := helper.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = helper.Wait()
			waitGone(t, pids["server"])
			for name, pid := range pids {
				if name == "server" {
					continue
				}
				if level.Namespaced() {
					waitGone(t, pid)
					continue
				}
				if processGone(pid) {
					t.Errorf("%s grandchild %d is gone at level %s: update the documentation of its limits", name, pid, level)
				}
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		})
	}
}

// TestContainmentSubreaperSweepSparesOthers: the sweep at the end of one call kills
// its orphans but not an orphan still in the group of a call that is
// running, nor a child the embedding program started itself.
func TestContainmentSubreaperSweepSparesOthers(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("linux only")
	}
	forceLevel(t, ContainSubreaper)
	dir := t.TempDir()

	// The embedding program's own child, in this process's group.
	own := exec.Command("/bin/sleep", "1000")
	if err := own.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = own.Process.Kill(); _ = own.Wait() }()

	// A running call whose grandchild is orphaned at once but stays in
	// the call's group.
	longPid := filepath.Join(dir, "long.pid")
	long := script(t, dir, "long.sh", "("+spawnRecorded("", longPid)+") &\nexec sleep 1000\n")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = Run(ctx, Spec{Argv: []string{long}, Dir: dir, Env: testEnv, Timeout: MaxTimeout})
	}()
	orphan := readPidFile(t, longPid)

	// Another call ends, leaving an orphan that left its group.
	shortPid := filepath.Join(dir, "short.pid")
	setsid, err := exec.LookPath("setsid")
	if err != nil {
		t.Skip("no setsid")
	}
	short := script(t, dir, "short.sh", spawnRecorded(setsid, shortPid)+"\n"+waitFiles(shortPid)+"\n")
	if _, err := Run(context.Background(), Spec{Argv: []string{short}, Dir: dir, Env: testEnv, Timeout: MaxTimeout}); err != nil {
		t.Fatal(err)
	}
	waitGone(t, readPidFile(t, shortPid))
	if processGone(orphan) {
		t.Fatal("the sweep killed an orphan of a call still running")
	}
	if processGone(own.Process.Pid) {
		t.Fatal("the sweep killed the embedding program's own child")
	}
	cancel()
	<-done
	waitGone(t, orphan)
}

// TestRunLeavesNoLongChain: a tool leaves behind a chain of nested
// setsid processes, each the parent of the next, deeper than the
// subreaper sweep's 64 rounds; after Run returns none of them exists, at
// every level that claims so.
func TestRunLeavesNoLongChain(t *testing.T) {
	const depth = 80
	setsid, err := exec.LookPath("setsid")
	if err != nil {
		t.Skip("no setsid")
	}
	type variant struct {
		level   ContainmentLevel
		noLists bool // as on a kernel without CONFIG_PROC_CHILDREN: one scan of /proc
	}
	for _, v := range []variant{{ContainPIDNamespace, false}, {ContainUserPIDNamespace, false}, {ContainSubreaper, false}, {ContainSubreaper, true}} {
		level := v.level
		name := level.String()
		if v.noLists {
			name += "-without-children-lists"
		}
		t.Run(name, func(t *testing.T) {
			forceLevel(t, level)
			if v.noLists {
				hideChildrenLists(t)
			}
			dir := t.TempDir()
			// chain.sh n: record this pid, start chain.sh n-1 in a
			// session of its own, become a sleep. So once 1.pid exists,
			// every process of the chain has recorded its pid.
			chain := script(t, dir, "chain.sh", `n=$1
`+recordPid(dir+`/$n.pid`)+`
if [ "$n" -gt 1 ]; then `+setsid+` "$0" $((n-1)) </dev/null >/dev/null 2>&1 & fi
exec sleep 1000
`)
			tool := script(t, dir, "tool.sh", setsid+" "+chain+" "+strconv.Itoa(depth)+" </dev/null >/dev/null 2>&1 &\n"+
				waitFiles(filepath.Join(dir, "1.pid"))+"\n")
			if _, err := Run(context.Background(), Spec{Argv: []string{tool}, Dir: dir, Env: testEnv, Timeout: MaxTimeout}); err != nil {
				t.Fatal(err)
			}
			for n := 1; n <= depth; n++ {
				waitGone(t, readPidFile(t, filepath.Join(dir, strconv.Itoa(n)+".pid")))
			}
		})
	}
}

// TestContainmentSubreaperReapsZombiesOfALongLivedServer: descendants of a server
// that are orphaned and exit do not stay zombies of this process while
// the server runs.
func TestContainmentSubreaperReapsZombiesOfALongLivedServer(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("linux only")
	}
	forceLevel(t, ContainSubreaper)
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "short.pid")
	s := script(t, dir, "srv.sh", "(sh -c '"+recordPid(pidFile)+"' &) \nexec sleep 1000\n")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	go func() {
		defer close(done)
		_, _ = Exec(ctx, Spec{Argv: []string{s}, Dir: dir, Env: testEnv}, Stdio{In: devnull, Out: devnull, Err: devnull})
	}()
	pid := readPidFile(t, pidFile)
	// Gone from /proc altogether, not merely a zombie.
	waitFor(t, fmt.Sprintf("zombie %d to be reaped", pid), func() bool {
		_, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
		return err != nil
	})
	cancel()
	<-done
}

// waitFor polls cond until it holds; hangGuard turns a hang into a
// failure.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// unknownLevel forgets the level of this process for the test, with the
// seams that decide what the probe and a start find.
func unknownLevel(t *testing.T, probe func() ContainmentLevel, fails func(ContainmentLevel) bool) {
	t.Helper()
	detected.mu.Lock()
	prev := detected.level
	detected.level = 0
	detected.mu.Unlock()
	testOnlyProbe, testOnlyStartFails = probe, fails
	t.Cleanup(func() {
		testOnlyProbe, testOnlyStartFails = nil, nil
		detected.mu.Lock()
		detected.level = prev
		detected.mu.Unlock()
	})
}

// TestContainmentPresumedWithoutProbe: the first start tries the level
// the caller's credentials may get without probing (the probe costs a
// third of a spawn), falls back to the probed level when that start is
// refused, and reports a failure of the program itself as such.
func TestContainmentPresumedWithoutProbe(t *testing.T) {
	dir := t.TempDir()
	spec := Spec{Argv: []string{"/bin/true"}, Dir: dir, Timeout: MaxTimeout}
	presumed := presumedLevel()

	t.Run("presumed level works", func(t *testing.T) {
		probes := 0
		unknownLevel(t, func() ContainmentLevel { probes++; return probeLevel() }, nil)
		if res, err := Run(context.Background(), spec); err != nil || !res.Success() {
			t.Fatal(res, err)
		}
		if got := Containment(); probes != 0 || got != presumed {
			t.Fatalf("probes %d, level %s, want none and %s", probes, got, presumed)
		}
	})
	t.Run("presumed level refused", func(t *testing.T) {
		if !presumed.Namespaced() {
			t.Skip("nothing to fall back from")
		}
		unknownLevel(t, func() ContainmentLevel { return ContainSubreaper },
			func(l ContainmentLevel) bool { return l == presumed })
		c, err := startChild(spec, nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		<-c.exited
		if c.level != ContainSubreaper || Containment() != ContainSubreaper {
			t.Fatalf("started at %s, level %s", c.level, Containment())
		}
	})
	t.Run("program fails", func(t *testing.T) {
		unknownLevel(t, func() ContainmentLevel { return presumed }, nil)
		_, err := Run(context.Background(), Spec{Argv: []string{filepath.Join(dir, "missing")}, Dir: dir})
		if !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("err = %v", err)
		}
		if Containment() != presumed {
			t.Fatalf("level %s after a program failure", Containment())
		}
	})
}
