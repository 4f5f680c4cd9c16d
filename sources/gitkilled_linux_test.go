package sources

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const fetcherEnv = "BUNDLECTL_SOURCES_TEST_FETCHER"

// TestFetcherProcess is the process TestGitHelpersDieWithKilledFetcher
// starts and kills: it fetches the source its environment names.
func TestFetcherProcess(t *testing.T) {
	src := os.Getenv(fetcherEnv)
	if src == "" {
		t.Skip("the process TestGitHelpersDieWithKilledFetcher starts")
	}
	parent := os.Getenv(fetcherEnv + "_PARENT")
	if l, err := strconv.Atoi(os.Getenv(fetcherEnv + "_LEVEL")); err == nil {
		setGitNamespaces(t, l)
	}
	held, err := os.OpenRoot(parent)
	lockMust(t, err)
	_, err = Fetch(context.Background(), parent, Request{Source: src}, Options{Parent: held})
	t.Logf("fetch: %v", err)
}

// Nothing git starts outlives a fetching process killed with SIGKILL
// (bundlectl killed by the OOM killer, a user's kill -9): git gets the
// parent-death signal, and, started as the init of a PID namespace of its
// own, takes every helper it started with it. Here the fetching process
// (this test binary, run as TestFetcherProcess) fetches over https from
// a server that accepts the connection and never answers, so
// git-remote-https waits on it for as long as the server is silent; once
// it is connected, the fetching process is SIGKILLed. When git is gone,
// nothing of its process group may be left. (Before, git-remote-https
// was left waiting, holding the scratch directory; so, with a file://
// remote, were git-upload-pack and pack-objects until they next wrote to
// git's closed pipe — seconds for a large repository.)
func TestGitHelpersDieWithKilledFetcher(t *testing.T) {
	for l, name := range map[int]string{nsPID: "PID namespace", nsUserPID: "user and PID namespace"} {
		t.Run(name, func(t *testing.T) {
			if !namespaceWorks(l) {
				t.Skip("this host makes no " + name + " for this process: git's helpers outlive a killed fetcher")
			}
			testGitHelpersDieWithKilledFetcher(t, l, "https")
		})
	}
}

// A fetch over ssh starts git in no user namespace (ssh would refuse a
// ~/.ssh/config root owns there), so where a PID namespace needs one (a
// user without CAP_SYS_ADMIN) git runs in its process group alone: ssh,
// git's child, gets the parent-death signal of its own (setpriv
// --pdeathsig), so it dies with git, which dies with the fetching
// process. Here, at that level, the fetching process fetches over ssh
// from a server that accepts the connection and never answers (ssh waits
// for its banner for as long as it is silent), and is SIGKILLed once ssh
// has connected. (Before, ssh was left waiting.)
func TestSSHDiesWithKilledFetcher(t *testing.T) {
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("ssh is not installed")
	}
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Skip("setpriv is not installed: ssh outlives a killed fetcher where git runs in no namespace")
	}
	testGitHelpersDieWithKilledFetcher(t, nsUserPID, "ssh")
}

func testGitHelpersDieWithKilledFetcher(t *testing.T, level int, scheme string) {
	ln, accepted := silentListener(t)
	parent := filepath.Join(t.TempDir(), "tmp")
	lockMust(t, os.Mkdir(parent, 0o700))
	url := scheme + "://" + ln.Addr().String() + "/r.git"
	cmd := exec.Command(os.Args[0], "-test.run=^TestFetcherProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), fetcherEnv+"="+url, fetcherEnv+"_PARENT="+parent, fetcherEnv+"_LEVEL="+strconv.Itoa(level))
	lockMust(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case c := <-accepted:
		accepted <- c // closed when the test ends
	case err := <-exited:
		t.Fatalf("the fetching process ended before git connected: %v", err)
	case <-time.After(2 * time.Minute): // a hang guard, not a deadline
		_ = cmd.Process.Kill()
		t.Fatal("git never connected")
	}
	git := childOf(t, cmd.Process.Pid, "git")
	before := groupMembers(git)
	lockMust(t, cmd.Process.Kill())
	<-exited
	// git, orphaned, is reparented and reaped (or left a zombie) once the
	// parent-death signal has killed it.
	for i := 0; ; i++ {
		if _, _, _, alive := procStat(git); !alive {
			break
		}
		if i == 12000 { // a hang guard (2 minutes), not a deadline
			t.Fatal("git outlived the fetching process killed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A member killed with git may still be tearing down (its memory
	// gone, so an empty cmdline, and not yet a zombie): wait until every
	// one left has a command line of its own, i.e. lives on.
	left := groupMembers(git)
	for i := 0; ; i++ {
		exiting := false
		for _, pid := range left {
			if cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); err == nil && len(cmdline) == 0 {
				exiting = true
			}
		}
		if !exiting || i == 12000 { // a hang guard (2 minutes), not a deadline
			break
		}
		time.Sleep(10 * time.Millisecond)
		left = groupMembers(git)
	}
	if len(left) > 0 {
		var what []string
		for _, pid := range left {
			cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
			what = append(what, strings.ReplaceAll(string(cmdline), "\x00", " "))
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		t.Fatalf("git's process group held %d process(es) while the fetch ran; after the fetching process was killed and git with it, these were left:\n%s", len(before), strings.Join(what, "\n"))
	}
	if len(before) < 2 {
		t.Fatalf("git's group held %v while connected: want git and its helper (git-remote-https, ssh; the test did not see a helper to outlive it)", before)
	}
}

// childOf is the pid of the one child of ppid whose command name is name.
func childOf(t *testing.T, ppid int, name string) int {
	t.Helper()
	var found []int
	for _, pid := range procPIDs() {
		comm, pp, _, ok := procStat(pid)
		if ok && comm == name && pp == ppid {
			found = append(found, pid)
		}
	}
	if len(found) != 1 {
		t.Fatalf("children of %d named %q: %v; want one", ppid, name, found)
	}
	return found[0]
}

// setGitNamespaces starts git at level l until the test ends.
func setGitNamespaces(t *testing.T, l int) {
	old := gitNamespaces()
	gitNS.Lock()
	gitNS.level = l
	gitNS.Unlock()
	t.Cleanup(func() {
		gitNS.Lock()
		gitNS.level = old
		gitNS.Unlock()
	})
}

// A fetch works at every level git may start at where this host can
// make it: in a PID namespace (root), a user and PID namespace (any
// user, where allowed) and in its process group alone (neither allowed):
// git keeps its uid and gid, reads and writes the scratch directory
// through /proc/self/fd (the outer namespace's /proc), and reaches a
// local remote.
func TestGitFetchAtEveryNamespaceLevel(t *testing.T) {
	r := pluginRepo(t)
	r.commit("one")
	for l, name := range map[int]string{nsNone: "process group", nsPID: "PID namespace", nsUserPID: "user and PID namespace"} {
		t.Run(name, func(t *testing.T) {
			if !namespaceWorks(l) && l != nsNone {
				t.Skip("this host makes no " + name + " for this process")
			}
			setGitNamespaces(t, l)
			res := mustFetch(t, Request{Source: r.url()}, Options{})
			if res.Source.Commit == "" {
				t.Fatalf("no commit recorded: %+v", res.Source)
			}
		})
	}
}
