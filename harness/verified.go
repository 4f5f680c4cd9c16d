package harness

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/google/renameio/v2"
	"golang.org/x/sys/unix"
)

// A verified record lets a one-shot caller (NoWatch) skip re-hashing a
// bundle that provably has not changed since a full verification by an
// earlier process: it holds the walks of the source and the snapshot made
// by that verification and the time it started. A later process walks
// both trees again; when neither walk raises a finding, every entry matches
// (inode, size, mode, mtime and ctime in nanoseconds), no entry is racy
// against the recorded start (racy) and the record is younger than
// maxRecordAge, nothing a re-hash could see has changed — except a write
// through an already-dirty page of a shared mapping, which moves no
// timestamp (SECURITY.md); the age bound caps how long such a write can
// outlive the record. Anything else — no record, a record for another receipt, an
// unreadable or unsafe file, one differing entry — means a full
// verification, which then rewrites the record.
//
// The record is a cache, not an authority: it sits in $BUNDLECTL_HOME like
// state.json and the store, owner-only; a same-user process that forges it
// could as well forge those (SECURITY.md).
type verifiedRecord struct {
	BundleID          string         `json:"bundle_id"`
	Token             string         `json:"token"`
	ReceiptGeneration uint64         `json:"receipt_generation"`
	Snapshot          string         `json:"snapshot"`
	StartedNs         int64          `json:"started_ns"`
	Source            []bundle.Entry `json:"source"`
	SnapshotEntries   []bundle.Entry `json:"snapshot_entries"`
}

// maxVerifiedRecord bounds the file read (a 20,000-entry tree twice).
const maxVerifiedRecord = 16 << 20

// maxRecordAge is how long a record may stand in for a full verification.
const maxRecordAge = 5 * time.Minute

func (r *Registry) verifiedPath(e *entry) string {
	return filepath.Join(r.opts.Home, "cache", "verified", strings.ReplaceAll(e.b.ID, "/", "_")+".json")
}

// recordVerified writes the record of a passing full verification; a
// failure to write only costs the next process a re-hash.
func (r *Registry) recordVerified(e *entry) {
	if !r.opts.NoWatch || e.srcTree == nil || e.snapTree == nil {
		return
	}
	rec := verifiedRecord{
		BundleID: e.b.ID, Token: e.rc.Token().String(), ReceiptGeneration: e.rc.Generation,
		Snapshot: e.snapshot, StartedNs: e.verifiedAt.UnixNano(),
		Source: e.srcTree.Entries, SnapshotEntries: e.snapTree.Entries,
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return
	}
	p := r.verifiedPath(e)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return
	}
	renameio.WriteFile(p, data, 0o600)
}

// provenUnchanged reports whether e's source and snapshot are exactly as a
// recorded full verification saw them; on true it installs the fresh walks
// and the recorded start time, as a verification would.
func (r *Registry) provenUnchanged(e *entry) bool {
	if !r.opts.NoWatch || e.b.Tree == nil || e.b.Rejected() {
		// A finding (a symlink, a FIFO, a bad mode on the root) is not an
		// entry, so equal entries alone would not prove it absent.
		return false
	}
	rec, ok := r.readVerified(e)
	if !ok || rec.BundleID != e.b.ID || rec.Token != e.rc.Token().String() ||
		rec.ReceiptGeneration != e.rc.Generation || rec.Snapshot != e.snapshot ||
		time.Since(time.Unix(0, rec.StartedNs)) > maxRecordAge {
		return false
	}
	started := time.Unix(0, rec.StartedNs)
	// The discovery walk of the source, and a fresh walk of the snapshot.
	snap, rep := bundle.Walk(e.snapshot, r.opts.Limits)
	if snap == nil || rep.Rejected() {
		return false
	}
	for _, c := range []struct {
		now, was []bundle.Entry
	}{{e.b.Tree.Entries, rec.Source}, {snap.Entries, rec.SnapshotEntries}} {
		if len(c.now) != len(c.was) {
			return false
		}
		for i := range c.now {
			if c.now[i] != c.was[i] || racy(c.now[i], started) {
				return false
			}
		}
	}
	e.verified, e.srcTree, e.snapTree, e.verifiedAt = true, e.b.Tree, snap, started
	return true
}

func (r *Registry) readVerified(e *entry) (verifiedRecord, bool) {
	var rec verifiedRecord
	p := r.verifiedPath(e)
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return rec, false
	}
	f := os.NewFile(uintptr(fd), p)
	defer f.Close()
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Uid != uint32(os.Geteuid()) ||
		st.Mode&0o077 != 0 || st.Size > maxVerifiedRecord {
		return rec, false
	}
	data := make([]byte, st.Size)
	if n, err := f.ReadAt(data, 0); err != nil || int64(n) != st.Size {
		return rec, false
	}
	if json.Unmarshal(data, &rec) != nil {
		return rec, false
	}
	return rec, true
}
