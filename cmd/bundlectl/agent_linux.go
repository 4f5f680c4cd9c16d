package main

import (
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// agentProcAttr starts the agent in bundlectl's session, process group and
// terminal, with SIGTERM as its parent-death signal.
func agentProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}

// agentStopped reports whether the process pid is stopped now (state T in
// /proc/<pid>/stat); true when that cannot be read, as wait4 said so.
func agentStopped(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 || i+2 >= len(b) {
		return true
	}
	return b[i+2] == 'T'
}

// dieOf ends bundlectl by sig, the signal that ended its agent (or that
// interrupted the secret prompt, readSecret), so that its caller sees
// what the agent's would have: a shell script stops on a
// Ctrl-C that killed the agent only when its job died of SIGINT, and goes
// on after one that exited 130. It does so for the signals whose default
// ends a process quietly and which Go's runtime lets end it — SIGINT,
// SIGTERM and SIGHUP once unsubscribed, and SIGKILL — and returns for the
// others (the runtime's handler would print a crash report for SIGQUIT or
// SIGSEGV, and take no action on SIGUSR1), and for a signal bundlectl was
// started ignoring; the exit status then says 128+N.
//
// It returns too, for 128+N, when bundlectl is the init of a PID namespace
// (PID 1 in a container): the kernel drops a signal at its default sent to
// a namespace's init from inside it, so the runtime, finding itself alive
// after raising it, would exit 2, which says a usage error.
//
// The signal goes to this goroutine's own thread, where it is delivered
// before tgkill returns: the process cannot exit meanwhile.
func dieOf(sig syscall.Signal) {
	if os.Getpid() == 1 {
		return
	}
	switch sig {
	case syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP:
		if signal.Ignored(sig) {
			return
		}
		signal.Reset(sig)
	case syscall.SIGKILL:
	default:
		return
	}
	runtime.LockOSThread()
	syscall.Tgkill(os.Getpid(), syscall.Gettid(), sig)
}
