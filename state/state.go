package state

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"sort"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/receipts"
)

// SchemaVersion is the state.json schema_version this package writes: 3
// keeps the audit trails apart from the records, after them. It also
// reads version 2 (the trails inside the records) and version 1 (which
// also lacks switches and sources).
const SchemaVersion = 3

// AuditLimit bounds each bundle's audit trail: the latest AuditLimit events
// are kept, older ones are dropped.
const AuditLimit = 32

// Action names a state transition.
type Action string

const (
	ActionTrust   Action = "trust"
	ActionEnable  Action = "enable"
	ActionDisable Action = "disable"
	ActionRevoke  Action = "revoke"
	// ActionSwitch turns one component off or back on.
	ActionSwitch Action = "switch"
	// ActionSource records where the bundle was installed from.
	ActionSource Action = "source"
)

func (a Action) valid() bool {
	switch a {
	case ActionTrust, ActionEnable, ActionDisable, ActionRevoke, ActionSwitch, ActionSource:
		return true
	}
	return false
}

// ReceiptRef is the part of a receipt an audit event keeps: enough to say
// which review was trusted or revoked, without the inventory.
type ReceiptRef struct {
	Token      receipts.Token `json:"token"`
	Snapshot   string         `json:"snapshot"`
	ReviewedAt time.Time      `json:"reviewed_at"`
	// Generation is the receipt's own generation (when it was written).
	Generation uint64 `json:"generation"`
}

func refOf(r *receipts.Receipt) *ReceiptRef {
	if r == nil {
		return nil
	}
	return &ReceiptRef{Token: r.Token(), Snapshot: r.Snapshot, ReviewedAt: r.ReviewedAt, Generation: r.Generation}
}

// Event is one persisted transition in a bundle's audit trail.
type Event struct {
	Action Action    `json:"action"`
	Time   time.Time `json:"time"`
	// Generation is the bundle's generation after the transition.
	Generation uint64 `json:"generation"`
	// Receipt is the receipt involved: the one trusted, the one revoked, or
	// the current one at enable/disable time (nil when there was none).
	Receipt *ReceiptRef `json:"receipt"`
}

// Record is the recorded state of one bundle. Values returned by State are
// copies; changing them changes nothing.
type Record struct {
	ID      string `json:"-"`
	Enabled bool   `json:"enabled"`
	// Receipt is the current trust decision, nil when untrusted.
	Receipt *receipts.Receipt `json:"receipt"`
	// Generation counts this bundle's persisted transitions.
	Generation uint64 `json:"generation"`
	// Audit holds the latest AuditLimit events, oldest first.
	Audit []Event `json:"audit"`
	// Off lists the components the user switched off, by kind ("hook",
	// "mcp", "lsp", "tool") and name (a hook by its id). A switch can only
	// remove authority: it never adds a component, and it outlives trust
	// (a re-trusted bundle keeps its switches).
	Off []Switch `json:"off,omitempty"`
	// Source is where the bundle was installed from, as the installer
	// recorded it (docs/sources.md); nil for a bundle placed by hand.
	Source json.RawMessage `json:"source,omitempty"`
}

// Switch names one component that is switched off.
type Switch struct {
	Kind string `json:"kind"` // hook, mcp, lsp, tool
	Name string `json:"name"`
}

// SwitchKinds are the component kinds a switch can name.
var SwitchKinds = []string{"hook", "mcp", "lsp", "tool"}

// IsOff reports whether the component kind/name is switched off.
func (b Record) IsOff(kind, name string) bool {
	for _, s := range b.Off {
		if s.Kind == kind && s.Name == name {
			return true
		}
	}
	return false
}

// Trusted reports whether the bundle has a current receipt.
func (b Record) Trusted() bool { return b.Receipt != nil }

// State is one consistent view of state.json. A State returned by Load is a
// snapshot: its transition methods change only the copy in memory, and
// there is no way to write it back — only Update persists, and Update runs
// its function on a State re-read under the lock.
type State struct {
	generation uint64
	bundles    map[string]*Record
	now        func() time.Time
}

func newState() *State {
	return &State{bundles: map[string]*Record{}}
}

// Generation is the global generation: the number of transitions ever
// persisted, over all bundles. Any persisted change advances it, so a
// harness can compare one number to notice that anything changed.
func (s *State) Generation() uint64 { return s.generation }

