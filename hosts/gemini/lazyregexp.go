package gemini

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles expr on first use: every bundlectl process links
// this package, and the ones that never start Gemini CLI (each `hooks
// run` a host starts per tool call) pay nothing for it at start.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
