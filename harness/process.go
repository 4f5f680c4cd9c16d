package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Timeouts of child processes (docs/harness.md). A manifest may set a timeout
// up to MaxTimeout; Spec.Timeout zero means DefaultToolTimeout.
const (
	DefaultToolTimeout = 30 * time.Second
	DefaultHookTimeout = 60 * time.Second
	MaxTimeout         = 600 * time.Second
)

// DefaultMaxOutput is the retention cap of stdout and of stderr, each.
const DefaultMaxOutput = 1 << 20

// DrainGrace bounds how long Run keeps reading a child's output after the
// child's whole process group has been killed. Output normally reaches EOF
// at once; only a process that left the group (setsid) and escaped the
// containment level in force can hold a pipe open longer, and Run does
// not wait for it.
const DrainGrace = 500 * time.Millisecond

// SignalGrace is how long Exec lets a child handle a forwarded SIGINT,
// SIGTERM, SIGHUP or SIGQUIT before it kills the child's process group
// (and PID namespace) with SIGKILL. bundlectl itself does not die of the
// signal it forwards, and the init of a PID namespace ignores every
// signal it has no handler for, so without this a server that ignores
// the signal would keep bundlectl running.
const SignalGrace = 5 * time.Second

// Spec is a frozen launch specification: everything needed to start one
// child process, already resolved by the caller. Run never consults a
// shell, PATH or the parent's environment.
type Spec struct {
	// Argv is the program and its arguments. Argv[0] is an absolute path:
	// "./x" commands are resolved by the caller into the snapshot, bare
	// names through LookPath.
	Argv []string
	// Dir is the working directory, an absolute path. It is required so
	// that a child never inherits bundlectl's own directory by accident.
	Dir string
	// Env is the complete environment (see BuildEnv). Nil means an empty
	// environment, never the parent's.
	Env []string
	// Stdin is written to the child's standard input, which is then
	// closed. A byte slice rather than a reader keeps a Spec a value that
	// can be run more than once.
	Stdin []byte
	// Timeout bounds the child's run time: zero means DefaultToolTimeout,
	// more than MaxTimeout is refused. Exec ignores it.
	Timeout time.Duration
	// MaxOutput caps the bytes retained of stdout and of stderr, each;
	// zero means DefaultMaxOutput. Reading continues to EOF regardless.
	MaxOutput int
}

// Result is how a child that started ended. Run returns a Result for every
// child that started, whatever its exit; Result.Err turns a non-success
// into an error for callers that want one.
type Result struct {
	// ExitCode is the exit status, or -1 when the child was killed by a
	// signal (Signal says which).
	ExitCode int
	Signal   syscall.Signal

	Stdout, Stderr                   []byte
	StdoutTruncated, StderrTruncated bool
	// BrokenOff, with StdoutTruncated, says why stdout is cut short when
	// it is not at the output cap: an http hook's answer whose connection
	// broke off.
	BrokenOff string
	// Problem is a failure bundlectl itself found and wrote as stderr
	// (an http hook's proxy refusal, an address it does not post to),
	// shown whole: cut as a hook's stderr is, its hint (a command) was
	// cut mid-command.
	Problem string
	// OutputHeld is set when a process outside the child's group still
	// held stdout or stderr open DrainGrace after the group was killed;
	// reading stopped there.
	OutputHeld bool

	TimedOut bool          // killed because Spec.Timeout elapsed
	Canceled bool          // killed because the context was done
	Timeout  time.Duration // the effective timeout
	Duration time.Duration // from start to reaping
}

// Success reports whether the child exited on its own with status 0.
func (r *Result) Success() bool {
	return r.ExitCode == 0 && !r.TimedOut && !r.Canceled
}

// Err returns nil for a successful result and an *ExitError otherwise.
func (r *Result) Err() error {
	if r.Success() {
		return nil
	}
	return &ExitError{ExitCode: r.ExitCode, Signal: r.Signal, TimedOut: r.TimedOut, Canceled: r.Canceled, Timeout: r.Timeout}
}

