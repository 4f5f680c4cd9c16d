package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// cmdContext is cancelled by SIGINT or SIGTERM, so an interrupted run kills
// its child's process group before bundlectl exits.
func cmdContext() context.Context {
	ctx, _ := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	return ctx
}
