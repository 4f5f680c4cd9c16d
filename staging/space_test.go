package staging

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
)

// A full file system is reported as the store's, with the command that
// shows its space, not as a fault of the bundle file being copied.
func TestSpaceError(t *testing.T) {
	e := &SpaceError{Store: "/h/my store", Err: &os.PathError{Op: "write", Path: "blob", Err: syscall.ENOSPC}}
	if !errors.Is(e, syscall.ENOSPC) || !strings.Contains(e.Error(), `store "/h/my store"`) || e.Hint() != "df -h '/h/my store'" {
		t.Fatalf("%v / %q", e, e.Hint())
	}
}