// ExitError describes a child that did not exit with status 0. It wraps
// context.DeadlineExceeded for a timeout and context.Canceled for a
// cancellation, so errors.Is works as with any context-bound call.
type ExitError struct {
	ExitCode int
	Signal   syscall.Signal
	TimedOut bool
	Canceled bool
	Timeout  time.Duration
}

func (e *ExitError) Error() string {
	switch {
	case e.TimedOut:
		return fmt.Sprintf("timed out after %s and was killed", e.Timeout)
	case e.Canceled:
		return "canceled and killed"
	case e.Signal != 0:
		return fmt.Sprintf("killed by signal %d (%s)", int(e.Signal), e.Signal)
	case e.ExitCode < 0:
		return "ended without an exit status bundlectl could read"
	default:
		return fmt.Sprintf("exited with status %d", e.ExitCode)
	}
}

func (e *ExitError) Unwrap() error {
	switch {
	case e.TimedOut:
		return context.DeadlineExceeded
	case e.Canceled:
		return context.Canceled
	}
	return nil
}

// SpecError is returned when a Spec cannot be run as written; nothing was
// started.
type SpecError struct {
	Field   string // "argv", "argv[0]", "dir", "env[3]", "timeout", ...
	Problem string
}

func (e *SpecError) Error() string {
	return fmt.Sprintf("invalid launch spec: %s: %s", e.Field, e.Problem)
}

// StartError is returned when the child could not be started (a missing
// program, a bad working directory); nothing ran.
type StartError struct {
	Path string
	Err  error
}

func (e *StartError) Error() string {
	return fmt.Sprintf("cannot start %q: %v", e.Path, e.Err)
}

func (e *StartError) Unwrap() error { return e.Err }

// Hint is the command that shows why the start failed, or "": for a
// start the namespace limit refused, the command that lists the user
// namespaces that hold it.
func (e *StartError) Hint() string {
	var l *namespaceLimitError
	if errors.As(e.Err, &l) {
		if l.level == ContainPIDNamespace {
			return "lsns -t pid"
		}
		return "lsns -t user"
	}
	return ""
}

// namespaceLimitError is a start at a namespace level that the kernel
// refused with ENOSPC: the limit on user (or PID) namespaces is reached,
// by this user's processes or by the nesting depth. The level in force is
// kept: nothing is started with weaker containment than the other
// children of this process got.
type namespaceLimitError struct{ level ContainmentLevel }

func (e *namespaceLimitError) Error() string {
	limit := "user.max_user_namespaces in /proc/sys/user/max_user_namespaces"
	if e.level == ContainPIDNamespace {
		limit = "user.max_pid_namespaces in /proc/sys/user/max_pid_namespaces"
	}
	return fmt.Sprintf("the kernel refused the child's %s (no space left: the limit on namespaces is reached, "+
		"%s, or the nesting depth); "+
		"nothing ran, and bundlectl does not start it with weaker containment than the level in force", e.level, limit)
}

func (e *namespaceLimitError) Unwrap() error { return syscall.ENOSPC }

func (s Spec) check() error {
	if len(s.Argv) == 0 {
		return &SpecError{Field: "argv", Problem: "empty"}
	}
	for i, a := range s.Argv {
		if strings.IndexByte(a, 0) >= 0 {
			return &SpecError{Field: fmt.Sprintf("argv[%d]", i), Problem: "contains a NUL byte"}
		}
	}
	if !filepath.IsAbs(s.Argv[0]) {
		return &SpecError{Field: "argv[0]", Problem: fmt.Sprintf("%q is not an absolute path", s.Argv[0])}
	}
	if s.Dir == "" || !filepath.IsAbs(s.Dir) || strings.IndexByte(s.Dir, 0) >= 0 {
		return &SpecError{Field: "dir", Problem: fmt.Sprintf("%q is not an absolute path", s.Dir)}
	}
	for i, kv := range s.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" || strings.IndexByte(kv, 0) >= 0 {
			return &SpecError{Field: fmt.Sprintf("env[%d]", i), Problem: "not a NAME=value entry"}
		}
	}
	if s.Timeout < 0 || s.Timeout > MaxTimeout {
		return &SpecError{Field: "timeout", Problem: fmt.Sprintf("%s is outside 0..%s", s.Timeout, MaxTimeout)}
	}
	if s.MaxOutput < 0 {
		return &SpecError{Field: "max_output", Problem: "negative"}
	}
	return nil
}

