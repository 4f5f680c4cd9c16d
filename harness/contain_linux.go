//go:build linux

package harness

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/bundlectl/bundlectl/internal/overflowid"
)

// probePath is a path that exists on no system (nothing can be created
// under a character device), so a probe's exec fails with ENOTDIR
// after the clone that created the namespaces succeeded: nothing runs.
const probePath = "/dev/null/bundlectl-containment-probe"

// probeLevel finds the strongest level this process can use: a PID
// namespace (CAP_SYS_ADMIN), else a user and PID namespace (unprivileged
// user namespaces enabled, no LSM or seccomp policy against them), else
// a child subreaper, else the process group alone.
func probeLevel() ContainmentLevel {
	for _, l := range []ContainmentLevel{ContainPIDNamespace, ContainUserPIDNamespace} {
		if l == ContainUserPIDNamespace && overflowid.IsUID(os.Geteuid()) {
			break
		}
		if namespaceWorks(l) {
			return l
		}
	}
	if ensureSubreaper() == nil {
		return ContainSubreaper
	}
	return ContainProcessGroup
}

// presumedLevel is the level to try before probing: a PID namespace for
// root, a user and PID namespace for anyone else (who would need
// CAP_SYS_ADMIN for the first) but the overflow uid, in whose user
// namespace every file another user owns would look like its own (git's
// and ssh's ownership checks would pass): it gets the subreaper.
func presumedLevel() ContainmentLevel {
	switch euid := os.Geteuid(); {
	case euid == 0:
		return ContainPIDNamespace
	case overflowid.IsUID(euid):
		return probeLevel()
	}
	return ContainUserPIDNamespace
}

var nsProbes struct {
	sync.Mutex
	done map[ContainmentLevel]bool // level -> works
}

// namespaceWorks reports whether a child can be cloned into the
// namespaces of level l, by cloning one that execs probePath. The answer
// is cached.
func namespaceWorks(l ContainmentLevel) bool {
	nsProbes.Lock()
	defer nsProbes.Unlock()
	if ok, seen := nsProbes.done[l]; seen {
		return ok
	}
	attr := &syscall.ProcAttr{Dir: "/", Env: []string{}, Sys: namespaceAttr(l, &syscall.SysProcAttr{})}
	_, err := syscall.ForkExec(probePath, []string{probePath}, attr)
	ok := err == syscall.ENOTDIR || err == syscall.ENOENT || err == syscall.ENOSPC && namespaceLimitsAboveZero(l)
	if nsProbes.done == nil {
		nsProbes.done = map[ContainmentLevel]bool{}
	}
	nsProbes.done[l] = ok
	return ok
}

// namespaceLimitsAboveZero reports whether this user namespace's limits
// on the namespaces of level l (/proc/sys/user/max_pid_namespaces, and
// max_user_namespaces for the user and PID level) are all above zero, as
// read. A clone refused with ENOSPC then means the namespaces are there
// but used up (by other processes of this user, or by the nesting depth),
// not turned off (a limit of zero, which refuses with ENOSPC too): the
// level is the namespaced one, and each start fails closed until
// namespaces are freed, so that another process of the same user (a
// bundle's MCP server holding namespaces it made) cannot choose the
// subreaper, whose orphans outlive a SIGKILLed bundlectl, for the
// children of a bundlectl that has yet to start its first. A limit that
// cannot be read is taken as turned off, as before.
func namespaceLimitsAboveZero(l ContainmentLevel) bool {
	files := []string{"max_pid_namespaces"}
	if l == ContainUserPIDNamespace {
		files = append(files, "max_user_namespaces")
	}
	for _, f := range files {
		b, err := os.ReadFile("/proc/sys/user/" + f)
		if err != nil {
			return false
		}
		n, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || n <= 0 {
			return false
		}
	}
	return true
}

// levelAvailable reports whether this host can start children at level l.
func levelAvailable(l ContainmentLevel) bool {
	switch l {
	case ContainPIDNamespace, ContainUserPIDNamespace:
		return namespaceWorks(l)
	case ContainSubreaper:
		return ensureSubreaper() == nil
	}
	return l == ContainProcessGroup
}

// sysProcAttr starts the child as the leader of a new session and process
// group (so that no descendant can join bundlectl's own group), with the
// parent-death signal, in the namespaces of level l. Pdeathsig is tied to
// the creating OS thread, which is why startChild keeps that thread
// locked until the child is reaped.
func sysProcAttr(l ContainmentLevel) *syscall.SysProcAttr {
	return namespaceAttr(l, &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL})
}

func namespaceAttr(l ContainmentLevel, a *syscall.SysProcAttr) *syscall.SysProcAttr {
	switch l {
	case ContainPIDNamespace:
		a.Cloneflags = syscall.CLONE_NEWPID
	case ContainUserPIDNamespace:
		// Map the caller's own ids onto themselves: the child keeps its
		// uid and gid and gains no capability over anything outside
		// (execve of a non-root uid drops the namespace's capabilities).
		a.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Geteuid(), HostID: os.Geteuid(), Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}}
		a.GidMappingsEnableSetgroups = false
	}
	return a
}

