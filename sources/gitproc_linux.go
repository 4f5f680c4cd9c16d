package sources

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/internal/overflowid"
)

// procAttr puts git in its own process group, so a cancelled fetch kills
// git and every helper it started (remote-https, ssh, upload-pack), and
// kills git when bundlectl itself dies (Pdeathsig) — even of SIGKILL. So
// that its helpers die with it then too (no bundlectl is left to kill
// the group), git starts, where this process may make one, as the init of
// a PID namespace of its own (gitNamespaces): when it exits or is killed,
// the kernel kills everything in the namespace. (The harness starts
// bundle tools the same way.) A git that reaches its remote over ssh
// (ssh) starts in no user namespace: ssh trusts a configuration file
// owned by root or the user, and root, which only a privileged process
// can map, would show there as the overflow id ("Bad owner or
// permissions on ~/.ssh/config" for a config root owns).
func procAttr(ssh bool) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	switch gitNamespaces() {
	case nsPID:
		a.Cloneflags = syscall.CLONE_NEWPID
	case nsUserPID:
		if !ssh {
			userPIDNamespace(a)
		}
	}
	return a
}

// sshLauncher is what the ssh command git runs starts with: setpriv
// --pdeathsig KILL (util-linux), where it is on PATH, so ssh gets a
// parent-death signal of its own and dies with git. The signal git gets
// (procAttr) is not inherited by the processes git forks, and an ssh
// remote's git runs in no user namespace, so where a PID namespace needs
// one (a user without CAP_SYS_ADMIN) nothing else kills an ssh that waits
// on a silent server once a SIGKILLed bundlectl has taken git with it.
// Not covered: git dying between forking ssh and setpriv's prctl, and a
// ControlPersist master (which forks off ssh, and does not inherit the
// signal).
func sshLauncher() string {
	if p := setprivPath(); p != "" {
		return bundle.ShellArg(p) + " --pdeathsig KILL "
	}
	return ""
}

var setprivPath = sync.OnceValue(findSetpriv)

// findSetpriv is the path of the setpriv on PATH, or "" where there is
// none or where it does not run a command with --pdeathsig KILL: a
// setpriv that does not know the option (util-linux before 2.33,
// busybox's applet) would fail every ssh fetch, so ssh then runs without
// it, as where no setpriv is installed.
func findSetpriv() string {
	p, err := exec.LookPath("setpriv")
	if err != nil || !filepath.IsAbs(p) {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	probe := exec.CommandContext(ctx, p, "--pdeathsig", "KILL", "sh", "-c", ":")
	probe.Env = []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C"}
	probe.Dir = "/"
	if probe.Run() != nil {
		return ""
	}
	return p
}

// The namespaces git may start in.
const (
	nsNone    = iota // the process group alone
	nsPID            // a PID namespace (CAP_SYS_ADMIN)
	nsUserPID        // a user and a PID namespace (unprivileged user namespaces)
)

// userPIDNamespace makes a a user and PID namespace's, mapping only this
// process's own ids onto themselves: git keeps its uid and gid, and sees
// every other owner as the overflow id, as it already differs from its
// own; exec of a non-root uid drops the namespace's capabilities.
func userPIDNamespace(a *syscall.SysProcAttr) {
	a.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Geteuid(), HostID: os.Geteuid(), Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}}
	a.GidMappingsEnableSetgroups = false
}

var gitNS struct {
	sync.Mutex
	decided bool
	level   int
}

// gitNamespaces is the strongest level this process can start git at,
// found once: a PID namespace, else a user and PID namespace, else none
// (a kernel, seccomp or LSM policy refusing them,
// user.max_user_namespaces 0, or a process running as the overflow uid:
// overflowid.IsUID). A test may set it (setGitNamespaces).
func gitNamespaces() int {
	gitNS.Lock()
	defer gitNS.Unlock()
	if !gitNS.decided {
		gitNS.level, gitNS.decided = nsNone, true
		for _, l := range []int{nsPID, nsUserPID} {
			if l == nsUserPID && overflowid.IsUID(os.Geteuid()) {
				break
			}
			if namespaceWorks(l) {
				gitNS.level = l
				break
			}
		}
	}
	return gitNS.level
}

// namespaceWorks reports whether a child can be cloned into the
// namespaces of level l, by cloning one that execs a path that cannot
// exist (nothing under a character device): nothing runs.
func namespaceWorks(l int) bool {
	a := &syscall.SysProcAttr{}
	switch l {
	case nsPID:
		a.Cloneflags = syscall.CLONE_NEWPID
	case nsUserPID:
		userPIDNamespace(a)
	}
	const nowhere = "/dev/null/bundlectl-git-namespace-probe"
	_, err := syscall.ForkExec(nowhere, []string{nowhere}, &syscall.ProcAttr{Dir: "/", Env: []string{}, Sys: a})
	return err == syscall.ENOTDIR || err == syscall.ENOENT
}

// procSelfFD is where a process finds its descriptors by number; a test
// points it elsewhere to stand for a system without /proc mounted.
var procSelfFD = "/proc/self/fd/"

// noHeldDir says why git cannot be started in a directory held open.
const noHeldDir = "/proc/self/fd is not available (is /proc mounted?)"

// heldWorkDir is git's working directory entered through the scratch
// directory's descriptor: the child changes into it through its copy of
// the descriptor (/proc/self/fd/N, before exec closes it), so no path
// above it is resolved again: a directory renamed away and a link put in
// its place redirects nothing git writes. It reports false when that
// path does not lead to the scratch directory held (no /proc mounted: a
// container, a chroot).
func (f *fetcher) heldWorkDir() (string, bool) {
	p := procSelfFD + strconv.FormatUint(uint64(f.scratchF.Fd()), 10)
	fi, err := os.Stat(p)
	if err != nil {
		return "", false
	}
	held, err := f.scratchF.Stat()
	return p, err == nil && os.SameFile(fi, held)
}

// gitHeldDir gives git the scratch directory as its descriptor 3 and
// PWD=/proc/self/fd/3. git makes the path of every lock file it takes
// (config.lock, shallow.lock, a ref's lock) absolute, from PWD when PWD
// names its working directory, else from getcwd(3) — the directory's
// path by name at that moment, which a swap of a directory above it
// afterwards redirects (shallow.lock is taken before the pack is
// received and renamed after, a window the remote controls). Through
// PWD those paths go through git's own descriptor, as the working
// directory does. git's helpers inherit both; a helper started
// elsewhere (upload-pack in a local source) finds PWD is not its
// directory and ignores it.
func (f *fetcher) gitHeldDir(cmd *exec.Cmd) {
	cmd.ExtraFiles = []*os.File{f.scratchF}
	cmd.Env = append(cmd.Env[:len(cmd.Env):len(cmd.Env)], "PWD=/proc/self/fd/3")
}

// waitGit waits for git, started by cmd, as cmd.Wait does, and first
// kills what is left of its process group once git has exited: git waits
// for every program it starts, so a process still in its group is one
// that outlived it — git killed from outside or crashed while
// git-remote-https waits on a silent server, say — and would keep the
// scratch directory (its working directory and descriptor 3) and git's
// standard error after the fetch is over. waitid(WNOWAIT) leaves git
// unreaped until the kill is sent, so its group id cannot name another
// group meanwhile. (An ssh ControlPersist master has left the group, and
// holds nothing of the fetch: core.sshCommand.)
func waitGit(cmd *exec.Cmd) error {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	return cmd.Wait()
}
