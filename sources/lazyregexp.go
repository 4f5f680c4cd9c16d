package sources

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles expr on first use: a process that never needs it
// (the one-shot runtime commands) pays nothing for it at start.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