func (s Spec) timeout() time.Duration {
	if s.Timeout == 0 {
		return DefaultToolTimeout
	}
	return s.Timeout
}

// Run starts the child described by spec, feeds it Spec.Stdin, captures
// stdout and stderr separately, and waits for it to exit, for the timeout
// or for ctx, whichever comes first.
//
// The error is non-nil only when nothing ran (*SpecError, *StartError, or
// the context was already done); a child that started always yields a
// Result, including a timed-out (TimedOut) or canceled (Canceled) one.
//
// The child leads its own session and process group, and on every way out
// of Run the whole group is killed with SIGKILL before the leader is
// reaped, so no grandchild that stayed in the group outlives the call or
// keeps Run waiting on a pipe. Descendants that left the group (setsid)
// are held by the containment level in force (Containment): a PID
// namespace kills them with the child; a subreaper kills them after it.
func Run(ctx context.Context, spec Spec) (*Result, error) {
	if err := spec.check(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	max := spec.MaxOutput
	if max == 0 {
		max = DefaultMaxOutput
	}

	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, &StartError{Path: spec.Argv[0], Err: err}
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, &StartError{Path: spec.Argv[0], Err: err}
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, &StartError{Path: spec.Argv[0], Err: err}
	}

	c, err := startChild(spec, inR, outW, errW)
	// The child holds its own copies; ours must go so that EOF means
	// "every process holding the pipe is gone".
	closeAll(inR, outW, errW)
	if err != nil {
		closeAll(inW, outR, errR)
		return nil, err
	}
	defer c.killGroup(syscall.SIGKILL) // even if something below panics; a no-op once reaped

	stdinDone := make(chan struct{})
	go func() {
		defer close(stdinDone)
		if len(spec.Stdin) > 0 {
			_, _ = inW.Write(spec.Stdin) // EPIPE when the child does not read: not an error
		}
		_ = inW.Close()
	}()
	var stdout, stderr capture
	var readers sync.WaitGroup
	readers.Add(2)
	go func() { defer readers.Done(); stdout.readAll(outR, max) }()
	go func() { defer readers.Done(); stderr.readAll(errR, max) }()

	res := &Result{Timeout: spec.timeout()}
	timer := time.NewTimer(res.Timeout)
	defer timer.Stop()
	select {
	case <-c.exited:
	case <-timer.C:
		res.TimedOut = true
		c.killGroup(syscall.SIGKILL)
		<-c.exited
	case <-ctx.Done():
		res.Canceled = true
		c.killGroup(syscall.SIGKILL)
		<-c.exited
	}
	res.Duration = time.Since(c.started)

	// The group is dead; EOF follows at once unless an escaped process
	// holds a pipe. Do not wait for such a process.
	drain := time.AfterFunc(DrainGrace, func() {
		now := time.Now()
		_ = outR.SetReadDeadline(now)
		_ = errR.SetReadDeadline(now)
	})
	readers.Wait()
	drain.Stop()
	_ = inW.Close() // unblocks a stdin write nobody will read
	<-stdinDone
	closeAll(outR, errR)

	res.Stdout, res.StdoutTruncated = stdout.buf, stdout.truncated
	res.Stderr, res.StderrTruncated = stderr.buf, stderr.truncated
	res.OutputHeld = stdout.held || stderr.held
	res.ExitCode, res.Signal = c.exitStatus()
	return res, nil
}

