//go:build !linux

package harness

import "testing"

// hideChildrenLists: children lists are read on Linux only, so the
// variant that hides them has nothing to test elsewhere.
func hideChildrenLists(t *testing.T) {
	t.Skip("children lists in /proc are read on Linux only")
}
