package lifecycle

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/bundlectl/bundlectl/internal/testtree"
)

// A holder path swapped, between the check and its opening, for a
// directory that opens but whose entries cannot be looked up (r--, a
// user's own) is refused as a swap: its Stat failing is no panic.
// Before, openRoot called Sys on the nil FileInfo the failed Stat gave.
// Root passes the lookup whatever the mode, so as root the test re-runs
// itself as nobody.
func TestHolderOpenRootStatFails(t *testing.T) {
	if testtree.RerunAsNobody(t) {
		return
	}
	dir := t.TempDir()
	other := filepath.Join(dir, "other")
	if err := os.Mkdir(other, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(other, 0o444); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(other, 0o700)
	h := &tmpHolder{dir: dir, name: "other", path: other, dirfd: -1, fd: -1, id: &entryID{dev: 1, ino: 1, dir: true}}
	r, err := h.openRoot()
	if err == nil {
		r.Close()
		t.Fatal("openRoot took a directory it could not check")
	}
}
