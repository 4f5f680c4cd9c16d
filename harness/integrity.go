package harness

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/internal/optvalue"
	"github.com/bundlectl/bundlectl/staging"
	"golang.org/x/sys/unix"
)

// authorize is the check made at every boundary: still enabled, still
// trusted for the same receipt and generation, still in its root and not
// shadowed, and the snapshot intact. It is cheap when nothing changed: one
// stat of the state file, a few stats of the bundle's directory and the
// snapshot's ancestors, and a non-blocking read of the change-notification
// queue (or, without notification, one walk of the snapshot).
//
// Only the authority check holds r.mu; the integrity check and the
// preparation hold e.mu alone, so a full re-hash of one bundle's snapshot
// holds up only uses of that bundle (see Registry for the lock order).
func (r *Registry) authorize(e *entry) error {
	r.mu.Lock()
	err := r.authority(e)
	r.mu.Unlock()
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := r.integrity(e); err != nil {
		return err
	}
	if err := r.prepare(e); err != nil {
		return err
	}
	if _, err := e.inventory(); err != nil {
		return refuse(e.name, ErrReceiptUnusable, "bundlectl review "+bundle.ShellArg(e.name), "its receipt cannot be used by this bundlectl (%v): review it and trust it again", err)
	}
	return nil
}

// use is authorize for one component: it also refuses a component the
// user switched off (switches are read from the same fresh state).
func (r *Registry) use(e *entry, kind, name string) error {
	if err := r.authorize(e); err != nil {
		return err
	}
	if r.isOff(e, kind, name) {
		return refuse(e.name, ErrSwitchedOff, "bundlectl enable "+bundle.ShellArg(e.name)+" --"+kind+" "+bundle.ShellArg(name), "its %s %s is switched off", kind, bundle.Quote(name))
	}
	return nil
}

// isOff reports whether a component of e is switched off in the state the
// last check read.
func (r *Registry) isOff(e *entry, kind, name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.state == nil {
		return false
	}
	rec, _ := r.state.Bundle(e.id)
	return rec.IsOff(kind, name)
}

// refreshState reads the state's current decisions again if the file
// changed since the last read. The caller holds r.mu.
func (r *Registry) refreshState() {
	if id := statID(r.statePath); id != r.stateID {
		r.stateID = id
		r.state, r.stateErr = r.m.LoadCurrentState()
	}
}

// authority checks the state record and the bundle's place in its root.
// The caller holds r.mu.
func (r *Registry) authority(e *entry) error {
	r.refreshState()
	name := e.name
	if r.stateErr != nil {
		// Keep the state error in the chain: the CLI exits 4 on it and
		// prints its repair hint.
		ae := refuse(name, ErrStale, "", "the state file is unusable: %v", r.stateErr)
		ae.Cause = r.stateErr
		var h interface{ Hint() string }
		if errors.As(r.stateErr, &h) {
			ae.Fix = h.Hint()
		}
		return ae
	}
	rec, _ := r.state.Bundle(e.id)
	switch {
	case rec.Receipt == nil:
		return refuse(name, ErrRevoked, "bundlectl review "+name, "its trust was revoked")
	case rec.Receipt.Token() != e.rc.Token() || rec.Receipt.Generation != e.rc.Generation:
		return refuse(name, ErrStale, "bundlectl show "+name, "it was trusted again with another receipt since the harness loaded it; what loads it again (the next bundlectl command, a new agent session) runs the new receipt")
	case !rec.Enabled:
		return refuse(name, ErrDisabled, "bundlectl enable "+name, "it was disabled")
	}
	if fi, err := os.Lstat(e.dir); err != nil || !fi.IsDir() {
		return refuse(name, ErrRemoved, "bundlectl revoke "+name, "its directory %s is gone from its root while it is still trusted and enabled (uninstall and revoke forget it): restore the directory to run it again, or revoke it", bundle.Quote(e.dir))
	}
	if by := r.shadower(e); by != "" {
		if !r.trustedAs(e) {
			// Nothing the user trusted took its place: a guard blocks.
			return refuse(name, ErrRemoved, "bundlectl review "+bundle.ShellArg(name), "a bundle of the same name that is not trusted and enabled now shadows it (%s), while it is still trusted and enabled: its guards block until that one is trusted and enabled, or removed", bundle.Quote(by))
		}
		return refuse(name, ErrShadowed, "bundlectl list", "a bundle of the same name now shadows it (%s)", bundle.Quote(by))
	}
	return nil
}

// shadower returns the directory of a bundle of the same name in an
// earlier root, if one appeared since the registry loaded.
func (r *Registry) shadower(e *entry) string {
	for _, root := range (bundle.Roots{Builtin: r.opts.Builtin, Home: r.opts.Home, Workspace: r.opts.Workspace}).List() {
		if root.Scope == e.scope {
			return ""
		}
		p := filepath.Join(root.Path, e.name)
		if fileExists(p) {
			return p
		}
	}
	return ""
}

// trustedAs reports whether the state trusts and enables another bundle
// of e's name in these roots (not another workspace's): the one that now
// shadows it, as far as the state can say without reading its directory.
// The caller holds r.mu.
func (r *Registry) trustedAs(e *entry) bool {
	owns := (bundle.Roots{Builtin: r.opts.Builtin, Home: r.opts.Home, Workspace: r.opts.Workspace}).Owner()
	for _, id := range r.state.IDs() {
		if id == e.id || !strings.HasSuffix(id, "/"+e.name) || !owns(id) {
			continue
		}
		if rec, _ := r.state.Bundle(id); rec.Enabled && rec.Receipt != nil {
			return true
		}
	}
	return false
}

