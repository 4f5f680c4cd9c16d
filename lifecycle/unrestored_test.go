package lifecycle

import (
	"errors"
	"strings"
	"syscall"
	"testing"
)

// The failure of an update whose restore failed ends with a hint: the
// state error's own when it has one (what makes the state writable),
// else the update that records the fetched tree once the state can be
// written — also for a write that failed with an I/O error, for which
// the state package gives none.
func TestUnrestoredUpdateHints(t *testing.T) {
	restore := errors.New("exchange /h/tmp/.install-1/my kit /h/bundles/my kit: operation not permitted")
	for _, c := range []struct {
		err  error
		want string
	}{
		{&SourceError{Reason: "state directory cannot be written", Fix: "ls -ld -- /h"}, "ls -ld -- /h"},
		{errors.New("write state: rename /h/.state.json1 /h/state.json: " + syscall.EIO.Error()), "bundlectl update 'my kit'"},
	} {
		err := unrestoredUpdate("my kit", "/h/bundles/my kit", "/h/tmp/.install-1/my kit", c.err, restore)
		var h interface{ Hint() string }
		if !errors.As(err, &h) || h.Hint() != c.want {
			t.Errorf("%v: hint %v, want %q", c.err, h, c.want)
		}
		if !errors.Is(err, c.err) || !strings.Contains(err.Error(), c.err.Error()) {
			t.Errorf("the failure does not carry the state error %v: %v", c.err, err)
		}
	}
}
