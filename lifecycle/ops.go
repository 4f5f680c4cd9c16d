package lifecycle

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/fingerprint"
	"github.com/bundlectl/bundlectl/receipts"
	"github.com/bundlectl/bundlectl/review"
	"github.com/bundlectl/bundlectl/staging"
	"github.com/bundlectl/bundlectl/state"
)

// Hashes are the two digests of a bundle as it is now.
type Hashes struct {
	Content, Capability receipts.Digest
	Inventory           []byte
}

// Token returns the token of h.
func (h Hashes) Token() receipts.Token {
	return receipts.Token{Content: h.Content, Capability: h.Capability}
}

// Compute hashes the bundle's current source. A rejected bundle has no
// hashes.
func Compute(b *bundle.Bundle) (Hashes, error) {
	if b.Rejected() || b.Tree == nil {
		return Hashes{}, &RefusedError{Bundle: b.Name, Reason: "the bundle is invalid", Fix: "bundlectl validate " + bundle.ShellArg(b.Name)}
	}
	c, err := review.ContentHash(b.Tree)
	if err != nil {
		return Hashes{}, err
	}
	k, inv, err := review.CapabilityHash(b)
	if err != nil {
		return Hashes{}, err
	}
	return Hashes{Content: c, Capability: k, Inventory: inv}, nil
}

func (m *Manager) stateStore() *state.Store { return state.Open(m.Roots.Home) }

// updateRecorded is stateStore().Update for a transition of what the state
// already records (disable, revoke, forget): in a home that does not exist
// (a mistyped --home) the state is empty, so fn runs on it without the
// lock, and a home is created only when fn changes something — then under
// the lock on fresh state, so fn must change nothing but the state and
// what it reports.
func (m *Manager) updateRecorded(fn func(*state.State) error) (*state.State, error) {
	if _, err := os.Lstat(m.Roots.Home); errors.Is(err, fs.ErrNotExist) {
		s, err := m.stateStore().Load()
		if err != nil {
			return nil, err
		}
		before := s.Generation()
		if err := fn(s); err != nil {
			return nil, err
		}
		if s.Generation() == before {
			return s, nil
		}
	}
	return m.stateStore().Update(fn)
}
func (m *Manager) snapshots() *staging.Store {
	return &staging.Store{Dir: filepath.Join(m.Roots.Home, "store"), Limits: m.Limits, Serial: m.serial}
}

// stateErr marks state errors as ErrStateUnusable for the CLI while keeping
// the typed error (which names the file and the repair).
func stateErr(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, state.ErrUnsafe) || errors.Is(err, state.ErrMalformed) || errors.Is(err, state.ErrLocked) {
		return &StateError{Err: err}
	}
	return err
}

// StateError wraps an unusable-state error from package state.
type StateError struct{ Err error }

// Error is the state package's message without its inline hint, which
// Hint returns on its own.
func (e *StateError) Error() string {
	msg, _, _ := strings.Cut(e.Err.Error(), "; hint: ")
	return msg
}
func (e *StateError) Unwrap() []error {
	return []error{e.Err, ErrStateUnusable}
}
func (e *StateError) Hint() string {
	var u *state.UnsafeError
	if errors.As(e.Err, &u) {
		return u.Hint
	}
	var mf *state.MalformedError
	if errors.As(e.Err, &mf) {
		return mf.Hint
	}
	return ""
}

// Trust stages the bundle named name and records a receipt for exactly
// token. It refuses a shadowed, invalid or blocked bundle and a token that
// does not match the bundle now. Trust does not enable.
func (m *Manager) Trust(name string, token receipts.Token) (*receipts.Receipt, error) {
	d := m.Discover()
	b, err := m.Find(d, name)
	if err != nil {
		return nil, err
	}
	if err := refuseUntrustable(b, "trusted"); err != nil {
		return nil, err
	}
	h, err := Compute(b)
	if err != nil {
		return nil, changedWhileRead(b, err)
	}
	if h.Token() != token {
		return nil, tokenMismatch(b, token, h)
	}
	if testOnlyTrustComputed != nil {
		testOnlyTrustComputed()
	}
	var rc receipts.Receipt
	_, err = m.stateStore().Update(func(s *state.State) error {
		snap, err := m.snapshots().Stage(b.Tree, h.Content, m.Limits)
		if err != nil {
			return changedWhileRead(b, err)
		}
		// Record what the copy looks like now, so that the runtime's
		// first check walks it instead of hashing it again.
		if _, err := m.snapshots().Check(h.Content, m.Cache()); err != nil {
			return err
		}
		rc = receipts.Receipt{
			BundleID: b.ID, ContentHash: h.Content, CapabilityHash: h.Capability,
			Inventory: h.Inventory, Snapshot: snap, ReviewedAt: time.Now().UTC(),
		}
		_, err = s.Trust(b.ID, rc)
		if err == nil {
			cur, _ := s.Bundle(b.ID)
			rc = *cur.Receipt
		}
		return err
	})
	if err != nil {
		return nil, stateErr(err)
	}
	return &rc, nil
}

