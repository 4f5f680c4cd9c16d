package hosts

// ArgumentError is an argument of the agent's own that exec refuses to
// start the agent with: a usage error (exit 2), whose message names the
// argument and what to do, and whose Fix is a command that works as
// printed.
type ArgumentError struct {
	Err error
	Fix string
	// Args are the indexes, in the agent's own arguments (argv[1:]), of
	// the argument refused (with its value): exec's hint is then its own
	// command line without them, Fix when that cannot be printed.
	Args []int
}

func (e *ArgumentError) Error() string { return e.Err.Error() }
func (e *ArgumentError) Unwrap() error { return e.Err }

// Hint is the command that fixes it.
func (e *ArgumentError) Hint() string { return e.Fix }
