package lifecycle

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/fingerprint"
	"github.com/bundlectl/bundlectl/internal/optvalue"
	"github.com/bundlectl/bundlectl/internal/par"
	"github.com/bundlectl/bundlectl/inventory"
	"github.com/bundlectl/bundlectl/receipts"
	"github.com/bundlectl/bundlectl/staging"
	"github.com/bundlectl/bundlectl/state"
)

// LoadState reads the state file (read-only).
func (m *Manager) LoadState() (*state.State, error) {
	s, err := m.stateStore().Load()
	return s, stateErr(err)
}

// LoadCurrentState is LoadState without decoding the audit trails: for the
// runtime, which reads only the current decisions (state.Store.LoadCurrent).
func (m *Manager) LoadCurrentState() (*state.State, error) {
	s, err := m.stateStore().LoadCurrent()
	return s, stateErr(err)
}

// Cache is the fingerprint cache under the home.
func (m *Manager) Cache() fingerprint.Cache {
	return fingerprint.Cache{Dir: filepath.Join(m.Roots.Home, "cache", "verified")}
}

// Evaluate computes the status of b against the state s. A trusted
// bundle's status comes from its receipt and its snapshot, which is what
// runs; its source only decides whether an update is pending review. The
// source is hashed only when its fingerprint record cannot prove it
// unchanged, and the snapshot re-hashed only when its record cannot.
//
// s may have been read without the lock: when the snapshot of its receipt
// fails its check, the state is read again, and if a trust and a gc since
// s was read replaced the receipt (or a revoke removed it), the bundle is
// evaluated against the receipt now in force, never reported tampered for
// the snapshot of one no longer in force.
func (m *Manager) Evaluate(b *bundle.Bundle, s *state.State) Status {
	// Each round follows one transition that happened meanwhile; a bundle
	// re-trusted faster than it is evaluated is reported as last seen.
	for range 3 {
		st, rc := m.evaluate(b, s)
		if st.Word != StatusTampered || rc == nil {
			return st
		}
		now, err := m.stateStore().LoadCurrent()
		if err != nil {
			return st
		}
		cur, _ := now.Bundle(b.ID)
		if cur.Receipt != nil && cur.Receipt.Token() == rc.Token() {
			return st // the receipt in force: its snapshot is what fails
		}
		s = now
	}
	st, _ := m.evaluate(b, s)
	return st
}

// evaluate is Evaluate against s alone; it returns the receipt it
// evaluated with.
func (m *Manager) evaluate(b *bundle.Bundle, s *state.State) (Status, *receipts.Receipt) {
	st := Status{Reasons: []string{}}
	st.Valid = b.Valid()
	rec, _ := s.Bundle(b.ID)
	st.Enabled = rec.Enabled
	if b.ShadowedBy != "" {
		st.Word = StatusShadowed
		st.Reasons = append(st.Reasons, "shadowed by "+b.ShadowedBy+", which has the same name and an earlier root")
		return st, nil
	}
	rc := rec.Receipt
	if rc == nil {
		if preTrust(b, &st) {
			return st, rc
		}
		st.Word = StatusUntrusted
		reason, hint := NotTrusted(b.Name, b.Dir)
		st.Reasons = append(st.Reasons, reason)
		if rec.Enabled {
			st.Reasons = append(st.Reasons, "enabled, but inactive until it is trusted again")
		}
		st.Hint = hint
		return st, rc
	}
	st.Trusted = true
	inv, invErr := ReceiptInventory(rc)
	if err := m.CheckSnapshot(rc.ContentHash); err != nil {
		st.Word = StatusTampered
		var unsafe *staging.UnsafeStoreError
		if errors.As(err, &unsafe) && unsafe.Hint() != "" {
			st.Reasons = append(st.Reasons, "the store of the snapshot it runs from cannot be used, so nothing of it runs: "+err.Error())
			st.Hint = unsafe.Hint()
			m.pending(b, rc, &st)
			return st, rc
		}
		st.Reasons = append(st.Reasons, "the snapshot it runs from failed its integrity check, so nothing of it runs; review it and trust it again to stage a fresh snapshot: "+err.Error())
		st.Hint = "bundlectl review " + bundle.ShellArg(b.Name)
		m.pending(b, rc, &st)
		return st, rc
	}
	switch {
	case invErr != nil:
		st.Reasons = append(st.Reasons, "its receipt cannot be used by this bundlectl ("+invErr.Error()+")")
		st.UpdatePending = true
		st.Hint = "bundlectl review " + bundle.ShellArg(b.Name)
		st.Word = StatusTrusted
		if rec.Enabled {
			st.Word = StatusEnabled
		}
		return st, rc
	case len(inv.Inactive) > 0:
		st.Word = StatusBlocked
		st.Reasons = append(st.Reasons, "its receipt declares inactive surfaces bundlectl does not run")
		return st, rc
	}
	m.pending(b, rc, &st)
	if !rec.Enabled {
		st.Word = StatusTrusted
		st.Reasons = append([]string{"trusted, not enabled"}, st.Reasons...)
		if st.Hint == "" {
			st.Hint = "bundlectl enable " + bundle.ShellArg(b.Name)
		}
		return st, rc
	}
	if why := Applies(bundle.When{OS: inv.When.OS, Binaries: inv.When.Binaries}); why != "" {
		st.Word = StatusEnabled
		st.Reasons = append([]string{"enabled and trusted, but " + why}, st.Reasons...)
		return st, rc
	}
	st.Word = StatusActive
	st.Active = true
	m.requiredUnset(b, inv, &st)
	m.storedMisfits(b, inv, &st)
	return st, rc
}