// testOnlyTrustComputed runs in Trust between the hash of the bundle and
// its copy into the store.
var testOnlyTrustComputed func()

// changedWhileRead names the bundle and the review to run again when its
// tree changed while trust read it (an edit, an update's exchange): the
// bare walker error named only a path, and no command.
func changedWhileRead(b *bundle.Bundle, err error) error {
	if !errors.Is(err, bundle.ErrChanged) && !errors.Is(err, staging.ErrMismatch) {
		return err
	}
	return &ChangedError{Bundle: b.Name, Dir: b.Dir, Err: err}
}

func refuseUntrustable(b *bundle.Bundle, verb string) error {
	var st Status
	if preTrust(b, &st) {
		return &RefusedError{Bundle: b.Name, Reason: "cannot be " + verb + ": it is " + st.Word + ": " + strings.Join(st.Reasons, "; "), Fix: st.Hint}
	}
	return nil
}

// tokenMismatch says exactly which half of the token does not match the
// bundle as it is now. A token is checked whole: a right content half
// never lets a wrong capability half through, and the other way round.
func tokenMismatch(b *bundle.Bundle, token receipts.Token, h Hashes) error {
	var reason string
	switch {
	case token.Content != h.Content && token.Capability != h.Capability:
		reason = "neither half of the token matches the bundle now: it is not the token of this bundle's current review (mistyped, or both content and capabilities changed since)"
	case token.Content != h.Content:
		reason = "the content half of the token (before the dot) does not match the bundle now: its files changed since that review, or the token was mistyped"
	default:
		reason = "the capability half of the token (after the dot) does not match the bundle now: what it may run changed since that review, or the token was mistyped"
	}
	return &RefusedError{Bundle: b.Name, Reason: reason, Fix: "bundlectl review " + bundle.ShellArg(b.Name)}
}

// Acted says which bundle a transition by name applied to.
type Acted struct {
	ID      string
	Changed bool
	// Instead is the id of the bundle the name finds first when the
	// bundle acted on is another of that name (one it shadows, or one
	// whose directory is gone): the first had nothing the verb could
	// change. Gone says the bundle acted on has no directory in its root.
	Instead string
	Gone    bool
}

// transition runs one state transition on the bundle named name.
func (m *Manager) transition(name string, check func(*bundle.Bundle) error, apply func(*state.State, string) (bool, error)) (Acted, error) {
	b, err := m.Find(m.Discover(), name)
	if err != nil {
		return Acted{}, err
	}
	if check != nil {
		if err := check(b); err != nil {
			return Acted{}, err
		}
	}
	changed := false
	_, err = m.updateRecorded(func(s *state.State) error {
		var err error
		changed, err = apply(s, b.ID)
		return err
	})
	if errors.Is(err, state.ErrNotTrusted) {
		return Acted{}, &RefusedError{Bundle: name, Reason: "not trusted (it may have been revoked meanwhile)", Fix: "bundlectl review " + bundle.ShellArg(name)}
	}
	return Acted{ID: b.ID, Changed: changed}, stateErr(err)
}

// Enable sets the enabled bit of a trusted bundle. An update pending
// review does not stop it: enabling turns on the reviewed snapshot. It
// refuses an untrusted bundle and one whose snapshot is tampered with.
func (m *Manager) Enable(name string) (bool, error) {
	a, err := m.EnableNamed(name)
	return a.Changed, err
}