var subreaper struct {
	once sync.Once
	err  error
}

// ensureSubreaper makes this process a child subreaper, once: orphaned
// descendants are re-parented to it instead of to init.
func ensureSubreaper() error {
	subreaper.once.Do(func() { subreaper.err = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) })
	return subreaper.err
}

// harnessChildren are the direct children the execution layer started
// and has not reaped yet. At the subreaper level a sweep must not touch
// them, nor the orphans still in their process groups; sweeps take the
// write lock and starts the read lock, so a sweep never sees a child
// forked but not yet registered.
var harnessChildren struct {
	fork sync.RWMutex
	mu   sync.Mutex
	live map[int]bool
}

func registerChild(pid int) {
	harnessChildren.mu.Lock()
	if harnessChildren.live == nil {
		harnessChildren.live = map[int]bool{}
	}
	harnessChildren.live[pid] = true
	harnessChildren.mu.Unlock()
}

func unregisterChild(pid int) {
	harnessChildren.mu.Lock()
	delete(harnessChildren.live, pid)
	harnessChildren.mu.Unlock()
}

// maxSweepRounds bounds a sweep against descendants that keep forking
// while they are killed: each round kills every orphan found and every
// process below it, so only a process forked during a round is left for
// the next.
const maxSweepRounds = 64

// maxSweepTree bounds how many descendants of the orphans one round
// holds a pidfd on; the rest are orphaned to this process when their
// ancestors die and are killed in the next round.
const maxSweepTree = 1024

// sweepOrphans kills and reaps the descendants this subreaper adopted:
// processes whose parent is this process, that the execution layer did
// not start, that are not in the process group of a child still running,
// and that are not in this process's own group (an embedding program's
// own children; a harness descendant cannot join it, being in another
// session) — and with each, everything below it, however deep, in the
// same round. A process forked while a round runs is orphaned to this
// process when its parent dies, so rounds repeat until none is found.
func sweepOrphans() {
	harnessChildren.fork.Lock()
	defer harnessChildren.fork.Unlock()
	for range maxSweepRounds {
		orphans := adoptedOrphans(false)
		if len(orphans) == 0 {
			return
		}
		below := descendants(orphans) // opened before any of them dies
		for _, pid := range orphans {
			// Still our unreaped child, so the pid cannot have been reused.
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		for _, fd := range below {
			_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
			_ = unix.Close(fd)
		}
		for _, pid := range orphans {
			reapPid(pid, 0)
		}
	}
}

// descendants returns a pidfd on each process below roots (this
// process's unreaped children), walked top down from the kernel's
// children lists (or, without them, one scan of /proc) while the tree
// runs. A process's list is taken as its children only if its own pidfd
// still reaches it after the list was read and checked: a process not
// yet reaped holds its pid, so the list was not another's. A child's
// pidfd is kept only if, after it was opened, the pid still names a child
// of that parent: a pid freed and reused meanwhile is never signalled,
// because its pidfd names the process that was there when it was opened
// (or a dead one, which a signal does not reach). A process in the group
// of a call still running is left to that call. Where pidfds are missing
// (Linux before 5.3) or refused (a seccomp policy), or descriptors run
// out, the walk stops, and the rounds of sweepOrphans kill what is left
// one level a round.
func descendants(roots []int) []int {
	var fds []int
	var byParent map[int][]int // without CONFIG_PROC_CHILDREN
	buf := make([]byte, 512)
	queue := make([]sweepNode, 0, len(roots))
	for _, pid := range roots {
		queue = append(queue, sweepNode{pid, -1})
	}
	for len(queue) > 0 && len(fds) < maxSweepTree {
		parent := queue[0]
		queue = queue[1:]
		kids, ok := childrenOf(strconv.Itoa(parent.pid))
		if !ok {
			if byParent == nil {
				byParent = parentMap(buf)
			}
			kids = byParent[parent.pid]
		}
		var found []sweepNode
		for _, pid := range kids {
			if len(fds)+len(found) == maxSweepTree {
				break
			}
			fd, err := unix.PidfdOpen(pid, 0)
			switch err {
			case nil:
			case unix.ESRCH:
				continue // gone
			default: // ENOSYS, EPERM, EMFILE, ENFILE, ...
				closeNodes(found)
				return fds
			}
			st, ok := readStat(pid, buf)
			if !ok || st.ppid != parent.pid || liveGroup(st.pgrp) {
				_ = unix.Close(fd)
				continue
			}
			found = append(found, sweepNode{pid, fd})
		}
		if parent.fd >= 0 && unix.PidfdSendSignal(parent.fd, 0, nil, 0) != nil {
			closeNodes(found) // reaped meanwhile: the list may be another's
			continue
		}
		for _, n := range found {
			fds = append(fds, n.fd)
			queue = append(queue, n)
		}
	}
	return fds
}

// sweepNode is a process of the walk and its pidfd (-1 for a root, our
// unreaped child).
type sweepNode struct{ pid, fd int }

func closeNodes(ns []sweepNode) {
	for _, n := range ns {
		_ = unix.Close(n.fd)
	}
}

// liveGroup reports whether pgrp is the group of a child still running.
func liveGroup(pgrp int) bool {
	harnessChildren.mu.Lock()
	defer harnessChildren.mu.Unlock()
	return harnessChildren.live[pgrp]
}

// parentMap maps each process in /proc to its children.
func parentMap(buf []byte) map[int][]int {
	m := map[int][]int{}
	for _, pid := range allPids() {
		if st, ok := readStat(pid, buf); ok {
			m[st.ppid] = append(m[st.ppid], pid)
		}
	}
	return m
}

// reapZombieOrphans reaps adopted orphans that have already exited, so
// that a long-lived child's short-lived double-forked descendants do not
// pile up as zombies of this process; it kills nothing.
func reapZombieOrphans() {
	harnessChildren.fork.Lock()
	defer harnessChildren.fork.Unlock()
	for _, pid := range adoptedOrphans(true) {
		reapPid(pid, unix.WNOHANG)
	}
}

func reapPid(pid, flags int) {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|flags, nil)
		if err != unix.EINTR {
			return
		}
	}
}

