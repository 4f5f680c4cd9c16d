package lifecycle

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestPinEntryByOpenFIFO: off Linux, update pins the bundle's directory by
// opening it; a FIFO put in its place (by a user who may write the
// workspace's .bundlectl, between discovery and the pin) must not make it
// wait for a writer for ever. The FIFO is only stat'd, and is not the
// directory.
func TestPinEntryByOpenFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "b")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	type pinned struct{ id *entryID }
	done := make(chan pinned, 1)
	go func() {
		id, release := pinEntryByOpen(unix.AT_FDCWD, fifo)
		release()
		done <- pinned{id}
	}()
	select {
	case p := <-done:
		if p.id == nil || p.id.dir {
			t.Fatalf("FIFO pinned as %+v, want its identity, not a directory", p.id)
		}
	case <-time.After(60 * time.Second):
		// Let the open return, so the test ends.
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		<-done
		t.Fatal("pinEntryByOpen waited for a writer on a FIFO in the bundle's place")
	}
	// A directory is still held.
	d := filepath.Join(dir, "d")
	if err := os.Mkdir(d, 0o700); err != nil {
		t.Fatal(err)
	}
	id, release := pinEntryByOpen(unix.AT_FDCWD, d)
	defer release()
	if id == nil || !id.dir {
		t.Fatalf("directory pinned as %+v", id)
	}
}