// EnableNamed is Enable, saying which bundle it enabled: always the one
// the name finds first, the only one of its name that can run (a shadowed
// bundle is refused).
func (m *Manager) EnableNamed(name string) (Acted, error) {
	return m.transition(name, func(b *bundle.Bundle) error {
		if b.ShadowedBy != "" {
			return refuseUntrustable(b, "enabled")
		}
		s, err := m.stateStore().Load()
		if err != nil {
			return stateErr(err)
		}
		st := m.Evaluate(b, s)
		if !st.Trusted {
			if err := refuseUntrustable(b, "enabled"); err != nil {
				return err
			}
		}
		if !st.Trusted || st.Word == StatusTampered {
			fix := st.Hint
			if fix == "" {
				fix = "bundlectl review " + bundle.ShellArg(b.Name)
			}
			return &RefusedError{Bundle: b.Name, Reason: st.Word + ": " + strings.Join(st.Reasons, "; "), Fix: fix}
		}
		return nil
	}, (*state.State).Enable)
}

// Disable clears the enabled bit and keeps trust.
func (m *Manager) Disable(name string) (bool, error) {
	a, err := m.DisableNamed(name)
	return a.Changed, err
}

// DisableNamed is Disable, saying which bundle it disabled (byTrustedName).
func (m *Manager) DisableNamed(name string) (Acted, error) {
	return m.byTrustedName(name, "disable", (*state.State).Disable)
}

// Revoke removes trust and keeps the enabled bit. A trusted bundle that no
// root holds (its source was deleted, or it belongs to another workspace)
// is revoked by its name when exactly one receipt has that name, or by its
// id (bundlectl verify and list --json print ids).
func (m *Manager) Revoke(name string) (bool, error) {
	a, err := m.RevokeNamed(name)
	return a.Changed, err
}

// RevokeNamed is Revoke, saying which bundle it revoked (byTrustedName).
func (m *Manager) RevokeNamed(name string) (Acted, error) {
	return m.byTrustedName(name, "revoke", (*state.State).Revoke)
}

// byTrustedName applies a transition that only a trusted bundle can need
// (disable, revoke) to the bundle name finds. When that bundle is not
// changed by it (it holds no trust, or is disabled already), the one
// trusted bundle of that name it can change is the one meant — one that
// bundle shadows (whose guards block while an inactive bundle holds its
// name), or one whose directory is gone from these roots (its guards
// block, and the fix they print is this command) — and Acted.Instead says
// so. Several such bundles are refused, naming the command for each by
// id. When no root holds the name, a receipt of that name (or id) is.
func (m *Manager) byTrustedName(name, verb string, apply func(*state.State, string) (bool, error)) (Acted, error) {
	a, err := m.transition(name, nil, apply)
	if err == nil && !a.Changed {
		return m.applyOther(name, verb, a.ID, apply)
	}
	if !errors.Is(err, ErrNotFound) {
		return a, err
	}
	_, uerr := m.updateRecorded(func(s *state.State) error {
		ids, terr := trustedIDs(s, []string{name})
		switch {
		case terr != nil:
			return err // no root and no receipt has it: the discovery's answer
		case len(ids) > 1:
			return &RefusedError{Bundle: name, Reason: fmt.Sprintf("%d trusted bundles named %s have no source under this invocation's roots (%s): name one by its id", len(ids), bundle.Quote(name), strings.Join(ids, ", ")), Fix: "bundlectl " + verb + " " + ids[0]}
		}
		changed, err := apply(s, ids[0])
		a = Acted{ID: ids[0], Changed: changed}
		return err
	})
	return a, stateErr(uerr)
}

// Problem is one verification finding. A snapshot problem is a failure:
// what would run is not what was reviewed. A source problem is an update
// pending review (Pending), or a source gone from every root.
type Problem struct {
	Bundle  string `json:"bundle"`
	Path    string `json:"path"`
	What    string `json:"what"` // "source" or "snapshot"
	Reason  string `json:"reason"`
	Pending bool   `json:"update_pending,omitempty"`
	// Fix is the command that fixes a problem a review cannot (the
	// store itself is unusable); empty otherwise.
	Fix string `json:"fix,omitempty"`
}

// Verification is what Verify found.
type Verification struct {
	// Checked counts the bundles with a receipt that were verified.
	Checked int
	// Problems are the mismatches.
	Problems []Problem
	// Unchecked are the sources Verify could not look at: bundles of
	// another workspace, whose source is under no root of this Manager
	// (Roots.Owns). Their snapshots and receipts were verified.
	Unchecked []Problem
}

