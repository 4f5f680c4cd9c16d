package main

import (
	"context"
	"os"
	"sync"
	"syscall"

	"github.com/bundlectl/bundlectl/harness"
)

// cmdContext is cancelled by SIGINT or SIGTERM, so an interrupted run kills
// its child's process group before bundlectl exits. A SIGINT bundlectl was
// started ignoring (a script's background job) stays ignored.
func cmdContext() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 1)
	harness.NotifyHeeded(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		cancel()
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
