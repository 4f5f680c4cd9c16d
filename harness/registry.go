package harness

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/receipts"
	"github.com/bundlectl/bundlectl/staging"
	"github.com/bundlectl/bundlectl/state"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/sys/unix"
)

// Options configure a registry.
type Options struct {
	// Builtin is a directory of bundles the harness ships (highest
	// precedence). Optional.
	Builtin string
	// Home is $BUNDLECTL_HOME. Required.
	Home string
	// Workspace is the workspace directory: the workspace root of bundles
	// and the working directory of tools and hooks. Required.
	Workspace string
	// Limits bound every bundle tree; zero fields take the defaults.
	Limits bundle.Limits
	// Only, when set, restricts loading to the bundles with these names
	// (a one-shot caller such as `bundlectl run` loads just one).
	Only []string
	// MaxOutput caps retained stdout and stderr of each child, each; zero
	// means DefaultMaxOutput.
	MaxOutput int
	// ToolTimeout and HookTimeout replace the defaults for components
	// that set no timeout of their own.
	ToolTimeout, HookTimeout time.Duration
	// Environ is the host environment children's environments are built
	// from (through the allowlist and env_from); nil means os.Environ().
	Environ []string
	// Logger receives one line per refusal and per spawn; nil discards.
	Logger *slog.Logger
	// PollInterval is how often a running child's authority is re-checked
	// (so that disable or revoke from another process cancels it); zero
	// means 200ms.
	PollInterval time.Duration
	// NoWatch skips change notification, for a one-shot caller that makes
	// one or two calls and exits (closing an inotify descriptor that
	// holds watches costs the kernel tens of milliseconds). Checks then
	// re-walk the source and the snapshot and compare every entry's
	// identity, size, mode and times with the last full verification; any
	// difference, or an entry modified too close to that verification to
	// be told apart (git's "racy" rule), means a full re-verification.
	NoWatch bool
}

// Registry is the immutable set of bundles that were active when it was
// loaded. Every use re-checks the bundle's authority first.
type Registry struct {
	opts  Options
	m     *lifecycle.Manager
	store *staging.Store
	watch *watcher // nil: full verification before every use

	entries  []*entry
	inactive []Inactive

	skills   map[string]*docRef // "<bundle>:<name>"
	commands map[string]*docRef
	agents   map[string]*docRef
	tools    map[string]*toolRef // "plugin__<bundle>__<tool>"
	servers  map[string]*serverRef

	mu        sync.Mutex // guards the state view and entries' verification
	statePath string
	stateID   fileID
	state     *state.State
	stateErr  error
}

// Inactive is a discovered bundle the registry did not load, and why.
type Inactive struct {
	Name    string   `json:"name"`
	ID      string   `json:"id"`
	Status  string   `json:"status"`
	Reasons []string `json:"reasons"`
}

type entry struct {
	idx      int
	b        *bundle.Bundle
	rc       receipts.Receipt
	gen      uint64
	snapshot string
	data     string
	failed   error // the last verification failed: verify again next time
	verified bool  // a verification passed at least once
	// The walks and the start time of the last passing verification, for
	// the stat-only check without change notification.
	srcTree, snapTree *bundle.Tree
	verifiedAt        time.Time
}

type docRef struct {
	e       *entry
	Name    string
	Path    string
	Desc    string
	content []byte
}

type toolRef struct {
	e      *entry
	tool   bundle.Tool
	schema *jsonschema.Schema
}

type serverRef struct {
	e   *entry
	srv bundle.MCPServer
}