// testOnlyVerifyLoaded runs in Verify right after it read the state.
var testOnlyVerifyLoaded func()

// Verify re-hashes every trusted bundle's source and snapshot in full, with
// no caches, and returns every mismatch. Given names (a bundle name or id
// each), it verifies only the bundles with a receipt that they name; a
// name that names none is an error (*NotTrustedNameError) and nothing is
// verified.
func (m *Manager) Verify(names ...string) (*Verification, error) {
	s, err := m.stateStore().Load()
	if err != nil {
		return nil, stateErr(err)
	}
	ids, err := trustedIDs(s, names)
	var nt *NotTrustedNameError
	if errors.As(err, &nt) {
		nt.Discovered = m.discovers(nt.Name)
	}
	if err != nil {
		return nil, err
	}
	if testOnlyVerifyLoaded != nil {
		testOnlyVerifyLoaded()
	}
	d := m.Discover()
	byID := map[string]*bundle.Bundle{}
	for _, b := range d.Bundles {
		byID[b.ID] = b
	}
	v := &Verification{}
	for _, id := range ids {
		rec, _ := s.Bundle(id)
		rc := rec.Receipt
		err := m.snapshots().Verify(rc.ContentHash)
		if err != nil {
			// The state was read without the lock: a trust and a gc
			// since then remove the snapshot of a receipt no longer in
			// force. Check the receipt the state holds now instead.
			if now, lerr := m.stateStore().Load(); lerr == nil {
				cur, _ := now.Bundle(id)
				if cur.Receipt == nil {
					continue // revoked meanwhile: nothing trusted to verify
				}
				if cur.Receipt.ContentHash != rc.ContentHash {
					rc = cur.Receipt
					err = m.snapshots().Verify(rc.ContentHash)
				}
			}
		}
		v.Checked++
		if err != nil {
			var unsafe *staging.UnsafeStoreError
			fix := ""
			if errors.As(err, &unsafe) {
				fix = unsafe.Hint()
			}
			v.Problems = append(v.Problems, Problem{Bundle: id, Path: m.snapshots().Path(rc.ContentHash), What: "snapshot", Reason: snapshotReason(err), Fix: fix})
			m.Cache().Remove(fingerprint.SnapshotKey(rc.ContentHash.String()))
		}
		if _, err := ReceiptInventory(rc); err != nil {
			v.Problems = append(v.Problems, Problem{Bundle: id, Path: filepath.Join(m.Roots.Home, "state.json"), What: "receipt", Reason: "the receipt cannot be used: " + err.Error()})
		}
		b := byID[id]
		switch {
		case b == nil && !m.Roots.Owns(id):
			v.Unchecked = append(v.Unchecked, Problem{Bundle: id, What: "source", Reason: "its source is under no root of this invocation (a bundle of another workspace): verify from that workspace to check it"})
			continue
		case b == nil:
			v.Problems = append(v.Problems, Problem{Bundle: id, What: "source", Reason: "the source is gone from every root"})
			continue
		}
		h, err := Compute(b)
		switch {
		case err != nil:
			v.Problems = append(v.Problems, Problem{Bundle: id, Path: b.Dir, What: "source", Reason: "update pending review: " + err.Error(), Pending: true})
		case h.Content != rc.ContentHash:
			v.Problems = append(v.Problems, Problem{Bundle: id, Path: b.Dir, What: "source", Reason: "update pending review: content changed since trust", Pending: true})
		case h.Capability != rc.CapabilityHash:
			v.Problems = append(v.Problems, Problem{Bundle: id, Path: b.Dir, What: "source", Reason: "update pending review: capabilities changed since trust", Pending: true})
		}
	}
	return v, nil
}

