package sources

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Nothing git starts outlives it. git waits for every program it starts
// (remote-https, index-pack, rev-list, a local upload-pack) before it
// exits, but when git itself dies first — killed from outside (the OOM
// killer, a user's kill), or crashed — they live on: in git's process
// group, in the scratch directory, with its descriptor 3. Here git fetches
// over https from a server that accepts the connection and never
// answers, so git-remote-https waits on it (for as long as curl's connect
// timeout, 300 s, or, once connected, for as long as the server is
// silent); once it is connected, git is SIGKILLed from outside. When the
// fetch returns, nothing of git's process group may be left. (Before,
// both remote-https processes were left, and the fetch returned only
// after exec's WaitDelay of 10 s, as they held git's standard error.)
func TestGitChildrenDieWithGit(t *testing.T) {
	ln, accepted := silentListener(t)
	parent := filepath.Join(t.TempDir(), "tmp")
	lockMust(t, os.Mkdir(parent, 0o700))
	held, err := os.OpenRoot(parent)
	lockMust(t, err)
	defer held.Close()
	done := make(chan error, 1)
	go func() {
		_, err := Fetch(context.Background(), parent, Request{Source: "https://" + ln.Addr().String() + "/r.git"}, Options{Parent: held})
		done <- err
	}()
	var conn net.Conn
	select {
	case conn = <-accepted:
		accepted <- conn // closed when the test ends
	case err := <-done:
		t.Fatalf("the fetch ended before git connected: %v", err)
	case <-time.After(2 * time.Minute): // a hang guard, not a deadline
		t.Fatal("git never connected")
	}
	git := childNamed(t, "git")
	lockMust(t, syscall.Kill(git, syscall.SIGKILL))
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the fetch succeeded after git was killed")
		}
		t.Logf("the fetch: %v", err)
	case <-time.After(2 * time.Minute):
		t.Fatal("the fetch did not return after git was killed")
	}
	if left := groupMembers(git); len(left) > 0 {
		var what []string
		for _, pid := range left {
			cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
			cwd, _ := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd")
			fd3, _ := os.Readlink("/proc/" + strconv.Itoa(pid) + "/fd/3")
			what = append(what, strings.ReplaceAll(string(cmd), "\x00", " ")+" in "+cwd+", descriptor 3 "+fd3)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		t.Fatalf("after the fetch returned, git's process group still holds:\n%s", strings.Join(what, "\n"))
	}
}

// childNamed is the pid of this process's one child whose command name
// is name.
func childNamed(t *testing.T, name string) int {
	t.Helper()
	var found []int
	for _, pid := range procPIDs() {
		comm, ppid, _, ok := procStat(pid)
		if ok && comm == name && ppid == os.Getpid() {
			found = append(found, pid)
		}
	}
	if len(found) != 1 {
		t.Fatalf("children named %q: %v; want one", name, found)
	}
	return found[0]
}

// groupMembers lists the processes whose process group is pgid.
func groupMembers(pgid int) []int {
	var in []int
	for _, pid := range procPIDs() {
		if _, _, pgrp, ok := procStat(pid); ok && pgrp == pgid {
			in = append(in, pid)
		}
	}
	return in
}

func procPIDs() []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// procStat reads a process's command name, parent and process group from
// /proc/<pid>/stat; ok is false when it is gone (or a zombie's fields
// cannot be read).
func procStat(pid int) (comm string, ppid, pgrp int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0, 0, false
	}
	open, close := strings.IndexByte(string(b), '('), strings.LastIndexByte(string(b), ')')
	if open < 0 || close < open {
		return "", 0, 0, false
	}
	f := strings.Fields(string(b[close+1:])) // state ppid pgrp …
	if len(f) < 3 || f[0] == "Z" {
		return "", 0, 0, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgrp, err2 := strconv.Atoi(f[2])
	return string(b[open+1 : close]), ppid, pgrp, err1 == nil && err2 == nil
}

// silentListener is a loopback listener that accepts connections and
// never answers them (a server git waits on without end), and the
// connections it accepted (one taken from it is put back to be closed);
// it closes them and itself when the test ends.
func silentListener(t *testing.T) (net.Listener, chan net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	lockMust(t, err)
	accepted := make(chan net.Conn, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		for {
			select {
			case c := <-accepted:
				c.Close()
			default:
				return
			}
		}
	})
	return ln, accepted
}