// Load discovers every root, reads the state and returns a registry of the
// bundles that are active now: enabled, trusted for their current hashes,
// valid, applicable and free of inactive declarations. Each active bundle's
// source and snapshot are verified in full, under change notification, and
// its skills, commands and agents are read into memory from the snapshot.
// An unusable state file fails the whole load: nothing is active.
func Load(opts Options) (*Registry, error) {
	if opts.Home == "" || opts.Workspace == "" {
		return nil, errors.New("harness: Options.Home and Options.Workspace are required")
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = 200 * time.Millisecond
	}
	if opts.Environ == nil {
		opts.Environ = os.Environ()
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	roots := bundle.Roots{Builtin: opts.Builtin, Home: opts.Home, Workspace: opts.Workspace}
	r := &Registry{
		opts:      opts,
		m:         lifecycle.New(roots, opts.Limits),
		store:     &staging.Store{Dir: filepath.Join(opts.Home, "store"), Limits: opts.Limits},
		skills:    map[string]*docRef{},
		commands:  map[string]*docRef{},
		agents:    map[string]*docRef{},
		tools:     map[string]*toolRef{},
		servers:   map[string]*serverRef{},
		statePath: filepath.Join(opts.Home, "state.json"),
	}
	if !opts.NoWatch {
		if w, err := newWatcher(); err == nil {
			r.watch = w
		}
	}
	// Fingerprint the state file before reading it, so a write racing the
	// read is seen as a change at the first check.
	r.stateID = statID(r.statePath)
	s, err := r.m.LoadState()
	if err != nil {
		r.watch.close()
		return nil, err
	}
	r.state = s
	d := bundle.DiscoverNamed(roots, opts.Limits, opts.Only)
	for _, b := range d.Bundles {
		if len(opts.Only) > 0 && !contains(opts.Only, b.Name) {
			continue
		}
		rec, _ := s.Bundle(b.ID)
		if b.ShadowedBy != "" || !rec.Enabled || rec.Receipt == nil {
			st := r.m.Evaluate(b, s) // cheap for these: no hashing
			r.inactive = append(r.inactive, Inactive{b.Name, b.ID, st.Word, st.Reasons})
			continue
		}
		e := &entry{idx: len(r.entries), b: b, rc: *rec.Receipt, gen: rec.Generation, snapshot: rec.Receipt.Snapshot}
		if err := r.verify(e); err != nil {
			st := r.m.Evaluate(b, s)
			word, reasons := st.Word, st.Reasons
			if st.Active {
				// It changed between the two looks: report the failure.
				word, reasons = lifecycle.StatusDrifted, []string{err.Error()}
			}
			r.inactive = append(r.inactive, Inactive{b.Name, b.ID, word, reasons})
			continue
		}
		if why := lifecycle.Applies(e.b.When); why != "" {
			r.inactive = append(r.inactive, Inactive{b.Name, b.ID, lifecycle.StatusEnabled, []string{"enabled and trusted, but " + why}})
			continue
		}
		if err := r.admit(e); err != nil {
			r.inactive = append(r.inactive, Inactive{b.Name, b.ID, lifecycle.StatusEnabled, []string{"enabled and trusted, but it could not be loaded: " + err.Error()}})
			continue
		}
		r.entries = append(r.entries, e)
	}
	return r, nil
}

// admit freezes an active bundle's components into the registry.
func (r *Registry) admit(e *entry) error {
	b := e.b
	data, err := dataDir(r.opts.Home, b.ID)
	if err != nil {
		return err
	}
	e.data = data
	snapTree := e.snapTree
	if snapTree == nil {
		return refuse(b.Name, ErrTampered, "bundlectl verify", "the snapshot cannot be read")
	}
	read := func(rel string) ([]byte, error) { return snapTree.ReadFile(rel, bundle.MaxManifestBytes) }
	for _, s := range b.Components.Skills {
		c, err := read(s.Path)
		if err != nil {
			return err
		}
		r.skills[b.Name+":"+s.Name] = &docRef{e: e, Name: s.Name, Path: s.Path, Desc: s.Description, content: c}
	}
	for _, set := range []struct {
		docs []bundle.Document
		into map[string]*docRef
	}{{b.Components.Commands, r.commands}, {b.Components.Agents, r.agents}} {
		for _, d := range set.docs {
			c, err := read(d.Path)
			if err != nil {
				return err
			}
			set.into[b.Name+":"+d.Name] = &docRef{e: e, Name: d.Name, Path: d.Path, Desc: d.Description, content: c}
		}
	}
	for _, t := range b.Components.Tools {
		sch, err := CompileParams(t.Params)
		if err != nil {
			return err
		}
		r.tools[ToolName(b.Name, t.Name)] = &toolRef{e: e, tool: t, schema: sch}
	}
	for _, s := range b.Components.MCP {
		r.servers[ServerName(b.Name, s.Name)] = &serverRef{e: e, srv: s}
	}
	return nil
}

// ToolName is the name a tool is exposed under: plugin__<bundle>__<tool>.
func ToolName(bundleName, tool string) string { return "plugin__" + bundleName + "__" + tool }

// ServerName is the name an MCP server is exposed under:
// plugin-<len(bundle)>-<bundle>-<server>. The length makes the split
// unambiguous although both names may contain hyphens.
func ServerName(bundleName, server string) string {
	return fmt.Sprintf("plugin-%d-%s-%s", len(bundleName), bundleName, server)
}

// dataDir creates (0700) and returns PLUGIN_DATA for a bundle id. It
// depends only on the id, so it survives updates of the bundle.
func dataDir(home, id string) (string, error) {
	dir := filepath.Join(home, "data", filepath.FromSlash(id))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	for p := dir; p != home && len(p) > len(home); p = filepath.Dir(p) {
		fi, err := os.Lstat(p)
		if err != nil {
			return "", err
		}
		if !fi.IsDir() || fi.Mode()&os.ModeSymlink != 0 {
			return "", fmt.Errorf("plugin data directory %q is not a directory", p)
		}
		if err := os.Chmod(p, 0o700); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// Close releases the change notification. Checks made after Close (by a
// child still being supervised) verify in full.
func (r *Registry) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.watch.close()
	r.watch = nil
	return nil
}

// fileID identifies one version of the state file: rename-based writes
// always change the inode, and every write changes ctime.
type fileID struct {
	ok               bool
	dev, ino         uint64
	size             int64
	mtimeNs, ctimeNs int64
}

func statID(path string) fileID {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return fileID{}
	}
	return fileID{true, uint64(st.Dev), uint64(st.Ino), st.Size, st.Mtim.Nano(), st.Ctim.Nano()}
}

// authorize is the check made at every boundary: still enabled, still
// trusted for the same receipt and generation, the source not drifted, the
// snapshot intact. It is cheap when nothing changed: one stat of the state
// file and one non-blocking read of the change-notification queue.
func (r *Registry) authorize(e *entry) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if id := statID(r.statePath); id != r.stateID {
		r.stateID = id
		s, err := r.m.LoadState()
		r.state, r.stateErr = s, err
	}
	name := e.b.Name
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
	rec, _ := r.state.Bundle(e.b.ID)
	switch {
	case rec.Receipt == nil:
		return refuse(name, ErrRevoked, "bundlectl review "+name, "its trust was revoked")
	case rec.Receipt.Token() != e.rc.Token() || rec.Receipt.Generation != e.rc.Generation:
		return refuse(name, ErrStale, "reload the harness", "it was trusted again with another receipt since the harness loaded it")
	case !rec.Enabled:
		return refuse(name, ErrDisabled, "bundlectl enable "+name, "it was disabled")
	case rec.Generation != e.gen:
		return refuse(name, ErrStale, "reload the harness", "its state changed (generation %d, loaded at %d)", rec.Generation, e.gen)
	}
	if e.failed == nil {
		if r.watch != nil && !r.watch.changed(e.idx) {
			return nil
		}
		if r.watch == nil && r.unchanged(e) {
			return nil
		}
	}
	return r.verify(e)
}

