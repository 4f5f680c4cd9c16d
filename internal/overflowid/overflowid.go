// Package overflowid tells whether a uid is the one a Linux user
// namespace shows every unmapped owner as.
//
// Invariant: a process running as that uid is never put in a user
// namespace that maps only its own ids, since in one every file another
// user owns (root's included) would look like its own, and ownership
// checks (git's "dubious ownership", ssh's config ownership) would pass
// where they refuse outside.
package overflowid

import (
	"os"
	"strconv"
	"strings"
)

// file holds the id a user namespace shows every unmapped owner as.
const file = "/proc/sys/kernel/overflowuid"

// IsUID reports whether uid is the overflow uid (65534, nobody, unless
// the system says otherwise).
func IsUID(uid int) bool {
	overflow := 65534
	if b, err := os.ReadFile(file); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			overflow = n
		}
	}
	return uid == overflow
}