// storedMisfits adds a reason, and the configure command as the hint, for
// each stored value the receipt's declaration refuses (one stored before an
// update added a max, say): Claude Code's config dialog would ask for it
// again. The runtime still gives it as stored, as a Claude Code session
// does. Never the value itself.
func (m *Manager) storedMisfits(b *bundle.Bundle, inv *inventory.Inventory, st *Status) {
	if len(inv.UserConfig) == 0 {
		return
	}
	values, err := m.readConfig(b.ID)
	if err != nil || len(values) == 0 {
		return // requiredUnset says why a file cannot be used
	}
	for _, o := range inv.UserConfig {
		v, ok := values[o.Key]
		if !ok {
			continue
		}
		if err := checkStoredValue(declaredOption{UserOption: o, Types: []string{optionType(o)}, Decls: []inventory.UserOption{o}}, v); err != nil {
			st.Reasons = append(st.Reasons, "option "+bundle.Quote(o.Key)+" holds a value the reviewed declaration refuses ("+err.Error()+"); its processes get it as stored")
			if st.Hint == "" {
				st.Hint = "bundlectl configure " + bundle.ShellArg(b.Name) + " " + bundle.ShellArg(o.Key)
			}
		}
	}
}

// requiredUnset adds a reason, and the configure command as the hint, for
// each option the receipt marks required that holds no value and has no
// default: the bundle runs, but its processes get the option empty.
func (m *Manager) requiredUnset(b *bundle.Bundle, inv *inventory.Inventory, st *Status) {
	var values map[string]optvalue.Value
	for _, o := range inv.UserConfig {
		if _, ok := o.DefaultValue(); !o.Required || ok {
			continue // a default the runtime can give (null or an array gives none)
		}
		if values == nil {
			var err error
			if values, err = m.readConfig(b.ID); err != nil {
				// The runtime ignores an options file it cannot use: every
				// option is then unset for its processes.
				st.Reasons = append(st.Reasons, "its options file cannot be used, so its processes get no configured value: "+err.Error())
				if st.Hint == "" {
					st.Hint = "bundlectl configure " + bundle.ShellArg(b.Name)
				}
				return
			}
		}
		if v, ok := values[o.Key]; ok && !v.Empty() {
			continue // Claude Code counts a required option's empty value as not provided
		}
		st.Reasons = append(st.Reasons, "required option "+bundle.Quote(o.Key)+" is not set, so its processes get it empty")
		if st.Hint == "" {
			st.Hint = "bundlectl configure " + bundle.ShellArg(b.Name) + " " + bundle.ShellArg(o.Key)
		}
	}
}

// List discovers every bundle and evaluates each against the state, in
// discovery order, and lists the trusted bundles that are gone (Gone). The state is read while the roots are walked: both are
// needed, and the walk is the long part.
func (m *Manager) List() (*bundle.Discovery, []Status, []GoneStatus, error) {
	var d *bundle.Discovery
	walked := make(chan struct{})
	go func() { d = m.Discover(); close(walked) }()
	s, err := m.LoadState()
	<-walked
	if err != nil {
		return nil, nil, nil, err
	}
	return d, m.evaluateAll(d.Bundles, s), m.Gone(d, s), nil
}

// GoneStatus is one trusted bundle of this invocation's roots whose
// directory no root holds any more.
type GoneStatus struct {
	Name   string
	ID     string
	Scope  string
	Status Status
}

// Gone lists, in state order, the bundles the state trusts that belong
// to a root of this invocation but that d did not find there: uninstall
// forgets the record before it deletes the directory, so these were
// deleted or moved outside bundlectl. An enabled one's guards block.
func (m *Manager) Gone(d *bundle.Discovery, s *state.State) []GoneStatus {
	found := make(map[string]bool, len(d.Bundles))
	for _, b := range d.Bundles {
		found[b.ID] = true
	}
	owns := m.Roots.Owner()
	var out []GoneStatus
	for _, id := range s.IDs() {
		rec, _ := s.Bundle(id)
		if rec.Receipt == nil || found[id] || !owns(id) {
			continue
		}
		name := id[strings.LastIndexByte(id, '/')+1:]
		scope, _, _ := strings.Cut(id, "/")
		st := Status{Word: StatusGone, Valid: true, Trusted: true, Enabled: rec.Enabled, Hint: "bundlectl revoke " + bundle.ShellArg(name)}
		if rec.Enabled {
			st.Reasons = []string{"trusted and enabled, but its directory is no longer in its root, so every event it has a hook for is blocked: restore the directory, or revoke it"}
		} else {
			st.Reasons = []string{"trusted, but its directory is no longer in its root: restore the directory, or revoke it"}
		}
		out = append(out, GoneStatus{Name: name, ID: id, Scope: scope, Status: st})
	}
	return out
}