// verify re-reads the source and the snapshot in full and compares both
// with the receipt, under change notification. The order makes it sound:
// watches are armed on every directory of a walk, then the tree is walked
// again; if the second walk equals the first, every change after it raises
// an event, and the hash (which re-checks each file's identity and times
// against the walk) covers everything before it. A snapshot is walked,
// armed, then verified by the store, whose own walk refuses any entry the
// receipt does not list.
func (r *Registry) verify(e *entry) (err error) {
	defer func() { e.failed = err }()
	name := e.b.Name
	started := time.Now()
	drifted := func(format string, args ...any) error {
		return refuse(name, ErrDrifted, "bundlectl review "+name, format, args...)
	}
	src := e.b
	if e.verified {
		// Something changed since the last verification: read it all again.
		src = nil
	} else if r.provenUnchanged(e) {
		// An earlier process verified exactly these trees in full.
		return nil
	}
	fullVerifications.Add(1)
	defer func() {
		if err == nil {
			r.recordVerified(e)
		}
	}()
	for attempt := 0; ; attempt++ {
		if attempt == 3 {
			return drifted("the bundle keeps changing while it is verified")
		}
		if r.watch != nil {
			r.watch.clean(e.idx)
		}
		if src == nil {
			src = bundle.Load(e.b.Dir, e.b.Scope, r.opts.Limits)
		}
		if src.Tree == nil {
			return drifted("the source cannot be read: %v", src.Report.Err())
		}
		if !r.watchTree(e, e.b.Dir, src.Tree) {
			// New watches: walk again, so nothing added before they were
			// armed goes unseen.
			again, _ := bundle.Walk(e.b.Dir, r.opts.Limits)
			if again == nil || !sameShape(src.Tree, again) {
				src = nil
				continue
			}
		}
		h, err := lifecycle.Compute(src)
		if err != nil {
			return drifted("the source cannot be verified: %v", err)
		}
		if h.Content != e.rc.ContentHash || h.Capability != e.rc.CapabilityHash {
			return drifted("the source changed since it was trusted")
		}
		snap, _ := bundle.Walk(e.snapshot, r.opts.Limits)
		if snap != nil {
			r.watchTree(e, e.snapshot, snap)
		}
		if err := r.store.Verify(e.rc.ContentHash); err != nil {
			return refuse(name, ErrTampered, "bundlectl trust "+name+" "+e.rc.Token().String(), "the snapshot no longer matches its content hash: %v", err)
		}
		e.verified, e.srcTree, e.snapTree, e.verifiedAt = true, src.Tree, snap, started
		return nil
	}
}

