package harness

import (
	"os"
	"os/signal"
)

// NotifyHeeded is signal.Notify for those of sigs this process was not
// started ignoring. A signal the parent ignored — SIGHUP under nohup,
// SIGINT in a script's background job — stays ignored, by bundlectl and by
// what it starts, as it would be by a program started directly: a
// subscription would replace the ignored disposition with Go's handler,
// and a process started afterwards would get the signal at its default.
// With none of sigs left it subscribes to nothing (signal.Notify with no
// signals subscribes to all of them).
//
// Go's runtime honours an inherited ignore of SIGHUP and SIGINT, and
// signal.Ignored reports it. Most others it handles from the start, so
// they are never left out here. The job-control signals (SIGTSTP, SIGTTIN,
// SIGTTOU, SIGCONT) it leaves as inherited until one is subscribed to, but
// signal.Ignored does not report them ignored: given one, NotifyHeeded
// would subscribe to it and undo an inherited ignore, so it is not for
// them.
func NotifyHeeded(c chan<- os.Signal, sigs ...os.Signal) {
	heeded := make([]os.Signal, 0, len(sigs))
	for _, s := range sigs {
		if !signal.Ignored(s) {
			heeded = append(heeded, s)
		}
	}
	if len(heeded) > 0 {
		signal.Notify(c, heeded...)
	}
}