// applyOther applies a transition to the one trusted bundle named name
// other than first (the one the name finds, which it did not change): one
// that first shadows, or one whose directory is gone from this
// invocation's roots. With none, nothing changes; with several it
// refuses, naming the command for each by its id.
func (m *Manager) applyOther(name, verb, first string, apply func(*state.State, string) (bool, error)) (Acted, error) {
	d := m.Discover()
	a := Acted{ID: first}
	_, err := m.updateRecorded(func(s *state.State) error {
		type other struct {
			id, what string
			gone     bool
		}
		var others []other
		for _, b := range d.Lookup(name) {
			if b.ID == first {
				continue
			}
			if rec, ok := s.Bundle(b.ID); ok && rec.Receipt != nil {
				others = append(others, other{b.ID, fmt.Sprintf("%s, %s, shadowed by %s", b.ID, bundle.Quote(b.Dir), first), false})
			}
		}
		for _, g := range m.Gone(d, s) {
			if g.Name == name {
				others = append(others, other{g.ID, g.ID + ", whose directory is gone from its root", true})
			}
		}
		switch len(others) {
		case 0:
			return nil
		case 1:
			changed, err := apply(s, others[0].id)
			a = Acted{ID: others[0].id, Changed: changed, Instead: first, Gone: others[0].gone}
			return err
		}
		var cmds []string
		for _, o := range others {
			cmds = append(cmds, fmt.Sprintf("%s (bundlectl %s %s)", o.what, verb, o.id))
		}
		return &RefusedError{Bundle: name, Reason: fmt.Sprintf("%d trusted bundles named %s could be meant, and %s has nothing to %s: name one by its id: %s", len(others), bundle.Quote(name), first, verb, strings.Join(cmds, "; ")), Fix: "bundlectl list"}
	})
	return a, stateErr(err)
}

// trustedIDs returns the ids of the records with a receipt, all of them or
// those names name (by name or by id), in the state's order.
func trustedIDs(s *state.State, names []string) ([]string, error) {
	var ids []string
	named := map[string]bool{}
	for _, id := range s.IDs() {
		if rec, _ := s.Bundle(id); rec.Receipt == nil {
			continue
		}
		name := id[strings.LastIndexByte(id, '/')+1:]
		if len(names) > 0 && !slices.Contains(names, id) && !slices.Contains(names, name) {
			continue
		}
		named[id], named[name] = true, true
		ids = append(ids, id)
	}
	for _, n := range names {
		if !named[n] {
			return nil, &NotTrustedNameError{Name: n}
		}
	}
	return ids, nil
}

// snapshotReason is a snapshot verification error without the snapshot's
// path, which the Problem carries already.
func snapshotReason(err error) string {
	var te *staging.TamperError
	if errors.As(err, &te) {
		return bundle.Quote(te.Path) + ": " + te.Reason
	}
	return err.Error()
}

// GC removes snapshots that no current receipt references and stale
// temporary directories, under the state lock. A home that does not exist
// holds nothing to remove, and GC does not create it (a mistyped --home
// would be left behind).
func (m *Manager) GC() (removed []string, err error) {
	if _, err := os.Lstat(m.Roots.Home); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	_, err = m.stateStore().Update(func(s *state.State) error {
		ref := map[receipts.Digest]bool{}
		for _, id := range s.IDs() {
			if rec, _ := s.Bundle(id); rec.Receipt != nil {
				ref[rec.Receipt.ContentHash] = true
			}
		}
		removed, err = m.snapshots().GC(ref)
		if err != nil {
			return err
		}
		removed = append(removed, m.pruneVerified(s)...)
		// What a killed configure (or a check killed while it recorded a
		// verification: a host's hook timeout) left. configure writes
		// under this lock; a record being written by a check that runs
		// now only fails to be cached, which costs its next check a full
		// verification.
		removed = append(removed, removeStaleTemps(filepath.Join(m.Roots.Home, "config"))...)
		removed = append(removed, m.removeSwapIntentTemps()...)
		removed = append(removed, m.pruneOptions(s)...)
		removed = append(removed, removeStaleTemps(m.Cache().Dir)...)
		removed = append(removed, m.pruneViews(s)...)
		removed = append(removed, m.pruneMarkers(s)...)
		// What a killed install, update, uninstall or sync left behind
		// (lifecycle/sources.go); kept while one is running.
		left, _ := m.removeFetchLeftovers()
		removed = append(removed, left...)
		return nil
	})
	return removed, stateErr(err)
}