// Stdio are the files Exec passes through to the child. Nil fields mean
// os.Stdin, os.Stdout and os.Stderr.
type Stdio struct {
	In, Out, Err *os.File
}

// ForwardedSignals are the signals Exec relays to the child's process
// group while it runs, less any this process was started ignoring (see
// NotifyHeeded).
var ForwardedSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// Exec runs a long-lived child (a stdio MCP server for `bundlectl mcp`)
// with stdin, stdout and stderr passed through unbuffered, relays
// ForwardedSignals to its process group, and returns when it exits. A child still running SignalGrace after a forwarded signal is
// killed with SIGKILL.
//
// Exec supervises rather than replaces the process (no execve): a
// replaced process could not be killed when trust is revoked, would lose
// the parent-death signal and the process-group cleanup. Cancelling ctx
// kills the whole group; Spec.Timeout, Spec.Stdin and Spec.MaxOutput are
// ignored. The Result has no captured output. The child has no
// controlling terminal (it leads a new session), so its stdio should be
// pipes, as a harness provides.
func Exec(ctx context.Context, spec Spec, stdio Stdio) (*Result, error) {
	x, err := startExec(ctx, spec, stdio)
	if err != nil {
		return nil, err
	}
	return x.wait(ctx), nil
}

// execution is a child started by Exec, with the signals it relays.
type execution struct {
	c    *child
	sigs chan os.Signal
	chld chan os.Signal // SIGCHLD, at the subreaper level only
}

func (x *execution) stop() {
	signal.Stop(x.sigs)
	if x.chld != nil {
		signal.Stop(x.chld)
	}
}