// adoptedOrphans lists the processes sweepOrphans may kill, or
// (zombiesOnly) the adopted orphans that have exited, whatever group they
// were in: reaping a dead process takes nothing from a running call.
func adoptedOrphans(zombiesOnly bool) []int {
	self, ownGroup := os.Getpid(), syscall.Getpgrp()
	candidates, ok := childrenOfSelf()
	if !ok {
		candidates = allPids()
	}
	harnessChildren.mu.Lock()
	defer harnessChildren.mu.Unlock()
	var out []int
	buf := make([]byte, 512)
	for _, pid := range candidates {
		if harnessChildren.live[pid] {
			continue
		}
		st, ok := readStat(pid, buf)
		if !ok || st.ppid != self || st.pgrp == ownGroup {
			continue
		}
		if zombiesOnly && st.state != 'Z' || !zombiesOnly && harnessChildren.live[st.pgrp] {
			continue
		}
		out = append(out, pid)
	}
	return out
}

// childrenOfSelf lists this process's children from
// /proc/self/task/<tid>/children (CONFIG_PROC_CHILDREN), each file read
// in one call so that it is one consistent walk of that thread's
// children. ok is false when the kernel does not offer the files.
func childrenOfSelf() (pids []int, ok bool) { return childrenOf("self") }

// childrenOf is childrenOfSelf for the process proc ("self" or a pid). A
// variable, so that a test can take the kernel's lists away and exercise
// the scan of /proc.
var childrenOf = readChildren

func readChildren(proc string) (pids []int, ok bool) {
	tasks, err := os.ReadDir("/proc/" + proc + "/task")
	if err != nil {
		if proc != "self" && errors.Is(err, fs.ErrNotExist) {
			return nil, true // the process is gone, and its list with it
		}
		return nil, false
	}
	buf := make([]byte, 64<<10)
	for _, task := range tasks {
		fd, err := syscall.Open("/proc/"+proc+"/task/"+task.Name()+"/children", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			if err == syscall.ENOENT && len(pids) == 0 {
				return nil, false // no such file at all; a thread that exited has none either
			}
			continue
		}
		n, err := syscall.Read(fd, buf)
		syscall.Close(fd)
		if err != nil || n == len(buf) {
			return nil, false // unreadable, or too many children for one read: scan instead
		}
		pids = append(pids, parsePids(buf[:n])...)
	}
	return pids, true
}

// parsePids parses a space-separated list of pids.
func parsePids(b []byte) []int {
	var out []int
	for _, f := range bytes.Fields(b) {
		if pid, err := strconv.Atoi(string(f)); err == nil && pid > 0 {
			out = append(out, pid)
		}
	}
	return out
}

// allPids lists every process in /proc: without CONFIG_PROC_CHILDREN
// there is no cheaper list of one's children.
func allPids() []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	var out []int
	for {
		names, err := d.Readdirnames(256)
		for _, name := range names {
			if pid, err := strconv.Atoi(name); err == nil && pid > 0 {
				out = append(out, pid)
			}
		}
		if err != nil {
			return out
		}
	}
}

type procStat struct {
	state      byte
	ppid, pgrp int
}

// readStat parses state, ppid and pgrp from /proc/<pid>/stat. The command
// name may hold any byte, so the fields are found after its last ')'.
func readStat(pid int, buf []byte) (procStat, bool) {
	fd, err := syscall.Open("/proc/"+strconv.Itoa(pid)+"/stat", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return procStat{}, false
	}
	n, err := syscall.Read(fd, buf)
	syscall.Close(fd)
	if err != nil || n <= 0 {
		return procStat{}, false
	}
	b := buf[:n]
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	pgrp, err2 := strconv.Atoi(string(f[2]))
	if err1 != nil || err2 != nil {
		return procStat{}, false
	}
	return procStat{state: f[0][0], ppid: ppid, pgrp: pgrp}, true
}

// lockForkShared holds off sweeps while a child is forked and registered.
func lockForkShared() func() {
	harnessChildren.fork.RLock()
	return harnessChildren.fork.RUnlock
}