// pruneOptions removes the options files (they may hold secrets) of
// bundles that are gone: no record in the state, no directory in any root
// of this invocation, and an id these roots own — a bundle of another
// workspace, which may still be there, keeps its options. uninstall
// removes a bundle's options itself; these are what a directory deleted
// by hand left.
func (m *Manager) pruneOptions(s *state.State) []string {
	dir := filepath.Join(m.Roots.Home, "config")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	live := map[string]bool{}
	for _, id := range s.IDs() {
		live[id] = true
	}
	d := m.Discover()
	if len(d.Problems) > 0 {
		// A root that could not be read hides its bundles: keep every
		// options file rather than take a hidden bundle's for gone.
		return nil
	}
	for _, b := range d.Bundles {
		live[b.ID] = true
	}
	owns := m.Roots.Owner()
	var removed []string
	for _, e := range ents {
		id, ok := optionsFileID(e.Name())
		if !ok || !e.Type().IsRegular() || live[id] || !owns(id) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if os.Remove(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed
}

// optionsFileID is the bundle id whose options file is named name
// (configPath), "<scope>_<12 hex>_<name>.json".
func optionsFileID(name string) (string, bool) {
	base, ok := strings.CutSuffix(name, ".json")
	parts := strings.SplitN(base, "_", 3)
	if !ok || len(parts) != 3 || parts[2] == "" || len(parts[1]) != 12 || strings.Trim(parts[1], "0123456789abcdef") != "" {
		return "", false
	}
	switch bundle.Scope(parts[0]) {
	case bundle.ScopeBuiltin, bundle.ScopeUser, bundle.ScopeWorkspace:
		return parts[0] + "/" + parts[1] + "/" + parts[2], true
	}
	return "", false
}

// pruneViews removes the host views (views/<token>/, docs/hosts.md) of
// tokens no receipt holds any more: an agent started after a re-trust or a
// revoke never gets them, and they would otherwise accumulate. A session
// still running on one loses its content, as it lost its authority.
func (m *Manager) pruneViews(s *state.State) []string {
	dir := filepath.Join(m.Roots.Home, "views")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	live := map[string]bool{}
	for _, id := range s.IDs() {
		if rec, _ := s.Bundle(id); rec.Receipt != nil {
			live[rec.Receipt.Token().String()] = true
		}
	}
	var removed []string
	for _, e := range ents {
		if !e.IsDir() || live[e.Name()] {
			continue
		}
		if _, err := receipts.ParseToken(e.Name()); err != nil {
			continue // not a view of a token (views/sessions/ is hosts')
		}
		p := filepath.Join(dir, e.Name())
		if staging.RemoveTree(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed
}

// removeStaleTemps removes from dir the temporary files an atomic
// replacement of one of its JSON files leaves when it is killed before its
// rename: regular files named "." + the file's name + the digits renameio
// adds (".user_3f1c0a9e5b27_guard.json2279240451"). Nothing else is
// touched.
func removeStaleTemps(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range ents {
		if !e.Type().IsRegular() || !isRenameioTemp(e.Name()) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if os.Remove(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed
}

// isRenameioTemp reports whether name is ".<something>.json<digits>".
func isRenameioTemp(name string) bool {
	rest, ok := strings.CutPrefix(name, ".")
	if !ok {
		return false
	}
	i := strings.LastIndex(rest, ".json")
	if i < 1 {
		return false
	}
	digits := rest[i+len(".json"):]
	return digits != "" && strings.Trim(digits, "0123456789") == ""
}

// pruneVerified removes the fingerprint records (a cache, see package
// fingerprint) nothing refers to any more: a snapshot no receipt names, a
// source of a bundle without a receipt.
func (m *Manager) pruneVerified(s *state.State) []string {
	dir := m.Cache().Dir
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	keep := map[string]bool{}
	for _, id := range s.IDs() {
		if rec, _ := s.Bundle(id); rec.Receipt != nil {
			keep[fingerprint.SourceKey(id)] = true
			keep[fingerprint.SnapshotKey(rec.Receipt.ContentHash.String())] = true
		}
	}
	var removed []string
	for _, e := range ents {
		key, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !e.Type().IsRegular() || keep[key] {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if os.Remove(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed
}

// discovers reports whether a root of this invocation holds a bundle
// named name (Verify's error then hints its review).
func (m *Manager) discovers(name string) bool {
	for _, b := range m.Discover().Bundles {
		if b.Name == name {
			return true
		}
	}
	return false
}
