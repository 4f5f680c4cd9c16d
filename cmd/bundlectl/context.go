package main

import (
	"context"
	"errors"
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/bundlectl/bundlectl/harness"
)

// cmdContext is cancelled by SIGINT, SIGTERM, SIGHUP or SIGQUIT, so an
// interrupted run kills its child's process group before bundlectl exits;
// the context's cause is then a *signalCause naming the signal
// (interruptedBy). A SIGINT bundlectl was started ignoring (a script's
// background job) stays ignored. SIGQUIT (Ctrl-\) would otherwise end
// bundlectl at Go's default, a dump of its goroutines, and leave the child
// to the parent-death signal; after it bundlectl exits 128+3.
func cmdContext() context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	harness.NotifyHeeded(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	go func() {
		sig, _ := (<-sigs).(syscall.Signal)
		cancel(&signalCause{sig})
	}()
	return ctx
}

// startContext begins cmdContext on another goroutine and returns a
// function that waits for it. In a fresh process the first signal
// subscription costs about half a millisecond (the runtime starts a thread
// for signal delivery), so the commands on an agent's every step (hooks
// run, hooks exec, run) set it up while they load the registry. Until it
// is set up, SIGINT and SIGTERM end bundlectl as they would have before
// cmdContext was called: nothing has been started yet.
func startContext() func() context.Context {
	c := make(chan context.Context, 1)
	go func() { c <- cmdContext() }()
	return sync.OnceValue(func() context.Context { return <-c })
}

// signalCause is why cmdContext was cancelled.
type signalCause struct{ sig syscall.Signal }

func (c *signalCause) Error() string { return "interrupted by " + unix.SignalName(c.sig) }

// interruptedBy returns err unchanged unless a signal cancelled ctx (a
// cmdContext) and the command failed; then it returns err as an
// *interrupted, which bundlectl prints as it would err and then ends by
// that signal, as its caller expects of a program it interrupted: bash
// stops a script's loop on a Ctrl-C only when the job died of SIGINT, and
// goes on after one that exited 1. A command that finished its work
// before it saw the signal (err nil) still says so with exit status 0.
//
// The guard commands (hooks run, hooks exec) do not use it: a host reads a
// hook that died of a signal as a hook that failed, and proceeds, so an
// interrupted guard still blocks with exit status 2.
func interruptedBy(ctx context.Context, err error) error {
	var c *signalCause
	if err == nil || !errors.As(context.Cause(ctx), &c) {
		return err
	}
	return &interrupted{err: err, sig: c.sig}
}

// interrupted is a command's error after a signal cancelled it: exit
// status 128+N, and bundlectl ends by the signal where it can (dieOf).
type interrupted struct {
	err error
	sig syscall.Signal
}

func (e *interrupted) Error() string { return e.err.Error() }
func (e *interrupted) Unwrap() error { return e.err }
