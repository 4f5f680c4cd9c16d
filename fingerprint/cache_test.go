package fingerprint

import (
	"os"
	"path/filepath"
	"testing"
)

// A record or directory made wider by hand is made owner-only again by
// the next Store, so the cache works again instead of being refused on
// every check.
func TestStoreRestoresOwnerOnly(t *testing.T) {
	c := Cache{Dir: filepath.Join(t.TempDir(), "verified")}
	rec := Record{Key: SnapshotKey("ab"), Digest: "d"}
	c.Store(rec)
	if _, ok := c.Load(rec.Key); !ok {
		t.Fatal("a stored record does not load")
	}
	if err := os.Chmod(c.path(rec.Key), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(c.Dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Load(rec.Key); ok {
		t.Fatal("a record others may write was loaded")
	}
	c.Store(rec)
	if _, ok := c.Load(rec.Key); !ok {
		t.Fatal("Store kept the record's 0666: it is refused on every check")
	}
	if fi, err := os.Stat(c.Dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("directory mode %v (%v), want 0700", fi.Mode().Perm(), err)
	}
}