func startExec(ctx context.Context, spec Spec, stdio Stdio) (*execution, error) {
	spec.Timeout = 0
	if err := spec.check(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if stdio.In == nil {
		stdio.In = os.Stdin
	}
	if stdio.Out == nil {
		stdio.Out = os.Stdout
	}
	if stdio.Err == nil {
		stdio.Err = os.Stderr
	}
	// Subscribe before the child starts: a signal that arrives once it runs
	// must be relayed to its group, not end bundlectl at the default
	// action and leave what the child started running.
	x := &execution{sigs: make(chan os.Signal, 4)}
	NotifyHeeded(x.sigs, ForwardedSignals...)
	c, err := startChild(spec, stdio.In, stdio.Out, stdio.Err)
	if err != nil {
		x.stop()
		return nil, err
	}
	x.c = c
	if hook := testOnlyExecStarted; hook != nil {
		hook()
	}
	if c.level == ContainSubreaper {
		x.chld = make(chan os.Signal, 1)
		signal.Notify(x.chld, syscall.SIGCHLD)
		reapZombieOrphans() // an orphan that exited before Notify sent its SIGCHLD unseen
	}
	return x, nil
}

// wait relays signals until the child exits or ctx is done, then returns
// how it ended. At the subreaper level it also reaps, on each SIGCHLD,
// the adopted descendants that have exited, so that a long-lived server
// does not leave bundlectl full of zombies.
func (x *execution) wait(ctx context.Context) *Result {
	c := x.c
	defer x.stop()
	defer c.killGroup(syscall.SIGKILL)
	grace := SignalGrace
	if testOnlySignalGrace > 0 {
		grace = testOnlySignalGrace
	}
	var killAfter <-chan time.Time
	res := &Result{}
	for done := false; !done; {
		select {
		case <-c.exited:
			done = true
		case s := <-x.sigs:
			if sig, ok := s.(syscall.Signal); ok {
				c.killGroup(sig)
			}
			if killAfter == nil {
				t := time.NewTimer(grace)
				defer t.Stop()
				killAfter = t.C
			}
		case <-killAfter:
			c.killGroup(syscall.SIGKILL)
		case <-x.chld:
			reapZombieOrphans()
		case <-ctx.Done():
			res.Canceled = true
			c.killGroup(syscall.SIGKILL)
			<-c.exited
			done = true
		}
	}
	res.Duration = time.Since(c.started)
	res.ExitCode, res.Signal = c.exitStatus()
	return res
}

// testOnlySignalGrace, when positive, replaces SignalGrace.
var testOnlySignalGrace time.Duration

// testOnlyExecStarted, when set, is called by Exec as soon as the child
// has started, before anything reads the signals it relays: a test sends
// a signal in that window.
var testOnlyExecStarted func()

// child is a started process and the goroutine that reaps it.
type child struct {
	pid     int
	level   ContainmentLevel
	started time.Time
	exited  chan struct{} // closed once the group is killed and the leader reaped

	mu     sync.Mutex
	reaped bool // after this the pid may be reused: never signal it again
	// status is the leader's wait status once reaped; waitErr is why it
	// could not be waited for (it then ends with exit code -1 and no
	// signal: a failure, never a success).
	status  syscall.WaitStatus
	waitErr error
}

// startChild starts spec with the given files as fds 0, 1, 2, at the
// containment level in force. The starting goroutine stays locked to its
// OS thread until the child is reaped, because the Linux parent-death
// signal fires when the thread that forked the child exits, not the
// process.
func startChild(spec Spec, stdin, stdout, stderr *os.File) (*child, error) {
	env := spec.Env
	if env == nil {
		env = []string{} // nil would make os/exec inherit our environment
	}
	c := &child{exited: make(chan struct{})}
	startErr := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		level, confirmed := startLevel()
		err := c.start(spec, env, level, stdin, stdout, stderr)
		if err != nil && !confirmed {
			// The presumed level may be what failed: probe, and start at
			// the level this host has. If that is the same level, the
			// failure was the program's own (nothing ran either way).
			if l := Containment(); l != level {
				err = c.start(spec, env, l, stdin, stdout, stderr)
			}
		} else if err == nil && !confirmed {
			confirmLevel(level)
		}
		startErr <- err
		if err != nil {
			return
		}
		c.reap()
		close(c.exited)
	}()
	if err := <-startErr; err != nil {
		return nil, &StartError{Path: spec.Argv[0], Err: unwrapPathError(err)}
	}
	return c, nil
}

// start starts the child at level; nothing has run when it fails.
func (c *child) start(spec Spec, env []string, level ContainmentLevel, stdin, stdout, stderr *os.File) error {
	if testOnlyStartFails != nil && testOnlyStartFails(level) {
		return syscall.EPERM
	}
	if level == ContainSubreaper {
		if err := ensureSubreaper(); err != nil {
			return err
		}
	}
	c.level = level
	// syscall.ForkExec, not os/exec (doc.go says why).
	attr := &syscall.ProcAttr{
		Dir:   spec.Dir,
		Env:   dedupEnv(env),
		Files: []uintptr{stdin.Fd(), stdout.Fd(), stderr.Fd()},
		Sys:   sysProcAttr(level),
	}
	unlock := lockForkShared() // a subreaper sweep must not see it unregistered
	defer unlock()
	pid, err := syscall.ForkExec(spec.Argv[0], spec.Argv, attr)
	// attr holds the files' descriptor numbers only: a file finalized
	// before the fork would hand the child another file.
	runtime.KeepAlive(stdin)
	runtime.KeepAlive(stdout)
	runtime.KeepAlive(stderr)
	if err == syscall.ENOSPC && level.Namespaced() {
		return &namespaceLimitError{level}
	}
	if err != nil {
		return err
	}
	c.pid = pid
	c.started = time.Now()
	registerChild(c.pid)
	return nil
}