// Bundle returns a copy of the recorded state of id. A bundle that was
// never recorded is untrusted, disabled, generation 0, and ok is false.
func (s *State) Bundle(id string) (b Record, ok bool) {
	r := s.bundles[id]
	if r == nil {
		return Record{ID: id}, false
	}
	return r.clone(), true
}

// IDs returns the recorded bundle ids in ascending order.
func (s *State) IDs() []string {
	ids := make([]string, 0, len(s.bundles))
	for id := range s.bundles {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

func (b *Record) clone() Record {
	c := *b
	if b.Receipt != nil {
		r := *b.Receipt
		r.Inventory = bytes.Clone(b.Receipt.Inventory)
		c.Receipt = &r
	}
	c.Off = append([]Switch(nil), b.Off...)
	c.Source = bytes.Clone(b.Source)
	c.Audit = make([]Event, len(b.Audit))
	for i, e := range b.Audit {
		if e.Receipt != nil {
			ref := *e.Receipt
			e.Receipt = &ref
		}
		c.Audit[i] = e
	}
	return c
}

func (s *State) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now().UTC().Round(0)
}

// record returns the mutable record of id, creating it.
func (s *State) record(id string) *Record {
	r := s.bundles[id]
	if r == nil {
		r = &Record{ID: id, Audit: []Event{}}
		s.bundles[id] = r
	}
	return r
}

// advance applies one persisted transition's bookkeeping: both generations
// move by exactly one and the event is appended to the bounded audit.
func (s *State) advance(r *Record, a Action, involved *receipts.Receipt) {
	r.Generation++
	s.generation++
	r.Audit = append(r.Audit, Event{Action: a, Time: s.clock(), Generation: r.Generation, Receipt: refOf(involved)})
	if n := len(r.Audit); n > AuditLimit {
		r.Audit = append([]Event(nil), r.Audit[n-AuditLimit:]...)
	}
}

// Trust records rc as the current receipt of id and stamps rc's Generation
// with the bundle's new generation. The enabled bit is unchanged (trust
// does not enable). A trust is always a transition, even for the same
// token: it records a new review. rc.Inventory is stored compacted.
func (s *State) Trust(id string, rc receipts.Receipt) (changed bool, err error) {
	if err := checkID(id); err != nil {
		return false, err
	}
	if err := checkReceipt(id, &rc); err != nil {
		return false, err
	}
	var inv bytes.Buffer
	if err := json.Compact(&inv, rc.Inventory); err != nil {
		return false, &InvalidError{ID: id, Reason: "receipt inventory is not valid JSON"}
	}
	rc.Inventory = inv.Bytes()
	rc.ReviewedAt = rc.ReviewedAt.Round(0)
	r := s.record(id)
	rc.Generation = r.Generation + 1
	r.Receipt = &rc
	s.advance(r, ActionTrust, &rc)
	return true, nil
}

// Enable sets the enabled bit. It requires a current receipt (re-read under
// the lock by Update, so a stale view cannot enable a revoked bundle) and
// never writes one: ErrNotTrusted otherwise. Enabling an enabled bundle
// succeeds with changed false and persists nothing.
func (s *State) Enable(id string) (changed bool, err error) {
	if err := checkID(id); err != nil {
		return false, err
	}
	r := s.bundles[id]
	if r == nil || r.Receipt == nil {
		return false, &NotTrustedError{ID: id, Action: ActionEnable}
	}
	if r.Enabled {
		return false, nil
	}
	r.Enabled = true
	s.advance(r, ActionEnable, r.Receipt)
	return true, nil
}

// Disable clears the enabled bit; trusted or not. Disabling a disabled (or
// unknown) bundle succeeds with changed false and persists nothing.
func (s *State) Disable(id string) (changed bool, err error) {
	if err := checkID(id); err != nil {
		return false, err
	}
	r := s.bundles[id]
	if r == nil || !r.Enabled {
		return false, nil
	}
	r.Enabled = false
	s.advance(r, ActionDisable, r.Receipt)
	return true, nil
}

// Revoke removes the current receipt and keeps the enabled bit (the bundle
// stops being active because it is untrusted). Revoking an untrusted bundle
// succeeds with changed false and persists nothing.
func (s *State) Revoke(id string) (changed bool, err error) {
	if err := checkID(id); err != nil {
		return false, err
	}
	r := s.bundles[id]
	if r == nil || r.Receipt == nil {
		return false, nil
	}
	old := r.Receipt
	r.Receipt = nil
	s.advance(r, ActionRevoke, old)
	return true, nil
}

func checkReceipt(id string, rc *receipts.Receipt) error {
	switch {
	case rc.BundleID != id:
		return &InvalidError{ID: id, Reason: "receipt is for bundle " + quote(rc.BundleID)}
	case rc.ContentHash.IsZero():
		return &InvalidError{ID: id, Reason: "receipt has no content hash"}
	case rc.CapabilityHash.IsZero():
		return &InvalidError{ID: id, Reason: "receipt has no capability hash"}
	case !filepath.IsAbs(rc.Snapshot) || filepath.Clean(rc.Snapshot) != rc.Snapshot:
		return &InvalidError{ID: id, Reason: "receipt snapshot is not a clean absolute path"}
	case !unprintableFree(rc.Snapshot):
		return &InvalidError{ID: id, Reason: "receipt snapshot contains control or bidirectional characters"}
	case len(rc.Inventory) == 0:
		// Its syntax is checked where it is compacted, right after.
		return &InvalidError{ID: id, Reason: "receipt inventory is not valid JSON"}
	}
	return nil
}

func quote(s string) string { return bundle.Quote(s) }

// unprintableFree reports whether s needs no escaping for display.
func unprintableFree(s string) bool { return bundle.EscapePath(s) == s }

// SetSwitch turns the component kind/name off (off true) or back on.
// It needs no receipt: switching off a component of an untrusted bundle
// only takes effect once it is trusted. Setting the current value
// succeeds with changed false and persists nothing.
func (s *State) SetSwitch(id, kind, name string, off bool) (changed bool, err error) {
	if err := checkID(id); err != nil {
		return false, err
	}
	if !validSwitch(kind, name) {
		return false, &InvalidError{ID: id, Reason: "switch " + quote(kind+" "+name) + " names no component kind"}
	}
	r := s.record(id)
	if r.IsOff(kind, name) == off {
		if len(r.Audit) == 0 {
			delete(s.bundles, id) // created only to look
		}
		return false, nil
	}
	if off {
		r.Off = append(r.Off, Switch{Kind: kind, Name: name})
		sort.Slice(r.Off, func(i, j int) bool {
			if r.Off[i].Kind != r.Off[j].Kind {
				return r.Off[i].Kind < r.Off[j].Kind
			}
			return r.Off[i].Name < r.Off[j].Name
		})
	} else {
		kept := r.Off[:0]
		for _, sw := range r.Off {
			if sw.Kind != kind || sw.Name != name {
				kept = append(kept, sw)
			}
		}
		r.Off = kept
		if len(r.Off) == 0 {
			r.Off = nil
		}
	}
	s.advance(r, ActionSwitch, r.Receipt)
	return true, nil
}

// SetSource records where the bundle was installed from (raw is the
// installer's JSON record; nil clears it).
func (s *State) SetSource(id string, raw json.RawMessage) (changed bool, err error) {
	if err := checkID(id); err != nil {
		return false, err
	}
	if raw != nil && !json.Valid(raw) {
		return false, &InvalidError{ID: id, Reason: "source record is not valid JSON"}
	}
	var compact bytes.Buffer
	if raw != nil {
		json.Compact(&compact, raw)
		raw = compact.Bytes()
	}
	r := s.record(id)
	if bytes.Equal(r.Source, raw) {
		if len(r.Audit) == 0 {
			delete(s.bundles, id)
		}
		return false, nil
	}
	r.Source = raw
	s.advance(r, ActionSource, r.Receipt)
	return true, nil
}

// Forget removes every trace of id: receipt, switches, source and audit
// (uninstall). The global generation still advances, so a harness sees
// that something changed.
func (s *State) Forget(id string) (changed bool, err error) {
	if err := checkID(id); err != nil {
		return false, err
	}
	if _, ok := s.bundles[id]; !ok {
		return false, nil
	}
	delete(s.bundles, id)
	s.generation++
	return true, nil
}

func validSwitch(kind, name string) bool {
	ok := false
	for _, k := range SwitchKinds {
		ok = ok || k == kind
	}
	return ok && name != "" && len(name) <= 256 && unprintableFree(name)
}