// fullVerifications counts full verifications, for tests.
var fullVerifications atomic.Int64

// testOnlyBeforeSnapshotCheck, when set, is called with the snapshot
// directory just before an integrity check proves the snapshot's content
// (the re-hash or fingerprint proof), with that bundle's lock held: a test
// pauses one bundle's check there.
var testOnlyBeforeSnapshotCheck func(snapshot string)

// integrity proves the snapshot unchanged since its last full
// verification. With change notification: no event on any directory or
// file of the snapshot since the generation the last verification started
// from, and every ancestor of the snapshot the same inode it was (a
// swapped ancestor raises no event on the watched inodes).
// Without it: a walk of the snapshot equal to its fingerprint record.
// Anything else re-verifies in full. The caller holds e.mu (not r.mu).
//
// The watcher is read once: another bundle's check, or Close, may drop it
// meanwhile. Until it is closed it still answers truly; once closed, every
// call on it reports a change or fails, never a clean queue.
func (r *Registry) integrity(e *entry) (err error) {
	defer func() { e.failed = err }()
	w := r.watch.Load()
	if e.failed == nil && e.verified && w != nil && w.generation(e.idx) == e.checkedGen && sameIDs(e.ancestors, ancestorIDs(e.snapshot)) {
		return nil
	}
	// Take the generation and the ancestors first, then arm the watches on
	// what a walk sees, walk again to catch what appeared before they were
	// armed, and prove the content. A change after the watches are armed
	// raises the generation past the one this check proves, and an
	// ancestor swapped after the start differs from the one it records, so
	// the next check sees either, whichever goroutine makes it.
	var gen uint64
	ancestors := ancestorIDs(e.snapshot)
	if w != nil {
		gen = w.generation(e.idx)
		snap, rep := bundle.Walk(e.snapshot, r.opts.Limits)
		if snap == nil || len(rep.Findings) > 0 {
			return refuse(e.name, ErrTampered, "bundlectl review "+bundle.ShellArg(e.name), "its snapshot failed its integrity check, so nothing of it runs (trusting it again stages a fresh snapshot): it cannot be walked cleanly")
		}
		if _, werr := w.watchTree(e.idx, e.snapshot, snap); werr != nil {
			// Only the check that drops it closes it and says so; one
			// that finds it already dropped (by Close) says nothing.
			if r.watch.CompareAndSwap(w, nil) {
				r.opts.Logger.Warn("change notification unavailable; checking fingerprints before every use", "bundle", e.name, "err", werr)
				w.close()
			}
		} else if again, _ := bundle.Walk(e.snapshot, r.opts.Limits); again == nil || !sameShape(snap, again) {
			return refuse(e.name, ErrTampered, "bundlectl review "+bundle.ShellArg(e.name), "its snapshot changed while it was checked (trusting it again stages a fresh snapshot)")
		}
	}
	if hook := testOnlyBeforeSnapshotCheck; hook != nil {
		hook(e.snapshot)
	}
	full, err := r.store.Check(e.rc.ContentHash, r.cache)
	if full {
		fullVerifications.Add(1)
	}
	if err != nil {
		var unsafe *staging.UnsafeStoreError
		if errors.As(err, &unsafe) && unsafe.Hint() != "" {
			return refuse(e.name, ErrTampered, unsafe.Hint(), "the store of its snapshot cannot be used, so nothing of it runs: %v", err)
		}
		return refuse(e.name, ErrTampered, "bundlectl review "+bundle.ShellArg(e.name), "its snapshot failed its integrity check, so nothing of it runs (trusting it again stages a fresh snapshot): %v", err)
	}
	e.verified, e.checkedGen, e.ancestors = true, gen, ancestors
	return nil
}

// ancestorIDs identifies the snapshot directory and each of its ancestors
// up to the root of the file system, by device and inode.
func ancestorIDs(p string) []fileID {
	var ids []fileID
	for {
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			return append(ids, fileID{})
		}
		ids = append(ids, fileID{ok: true, dev: uint64(st.Dev), ino: uint64(st.Ino)})
		parent := filepath.Dir(p)
		if parent == p {
			return ids
		}
		p = parent
	}
}

func sameIDs(a, b []fileID) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].ok || a[i] != b[i] {
			return false
		}
	}
	return true
}

// sameShape reports whether two walks of one directory saw the same
// entries: paths, kinds, inodes, sizes, modes and times.
func sameShape(a, b *bundle.Tree) bool {
	if len(a.Entries) != len(b.Entries) {
		return false
	}
	for i := range a.Entries {
		if a.Entries[i] != b.Entries[i] {
			return false
		}
	}
	return true
}

// readOptions reads the configured user options of a bundle
// ($BUNDLECTL_HOME/config/<id>.json, owner-only). A missing or unsafe
// file means no options.
func readOptions(home, id string) map[string]optvalue.Value {
	p := filepath.Join(home, "config", strings.ReplaceAll(id, "/", "_")+".json")
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	f := os.NewFile(uintptr(fd), p)
	defer f.Close()
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Uid != uint32(os.Geteuid()) || st.Mode&0o077 != 0 || st.Size > 1<<20 {
		return nil
	}
	var doc struct {
		Values map[string]optvalue.Value `json:"values"`
	}
	if json.NewDecoder(f).Decode(&doc) != nil {
		return nil
	}
	return doc.Values
}
