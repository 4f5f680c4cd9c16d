package lifecycle_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/fingerprint"
)

// TestSourceRecordOfOtherReadersIsRehashed: a source's fingerprint record
// stands for the capability hash the readers of its revision computed.
// Under the current revision the record is believed (a recorded hash that
// differs from the receipt shows an update pending); under another it is
// not, and the source is hashed again, so that an upgraded bundlectl
// whose readers see more in a trusted bundle says so at once.
func TestSourceRecordOfOtherReadersIsRehashed(t *testing.T) {
	home, ws := newWorkspace(t, "kit")
	m := manager(home, ws)
	if _, err := m.Trust("kit", tokenOf(t, m, "kit")); err != nil {
		t.Fatal(err)
	}
	// Past the racy window of every write above, so that the record the
	// next list writes proves the walk (a wait, not a deadline).
	time.Sleep(4 * fingerprint.RacyWindow)
	pending := func() bool {
		t.Helper()
		d, sts, _, err := m.List()
		if err != nil {
			t.Fatal(err)
		}
		for i, b := range d.Bundles {
			if b.Name == "kit" {
				return sts[i].UpdatePending
			}
		}
		t.Fatal("kit not listed")
		return false
	}
	if pending() {
		t.Fatal("a freshly trusted bundle shows an update pending")
	}
	var key string
	for _, b := range m.Discover().Bundles {
		if b.Name == "kit" {
			key = fingerprint.SourceKey(b.ID)
		}
	}
	path := filepath.Join(m.Cache().Dir, key+".json")
	rewrite := func(f func(*fingerprint.Record)) {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("list wrote no source record: %v", err)
		}
		var rec fingerprint.Record
		if err := json.Unmarshal(data, &rec); err != nil {
			t.Fatal(err)
		}
		f(&rec)
		data, _ = json.Marshal(rec)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var real string
	rewrite(func(r *fingerprint.Record) {
		if r.Readers != bundle.ReadersRevision {
			t.Fatalf("the record names readers %d, want %d", r.Readers, bundle.ReadersRevision)
		}
		real = r.Digest
		// What older readers would have computed: another capability hash.
		content, _, _ := strings.Cut(r.Digest, ".")
		r.Digest = content + "." + strings.Repeat("0", 64)
	})
	if !pending() {
		t.Fatal("a record of the current readers is not believed: the test cannot tell the revisions apart")
	}
	rewrite(func(r *fingerprint.Record) { r.Readers = bundle.ReadersRevision - 1 })
	if pending() {
		t.Fatal("a record of other readers was believed: its capability hash stands in for what these readers compute")
	}
	rewrite(func(r *fingerprint.Record) {
		if r.Digest != real || r.Readers != bundle.ReadersRevision {
			t.Errorf("the record was not rewritten by these readers: %+v", *r)
		}
	})
}