// reap waits for the leader to exit, kills its group, then reaps it. While
// the leader is an unreaped zombie its pid, and so the group id, cannot be
// reused, so the group kill cannot hit an unrelated process. In a PID
// namespace the kernel has already killed every other process in it by
// the time the leader (its init) can be waited for. At the subreaper
// level the orphans adopted meanwhile are swept last.
func (c *child) reap() {
	if waitExitedNoReap(c.pid) {
		c.mu.Lock()
		_ = syscall.Kill(-c.pid, syscall.SIGKILL)
		c.wait()
		c.reaped = true
		c.mu.Unlock()
	} else {
		// No wait-without-reap on this platform: kill the group right
		// after reaping; a pid reused in that window is the accepted
		// residual risk.
		c.wait()
		c.mu.Lock()
		c.reaped = true
		c.mu.Unlock()
		_ = syscall.Kill(-c.pid, syscall.SIGKILL)
	}
	unregisterChild(c.pid)
	if c.level == ContainSubreaper {
		sweepOrphans()
	}
}

// killGroup sends sig to the child's process group unless the leader has
// already been reaped. The leader cannot leave its group: it leads its
// session.
func (c *child) killGroup(sig syscall.Signal) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.reaped {
		_ = syscall.Kill(-c.pid, sig)
	}
}

// wait reaps the leader and records its status.
func (c *child) wait() {
	for {
		_, err := syscall.Wait4(c.pid, &c.status, 0, nil)
		if err != syscall.EINTR {
			c.waitErr = err
			return
		}
	}
}

// exitStatus is the leader's exit code, or -1 and the signal that killed
// it. A leader that could not be waited for is -1 with no signal: never
// a success.
func (c *child) exitStatus() (int, syscall.Signal) {
	switch {
	case c.waitErr != nil:
		return -1, 0
	case c.status.Signaled():
		return -1, c.status.Signal()
	case c.status.Exited():
		return c.status.ExitStatus(), 0
	}
	return -1, 0
}

// dedupEnv keeps the last entry of each name, in the order of those last
// entries, as os/exec does: execve would pass every entry, and most
// programs read the first.
func dedupEnv(env []string) []string {
	seen := make(map[string]bool, len(env))
	out := make([]string, 0, len(env))
	for i := len(env) - 1; i >= 0; i-- {
		k, _, _ := strings.Cut(env[i], "=")
		if !seen[k] {
			seen[k] = true
			out = append(out, env[i])
		}
	}
	slices.Reverse(out)
	return out
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}

// capture retains at most max bytes of a stream and discards the rest
// while reading on to EOF, so the writer never blocks on a full pipe.
type capture struct {
	buf       []byte
	truncated bool
	held      bool // reading stopped at the drain deadline
}

func (c *capture) readAll(r io.Reader, max int) {
	chunk := make([]byte, 32<<10)
	for {
		n, err := r.Read(chunk)
		if n > 0 {
			keep := min(n, max-len(c.buf))
			if keep > 0 {
				c.buf = append(c.buf, chunk[:keep]...)
			}
			if keep < n {
				c.truncated = true
			}
		}
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				c.held = true
				c.truncated = true
			}
			return
		}
	}
}

// LookPathError is returned when a bare command name is not found on PATH.
type LookPathError struct {
	Name string
	Err  error
}

func (e *LookPathError) Error() string {
	return fmt.Sprintf("command %q: %v", e.Name, e.Err)
}

func (e *LookPathError) Unwrap() error { return e.Err }

// LookPath finds the bare command name in path (a PATH value) and returns
// its absolute path. Only absolute PATH entries are searched: empty and
// relative entries, which would mean the working directory (a workspace
// the bundle does not control), are skipped. A name containing a slash is
// refused; "./x" commands resolve inside the snapshot, not here.
func LookPath(name, path string) (string, error) {
	if name == "" || strings.ContainsRune(name, '/') || name == "." || name == ".." || strings.IndexByte(name, 0) >= 0 {
		return "", &LookPathError{Name: name, Err: errors.New("not a bare command name")}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			continue
		}
		return p, nil
	}
	return "", &LookPathError{Name: name, Err: exec.ErrNotFound}
}