// evaluateAll is Evaluate of every bundle of bs, in the order of bs. The
// bundles are evaluated on as many workers as there are processors: the
// fingerprint checks of sources and snapshots are system calls, one per
// entry, and dominate the cost of a listing.
func (m *Manager) evaluateAll(bs []*bundle.Bundle, s *state.State) []Status {
	out := make([]Status, len(bs))
	mm := *m
	mm.serial = true // the workers are the parallelism
	par.For(len(bs), func(i int) { out[i] = mm.Evaluate(bs[i], s) })
	return out
}

// pending sets UpdatePending when the source no longer matches the
// receipt: the snapshot keeps running, and the review of the source is
// what moves the bundle forward.
func (m *Manager) pending(b *bundle.Bundle, rc *receipts.Receipt, st *Status) {
	h, err := m.SourceHashes(b)
	var why string
	switch {
	case err != nil:
		why = "the source can no longer be trusted as it is: " + err.Error()
	case h.Content != rc.ContentHash && h.Capability != rc.CapabilityHash:
		why = "the source's content and capabilities changed since it was trusted"
	case h.Content != rc.ContentHash:
		why = "the source's content changed since it was trusted"
	case h.Capability != rc.CapabilityHash:
		why = "the source's capabilities changed since it was trusted"
	default:
		return
	}
	st.UpdatePending = true
	if st.Word == StatusTampered {
		// Nothing of a tampered bundle runs, its snapshot included.
		st.Reasons = append(st.Reasons, "update pending review: "+why)
	} else {
		st.Reasons = append(st.Reasons, "update pending review: "+why+"; the reviewed snapshot keeps running")
	}
	st.Hint = "bundlectl review " + bundle.ShellArg(b.Name)
}

// SourceHashes returns the hashes of b's source as discovered. When the
// source's fingerprint record proves the walk unchanged since a hash by
// these readers (bundle.ReadersRevision), the recorded hashes are returned
// without reading a file; otherwise the source is hashed and the record
// written. So a bundlectl that reads a tree differently (a component an
// older one skipped) says an update is pending review at once, rather
// than after the source next changes.
func (m *Manager) SourceHashes(b *bundle.Bundle) (Hashes, error) {
	if b.Rejected() || b.Tree == nil {
		return Hashes{}, &RefusedError{Bundle: b.Name, Reason: "the bundle is invalid", Fix: "bundlectl validate " + bundle.ShellArg(b.Name)}
	}
	c := m.Cache()
	key := fingerprint.SourceKey(b.ID)
	if rec, ok := c.Load(key); ok && !b.WalkedAt.IsZero() && rec.Readers == bundle.ReadersRevision {
		if tok, err := receipts.ParseToken(rec.Digest); err == nil && fingerprint.Proves(rec, b.Tree, bundle.Report{}, b.WalkedAt) {
			return Hashes{Content: tok.Content, Capability: tok.Capability}, nil
		}
	}
	h, err := Compute(b)
	if err != nil {
		return h, err
	}
	if !b.WalkedAt.IsZero() {
		rec := fingerprint.NewRecord(key, h.Token().String(), b.WalkedAt, b.Tree)
		rec.Readers = bundle.ReadersRevision
		c.Store(rec)
	}
	return h, nil
}

// CheckSnapshot proves the snapshot of hash intact, by its fingerprint
// record or a full verification.
func (m *Manager) CheckSnapshot(hash receipts.Digest) error {
	_, err := m.snapshots().Check(hash, m.Cache())
	return err
}

// ReceiptInventory decodes a receipt's inventory and checks that it is
// exactly what the capability hash covers and of this bundlectl's schema.
func ReceiptInventory(rc *receipts.Receipt) (*inventory.Inventory, error) {
	if inventory.Digest(rc.Inventory) != rc.CapabilityHash {
		return nil, errors.New("its inventory does not match its capability hash")
	}
	inv, err := inventory.Parse(rc.Inventory)
	if err != nil {
		if errors.Is(err, inventory.ErrSchema) {
			return nil, errors.New("it was trusted by an older bundlectl; review it and trust it again")
		}
		return nil, err
	}
	return inv, nil
}

// HostOS is this host's name in the `when.os` vocabulary.
func HostOS() string {
	if runtime.GOOS == "darwin" {
		return "macos"
	}
	return runtime.GOOS
}

// Applies returns "" when the `when` conditions hold on this host, or the
// reason they do not.
func Applies(w bundle.When) string {
	if len(w.OS) > 0 && !slices.Contains(w.OS, HostOS()) {
		return "it applies only to " + strings.Join(w.OS, ", ") + ", not " + HostOS()
	}
	for _, bin := range w.Binaries {
		if !onPath(bin) {
			return "it needs " + bundle.Quote(bin) + " on PATH"
		}
	}
	return ""
}

func onPath(name string) bool {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return true
		}
	}
	return false
}
