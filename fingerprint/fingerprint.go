package fingerprint

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/google/renameio/v2"
	"github.com/zeebo/blake3"
	"golang.org/x/sys/unix"
)

// MaxAge is how long a record may stand in for a full verification.
const MaxAge = 5 * time.Minute

// RacyWindow is how close to a verification's start an entry's mtime or
// ctime may be before the entry counts as possibly changed after it was
// read: file times come from a coarse kernel clock.
const RacyWindow = 50 * time.Millisecond

// maxRecordBytes bounds a record file (a 20,000-entry walk).
const maxRecordBytes = 16 << 20

// Record is what one full verification of a tree saw.
type Record struct {
	// Key names the tree: "snapshot-<content hash>" or "source-<id>".
	Key string `json:"key"`
	// Digest is what the verification computed for the tree.
	Digest    string `json:"digest"`
	StartedNs int64  `json:"started_ns"`
	// Entries is the number of entries the walk saw, and Walk the BLAKE3
	// of their fixed-width encoding (EncodeWalk): a later walk proves the
	// same tree by hashing its own entries, with nothing to decode.
	Entries int    `json:"entries"`
	Walk    string `json:"walk"`
	// Readers is, in a source record, the bundle.ReadersRevision whose
	// readers computed Digest: a capability hash depends on how the
	// readers read the tree, so one from other readers proves nothing.
	Readers int `json:"readers,omitempty"`
}

// NewRecord records a verification that started at started and walked t.
func NewRecord(key, digest string, started time.Time, t *bundle.Tree) Record {
	return Record{Key: key, Digest: digest, StartedNs: started.UnixNano(), Entries: len(t.Entries), Walk: WalkDigest(t.Entries)}
}

// WalkDigest hashes a walk's entries: for each, its path, a NUL, and its
// kind, size, mode, device, inode, mtime and ctime as fixed-width
// integers, then its link target (if any) and a NUL.
func WalkDigest(es []bundle.Entry) string {
	h := blake3.New()
	// The encoding is built in one buffer and hashed in large writes: a
	// hasher call per field costs more than the hashing.
	buf := make([]byte, 0, 16<<10)
	for _, e := range es {
		buf = append(buf, e.Path...)
		buf = append(buf, 0, byte(e.Kind))
		buf = binary.LittleEndian.AppendUint64(buf, uint64(e.Size))
		buf = binary.LittleEndian.AppendUint32(buf, e.Mode)
		buf = binary.LittleEndian.AppendUint64(buf, e.Dev)
		buf = binary.LittleEndian.AppendUint64(buf, e.Ino)
		buf = binary.LittleEndian.AppendUint64(buf, uint64(e.MtimeNs))
		buf = binary.LittleEndian.AppendUint64(buf, uint64(e.CtimeNs))
		buf = append(buf, entryTarget(e)...)
		buf = append(buf, 0)
		if len(buf) >= 15<<10 {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil))
}

// Started is the time the verification started.
func (r Record) Started() time.Time { return time.Unix(0, r.StartedNs) }

// Cache is a directory of records: $BUNDLECTL_HOME/cache/verified.
type Cache struct{ Dir string }

// SnapshotKey and SourceKey name records.
func SnapshotKey(contentHex string) string { return "snapshot-" + contentHex }
func SourceKey(bundleID string) string {
	b := []byte(bundleID)
	for i, c := range b {
		if c == '/' {
			b[i] = '_'
		}
	}
	return "source-" + string(b)
}

func (c Cache) path(key string) string { return filepath.Join(c.Dir, key+".json") }

// Load reads the record for key; ok is false for a missing, unreadable,
// unsafe or malformed record.
func (c Cache) Load(key string) (rec Record, ok bool) {
	p := c.path(key)
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return rec, false
	}
	f := os.NewFile(uintptr(fd), p)
	defer f.Close()
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Uid != uint32(os.Geteuid()) ||
		st.Mode&0o077 != 0 || st.Size > maxRecordBytes {
		return rec, false
	}
	data := make([]byte, st.Size)
	if n, err := f.ReadAt(data, 0); err != nil || int64(n) != st.Size {
		return rec, false
	}
	if json.Unmarshal(data, &rec) != nil || rec.Key != key {
		return Record{}, false
	}
	return rec, true
}

// Store writes rec atomically, owner-only. A failure only costs a later
// check a full verification, so it is not reported.
func (c Cache) Store(rec Record) {
	data, err := json.Marshal(rec)
	if err != nil {
		return
	}
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return
	}
	if fi, err := os.Lstat(c.Dir); err == nil && fi.IsDir() && fi.Mode().Perm()&0o077 != 0 {
		_ = os.Chmod(c.Dir, 0o700) // made wider by hand: back to owner-only
	}
	// Owner-only whatever the existing file's mode (renameio.WriteFile
	// would copy it): a record made 0666 by hand would otherwise stay so,
	// and Load refuse it on every check, silently re-hashing each time.
	// The temporary file goes in c.Dir, where gc finds one a killed
	// process left, never to $TMPDIR.
	t, err := renameio.NewPendingFile(c.path(rec.Key), renameio.WithTempDir(c.Dir), renameio.WithStaticPermissions(0o600))
	if err != nil {
		return
	}
	defer t.Cleanup()
	if _, err := t.Write(data); err == nil {
		_ = t.CloseAtomicallyReplace()
	}
}

// Remove deletes the record for key, if any.
func (c Cache) Remove(key string) error {
	err := os.Remove(c.path(key))
	if os.IsNotExist(err) {
		return nil
	}
	return err
}

// Proves reports whether the fresh walk now (with its report rep) proves
// that the tree is exactly as rec's verification saw it (see the package
// documentation), at time t.
func Proves(rec Record, now *bundle.Tree, rep bundle.Report, t time.Time) bool {
	if now == nil || len(rep.Findings) > 0 || len(now.Entries) != rec.Entries {
		return false
	}
	started := rec.Started()
	if t.Sub(started) > MaxAge || t.Before(started) {
		return false
	}
	for _, e := range now.Entries {
		if Racy(e, started) {
			return false
		}
	}
	return WalkDigest(now.Entries) == rec.Walk
}

// Racy reports whether en's times are too close to a verification that
// started at started to prove it unchanged since. Entries whose times have
// no sub-second part come from a file system with coarse timestamps (FAT
// keeps 2 s; ext3, HFS+ and small ext4 inodes whole seconds): for them the
// start is first truncated to 2 s, so that a rewrite within the same coarse
// tick as the verification cannot carry an older-looking time.
func Racy(en bundle.Entry, started time.Time) bool {
	limit := started.Add(-RacyWindow)
	if en.MtimeNs%1e9 == 0 && en.CtimeNs%1e9 == 0 {
		limit = started.Truncate(2 * time.Second).Add(-RacyWindow)
	}
	return en.MtimeNs >= limit.UnixNano() || en.CtimeNs >= limit.UnixNano()
}

// entryTarget is a link entry's target ("" for any other entry).
func entryTarget(e bundle.Entry) string { return e.Target }
