package hosts

import (
	"fmt"

	"github.com/bundlectl/bundlectl/bundle"
)

// NotExclusiveError refuses an exclusive launch (Options.Exclusive) when
// something the session cannot override would load a plugin of the user's
// own beside the views: exec starts no agent rather than pretend. It is a
// usage error: the command line asked for what cannot be had.
type NotExclusiveError struct {
	Host   string // "codex"
	Plugin string // the plugin as the agent names it; "" when unknown
	Source string // the file or argument that loads it (or may)
	Why    string // why the session cannot keep it out
	Fix    string
}

func (e *NotExclusiveError) Error() string {
	what, does := "plugins", "may enable some"
	if e.Plugin != "" {
		what, does = "plugin "+bundle.Quote(e.Plugin), "enables it"
	}
	return fmt.Sprintf("bundlectl exec --exclusive -- %s cannot keep your own %s out: %s %s, and %s; so the agent is not started: %s", e.Host, what, bundle.Quote(e.Source), does, e.Why, e.Fix)
}

// Hint is the command that starts the agent without the switch, the
// plugin named before it starts: without the agent's arguments, for when
// exec cannot repeat its own command line without --exclusive (an
// argument may hold a secret).
func (e *NotExclusiveError) Hint() string { return "bundlectl exec -- " + e.Host }