// racyWindow is how close to a verification an entry's mtime or ctime may
// be before the entry is treated as possibly changed after it was read:
// file times come from a coarse kernel clock (a few milliseconds).
const racyWindow = 50 * time.Millisecond

// racy reports whether en's times are too close to a verification that
// started at started to prove it unchanged since. Entries whose times have
// no sub-second part come from a file system with coarse timestamps (FAT
// keeps 2 s; ext3, HFS+ and small ext4 inodes whole seconds): for them the
// start is first truncated to 2 s, so that a rewrite within the same coarse
// tick as the verification cannot carry an older-looking time.
func racy(en bundle.Entry, started time.Time) bool {
	limit := started.Add(-racyWindow)
	if en.MtimeNs%1e9 == 0 && en.CtimeNs%1e9 == 0 {
		limit = started.Truncate(2 * time.Second).Add(-racyWindow)
	}
	return en.MtimeNs >= limit.UnixNano() || en.CtimeNs >= limit.UnixNano()
}

// unchanged is the check without change notification: a fresh walk of the
// source and of the snapshot must equal the walks of the last passing
// verification entry for entry (inode, size, mode, mtime and ctime in
// nanoseconds), no entry may be racy, and the walks must raise no finding.
// A write through a page of a shared mapping that is already dirty moves
// no timestamp; only a full re-hash sees it (SECURITY.md).
func (r *Registry) unchanged(e *entry) bool {
	if !e.verified || e.srcTree == nil || e.snapTree == nil {
		return false
	}
	for _, w := range []struct {
		dir  string
		tree *bundle.Tree
	}{{e.b.Dir, e.srcTree}, {e.snapshot, e.snapTree}} {
		now, rep := bundle.Walk(w.dir, r.opts.Limits)
		if now == nil || rep.Rejected() || !sameShape(w.tree, now) {
			return false
		}
		for _, en := range now.Entries {
			if racy(en, e.verifiedAt) {
				return false
			}
		}
	}
	return true
}

// fullVerifications counts full verifications, for tests.
var fullVerifications atomic.Int64

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

// watchTree arms change notification on every directory of t; it returns
// false when a directory was not yet watched (verify again).
func (r *Registry) watchTree(e *entry, root string, t *bundle.Tree) bool {
	if r.watch == nil || t == nil {
		return true
	}
	stable, err := r.watch.watchTree(e.idx, root, t)
	if err != nil {
		// Out of watches: fall back to verifying before every use.
		r.opts.Logger.Warn("change notification unavailable; verifying in full before every use", "bundle", e.b.Name, "err", err)
		r.watch.close()
		r.watch = nil
		return true
	}
	return stable
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Ready reports whether the bundle named name was loaded and passes its
// authority check now; if not, the error names the status and the fix.
func (r *Registry) Ready(name string) error {
	for _, e := range r.entries {
		if e.b.Name == name {
			return r.authorize(e)
		}
	}
	return r.Loaded(name)
}

// Loaded reports whether the bundle named name was loaded, without
// checking its authority again (every use does that); if it was not, the
// error names its status and the fix.
func (r *Registry) Loaded(name string) error {
	for _, e := range r.entries {
		if e.b.Name == name {
			return nil
		}
	}
	for _, in := range r.inactive {
		if in.Name == name {
			reason := in.Status
			if len(in.Reasons) > 0 {
				reason += ": " + strings.Join(in.Reasons, "; ")
			}
			fix := "bundlectl review " + name
			switch in.Status {
			case lifecycle.StatusTrusted:
				fix = "bundlectl enable " + name
			case lifecycle.StatusShadowed, lifecycle.StatusEnabled, lifecycle.StatusBlocked:
				fix = "bundlectl show " + name
			case lifecycle.StatusInvalid:
				fix = "bundlectl validate " + name
			}
			return refuse(name, ErrNotActive, fix, "it is not active: %s", reason)
		}
	}
	return &UnknownError{What: "bundle", Name: name}
}
