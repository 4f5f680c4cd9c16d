package harness

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/fingerprint"
	"github.com/bundlectl/bundlectl/internal/optvalue"
	"github.com/bundlectl/bundlectl/inventory"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/receipts"
	"github.com/bundlectl/bundlectl/staging"
	"github.com/bundlectl/bundlectl/state"
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
	// Limits bound the walk of a snapshot; zero fields take the defaults.
	Limits bundle.Limits
	// Only, when set, restricts loading to the bundles with these names
	// (a one-shot caller such as `bundlectl run` loads just one).
	Only []string
	// Host, when set ("claude", "codex", "gemini"), restricts hooks to
	// bundlectl's own and those the host's own manifest declares.
	Host bundle.Host
	// MaxOutput caps retained stdout and stderr of each child, each; zero
	// means DefaultMaxOutput.
	MaxOutput int
	// ToolTimeout and HookTimeout replace the defaults for components
	// that set no timeout of their own.
	ToolTimeout, HookTimeout time.Duration
	// Environ is the host environment children's environments are built
	// from (through the allowlist and the reviewed variables); nil means
	// os.Environ().
	Environ []string
	// Logger receives one line per refusal and per spawn; nil discards.
	Logger *slog.Logger
	// PollInterval is how often a running child's authority is re-checked
	// (so that disable or revoke from another process cancels it); zero
	// means 200ms.
	PollInterval time.Duration
	// HooksOnly loads a registry that serves hook events only (FireHooks,
	// FireEvent, ExecHook, Hooks), for a one-shot caller such as `bundlectl
	// hooks run`: of each receipt's inventory it reads at load what
	// deciding whether the bundle is active and matching its hooks needs
	// (inventory.ParseSummary), and the whole inventory of a bundle only
	// when one of its hooks is about to run (checked as every use checks
	// it; a bundle whose inventory does not parse is refused, and its
	// guard blocks). Its catalogue lists no tools, documents or servers.
	HooksOnly bool
	// NoWatch skips change notification, for a one-shot caller that makes
	// one or two calls and exits. Each check then walks the snapshot and
	// compares it with the fingerprint record of its last full
	// verification (package fingerprint).
	NoWatch bool
	// WorkspaceFrom, when set (an absolute directory: a hook event's
	// cwd), chooses the workspace after the state is read, in place of
	// Workspace: of it and its ancestors, the nearest that is the
	// workspace of a bundle the state trusts and enables, else the nearest
	// holding a .bundlectl directory the user owns, else itself.
	// Registry.Workspace says which.
	WorkspaceFrom string
	// FixCommand prints a fix command ("bundlectl review NAME") the way
	// the caller's user can paste it: the CLI adds the --home and
	// --workspace it ran with. It is applied where a fix is written into
	// the text of a reason or a systemMessage; the Fix fields of Inactive,
	// AuthorityError and BlockError stay bare. Nil prints them as they are.
	FixCommand func(cmd string) string
}

// Registry is the immutable set of bundles that were active when it was
// loaded, built from the state file and the snapshots only: no source tree
// is walked or parsed. Every use re-checks the bundle's authority and the
// integrity of its snapshot first.
//
// Locking: r.mu guards the state view (statePath's identity, the state
// and its error), which every check reads first; each entry's mu
// serializes the integrity check and preparation of that bundle and guards
// what they write. The two are never held together — authorize takes r.mu
// for the authority check, releases it, then takes the entry's — so the
// re-hash of one bundle's snapshot never waits for, nor holds up, the
// check of another. The watcher and the fingerprint cache are shared
// without r.mu: watch is an atomic pointer to a watcher that locks
// itself (its lock is the innermost, taken under an entry's), and cache
// is a directory of records written by atomic rename, as concurrent
// bundlectl processes already share it.
type Registry struct {
	opts  Options
	m     *lifecycle.Manager
	store *staging.Store
	cache fingerprint.Cache
	watch atomic.Pointer[watcher] // nil: a fingerprint check before every use

	entries  []*entry
	inactive []Inactive

	docs    map[string]*docRef // "<bundle>:<name>" of skills, commands, agents
	tools   map[string]*toolRef
	servers map[string]*serverRef
	lsps    map[string]*lspRef

	mu        sync.Mutex // guards the state view below; never held with an entry's mu
	statePath string
	stateID   fileID
	state     *state.State
	stateErr  error
}

// Inactive is a bundle the registry did not load, and why. Enabled says
// the user enabled it: such a bundle is reported wherever it would have
// acted (a hook event it has hooks for), never skipped silently.
type Inactive struct {
	Name    string   `json:"name"`
	ID      string   `json:"id"`
	Status  string   `json:"status"`
	Reasons []string `json:"reasons"`
	Fix     string   `json:"fix,omitempty"`
	Enabled bool     `json:"enabled"`
	// Events are the hook events the bundle's receipt has hooks for, when
	// it has a readable receipt.
	Events []string `json:"-"`
	// Gone says the state still trusts and enables it, but its directory
	// is no longer in its root (deleted or moved outside bundlectl:
	// uninstall forgets the state record first), or a bundle that is not
	// active took its name in an earlier root. Its guards block.
	Gone bool `json:"-"`
	// eventsKnown says Events was read from a usable receipt.
	eventsKnown bool
	// receiptUnusable: enabled and trusted, but the receipt cannot be used.
	receiptUnusable bool
}

// Says is the status and reasons in one phrase: "trusted, not enabled",
// not "trusted: trusted, not enabled" when the first reason starts with
// the status word.
func (in Inactive) Says() string {
	switch {
	case len(in.Reasons) > 0 && strings.HasPrefix(in.Reasons[0], in.Status):
		return strings.Join(in.Reasons, "; ")
	case len(in.Reasons) > 0:
		return in.Status + ": " + strings.Join(in.Reasons, "; ")
	}
	return in.Status
}

type entry struct {
	idx      int
	name, id string
	scope    bundle.Scope
	dir      string // the source directory, only ever stat'ed
	rc       receipts.Receipt
	hooks    []inventory.Hook // the inventory's hooks, decoded at load
	// inv is the whole inventory, decoded at load or, in a HooksOnly
	// registry, at first use (inventory).
	inv      *inventory.Inventory
	invOnce  sync.Once
	invErr   error
	snapshot string // derived from the home and the content hash
	data     string // PLUGIN_DATA, made at first use (prepare)

	// mu serializes this bundle's integrity check and preparation, so two
	// concurrent uses cannot both skip or interleave a verification, and
	// guards the fields below. options and settings are written once,
	// before prepared is set under mu, and only read after a prepare that
	// found prepared set: they need no lock to read then.
	mu       sync.Mutex
	options  map[string]string // read at first use (prepare)
	settings map[string]string // of options, those with an envVar, by envVar
	stored   map[string]bool   // of options, those the user stored a value for
	declared map[string]bool   // the options the receipt's inventory declares
	prepared bool

	failed     error  // the last integrity check failed: check again next time
	verified   bool   // an integrity check passed at least once
	checkedGen uint64 // the watcher generation the last passing check proved
	ancestors  []fileID
}

type docRef struct {
	e    *entry
	kind string // skill, command, agent
	doc  inventory.Doc
}

type toolRef struct {
	e    *entry
	tool inventory.Tool
}

type serverRef struct {
	e   *entry
	srv inventory.MCPServer
}

type lspRef struct {
	e   *entry
	srv inventory.LSPServer
}

// Load reads the state file and lists the roots, and returns a registry of
// the bundles that are active now: enabled, holding a receipt whose
// inventory is intact and of this bundlectl's schema, not shadowed, still
// present in their root, applicable to this host and free of inactive
// declarations. What each runs is read from its receipt's inventory and
// its snapshot, never from its source: a source that changed since it was
// trusted is an update awaiting review, and the reviewed snapshot runs.
// Snapshots are checked lazily, at first use. An unusable state file fails
// the whole load: nothing is active.
func Load(opts Options) (*Registry, error) {
	if opts.WorkspaceFrom != "" {
		opts.Workspace = opts.WorkspaceFrom
	}
	if opts.Home == "" || opts.Workspace == "" {
		return nil, errors.New("harness: Options.Home and Options.Workspace are required")
	}
	for _, t := range []time.Duration{opts.ToolTimeout, opts.HookTimeout} {
		if t < 0 || t > MaxTimeout {
			return nil, fmt.Errorf("harness: Options.ToolTimeout and HookTimeout must be between 0 (the default) and %s, not %s", MaxTimeout, t)
		}
	}
	switch opts.Host {
	case "", bundle.HostClaude, bundle.HostCodex, bundle.HostGemini:
	default:
		// An unknown host would match no host manifest's hooks: every
		// guard a Claude Code, Codex or Gemini CLI plugin declares would
		// be skipped without a word.
		return nil, fmt.Errorf("harness: Options.Host %q is not a host bundlectl knows (claude, codex, gemini, or empty for all)", opts.Host)
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
		cache:     fingerprint.Cache{Dir: filepath.Join(opts.Home, "cache", "verified")},
		docs:      map[string]*docRef{},
		tools:     map[string]*toolRef{},
		servers:   map[string]*serverRef{},
		lsps:      map[string]*lspRef{},
		statePath: filepath.Join(opts.Home, "state.json"),
	}
	if !opts.NoWatch {
		if w, err := newWatcher(); err == nil {
			r.watch.Store(w)
		}
	}
	// Fingerprint the state file before reading it, so a write racing the
	// read is seen as a change at the first check.
	r.stateID = statID(r.statePath)
	s, err := r.m.LoadCurrentState()
	if err != nil {
		r.watch.Load().close()
		return nil, err
	}
	r.state = s
	if opts.WorkspaceFrom != "" {
		roots.Workspace = chooseWorkspace(opts.WorkspaceFrom, s)
		r.opts.Workspace = roots.Workspace
		r.m = lifecycle.New(roots, opts.Limits)
	}
	cands, problems := bundle.ListCandidates(roots)
	for _, c := range cands {
		if len(opts.Only) > 0 && !slices.Contains(opts.Only, c.Name) {
			continue
		}
		r.consider(c, s)
	}
	r.considerGone(roots, cands, problems, s)
	return r, nil
}

// loaded reports whether the bundle with this id was loaded (is active).
func (r *Registry) loaded(id string) bool {
	for _, e := range r.entries {
		if e.id == id {
			return true
		}
	}
	return false
}

// considerGone records, as inactive, every bundle the state still trusts
// and enables whose directory in one of these roots is gone: deleted or
// moved outside bundlectl — by a `git clean`, say, or by the agent a guard
// guards. That is not a choice bundlectl can tell from an attack, so its
// guards block the events they guard (Inactive.Blocks) until the
// directory is back or the bundle is revoked or uninstalled. A name an
// active bundle of these roots now holds is that bundle's (the user trusted
// and enabled it); one an inactive bundle holds is not.
//
// A root that was not scanned (a symbolic link put in place of it or of a
// directory above it, an unreadable directory) has the same effect, and
// its problem is named with the reason.
func (r *Registry) considerGone(roots bundle.Roots, cands []bundle.Candidate, problems []bundle.RootProblem, s *state.State) {
	present := make(map[string]bool, len(cands)+len(r.entries))
	for _, c := range cands {
		present[c.ID] = true
	}
	for _, e := range r.entries {
		present[e.name] = true
	}
	owns := roots.Owner()
	for _, id := range s.IDs() {
		name := id[strings.LastIndexByte(id, '/')+1:]
		if present[id] || present[name] || len(r.opts.Only) > 0 && !slices.Contains(r.opts.Only, name) || !owns(id) {
			continue // most often another workspace's bundle
		}
		rec, _ := s.Bundle(id)
		if !rec.Enabled || rec.Receipt == nil {
			continue
		}
		in := Inactive{Name: name, ID: id, Enabled: true, Status: lifecycle.StatusEnabled, Gone: true,
			Fix:     "bundlectl revoke " + name,
			Reasons: []string{"its directory is gone from its root while it is still trusted and enabled (uninstall and revoke forget it): restore the directory to run it again, or revoke it"}}
		for _, p := range problems {
			if strings.HasPrefix(id, string(p.Scope)+"/") {
				in.Reasons[0] += "; its root was not scanned: " + p.Message
			}
		}
		if inv, err := r.decode(rec.Receipt); err == nil {
			in.Events, in.eventsKnown = hookEvents(inv.hooks), true
		}
		r.inactive = append(r.inactive, in)
	}
}

// decoded is what consider reads of a receipt's inventory.
type decoded struct {
	hooks    []inventory.Hook
	when     inventory.When
	inactive []inventory.Inactive
	inv      *inventory.Inventory // nil in a HooksOnly registry
}

// decode reads a receipt's inventory, whole or (HooksOnly) its summary,
// after checking that it is exactly what the capability hash covers.
func (r *Registry) decode(rc *receipts.Receipt) (*decoded, error) {
	if !r.opts.HooksOnly {
		inv, err := receiptInventory(rc)
		if err != nil {
			return nil, err
		}
		return &decoded{hooks: inv.Hooks, when: inv.When, inactive: inv.Inactive, inv: inv}, nil
	}
	if err := checkCapability(rc); err != nil {
		return nil, err
	}
	sum, err := inventory.ParseSummary(rc.Inventory)
	if err != nil {
		return nil, schemaReason(err)
	}
	return &decoded{hooks: sum.Hooks, when: sum.When, inactive: sum.Inactive}, nil
}

// inventory returns e's whole inventory, decoding it at the first call in
// a HooksOnly registry (its capability hash was checked at load).
func (e *entry) inventory() (*inventory.Inventory, error) {
	e.invOnce.Do(func() {
		if e.inv == nil {
			inv, err := inventory.Parse(e.rc.Inventory)
			e.inv, e.invErr = inv, schemaReason(err)
		}
	})
	return e.inv, e.invErr
}

// inventoryCopy is the bundle's inventory as a value the caller owns: a
// fresh parse of the receipt's, so that changing what Active or Bundles
// returned changes nothing the registry runs or blocks.
func (e *entry) inventoryCopy() (*inventory.Inventory, error) {
	if _, err := e.inventory(); err != nil {
		return nil, err
	}
	inv, err := inventory.Parse(e.rc.Inventory)
	return inv, schemaReason(err)
}

// consider admits one candidate or records why it is inactive. It reads
// nothing of the candidate's directory.
func (r *Registry) consider(c bundle.Candidate, s *state.State) {
	rec, _ := s.Bundle(c.ID)
	in := Inactive{Name: c.Name, ID: c.ID, Enabled: rec.Enabled}
	var inv *decoded
	var invErr error
	if rec.Receipt != nil {
		inv, invErr = r.decode(rec.Receipt)
		if inv != nil {
			in.Events, in.eventsKnown = hookEvents(inv.hooks), true
		}
	}
	inactive := func(status, fix string, reasons ...string) {
		in.Status, in.Fix, in.Reasons = status, fix, reasons
		r.inactive = append(r.inactive, in)
	}
	switch {
	case c.ShadowedBy != "":
		if rec.Enabled && rec.Receipt != nil && !r.loaded(c.ShadowedBy) {
			// A bundle that does not run took the name of one meant to:
			// an empty directory would switch a guard off. Not the
			// user's choice until they trust and enable the new one:
			// the fix reviews it (the name finds the one that shadows).
			in.Gone = true
			inactive(lifecycle.StatusShadowed, "bundlectl review "+bundle.ShellArg(c.Name), "shadowed by "+c.ShadowedBy+", which has the same name and an earlier root but is not active, while this one is still trusted and enabled: its guards block until that one is trusted and enabled, or removed")
			return
		}
		inactive(lifecycle.StatusShadowed, "bundlectl show "+bundle.ShellArg(c.Name), "shadowed by "+c.ShadowedBy+", which has the same name and an earlier root")
		return
	case rec.Receipt == nil:
		reason, hint := lifecycle.NotTrusted(c.Name, c.Dir)
		reasons := []string{reason}
		if rec.Enabled {
			reasons = append(reasons, "enabled, but inactive until it is trusted again")
		}
		inactive(lifecycle.StatusUntrusted, hint, reasons...)
		return
	case !rec.Enabled:
		inactive(lifecycle.StatusTrusted, "bundlectl enable "+bundle.ShellArg(c.Name), "trusted, not enabled")
		return
	case inv == nil:
		in.receiptUnusable = true
		inactive(lifecycle.StatusEnabled, "bundlectl review "+bundle.ShellArg(c.Name), "its receipt cannot be used by this bundlectl ("+invErr.Error()+"): review it and trust it again")
		return
	case len(inv.inactive) > 0:
		inactive(lifecycle.StatusBlocked, "bundlectl show "+bundle.ShellArg(c.Name), "declares inactive surfaces bundlectl does not run")
		return
	}
	if why := lifecycle.Applies(bundle.When{OS: inv.when.OS, Binaries: inv.when.Binaries}); why != "" {
		inactive(lifecycle.StatusEnabled, "", "enabled and trusted, but "+why)
		return
	}
	e := &entry{
		idx: len(r.entries), name: c.Name, id: c.ID, scope: c.Scope, dir: c.Dir,
		rc: *rec.Receipt, hooks: inv.hooks, inv: inv.inv,
		snapshot: r.store.Path(rec.Receipt.ContentHash),
		data:     dataPath(r.opts.Home, c.ID),
	}
	if e.inv != nil {
		r.admit(e)
	}
	r.entries = append(r.entries, e)
}

// receiptInventory decodes a receipt's inventory and checks that it is
// exactly what the capability hash covers.
func receiptInventory(rc *receipts.Receipt) (*inventory.Inventory, error) {
	if err := checkCapability(rc); err != nil {
		return nil, err
	}
	inv, err := inventory.Parse(rc.Inventory)
	if err != nil {
		return nil, schemaReason(err)
	}
	return inv, nil
}

// checkCapability checks that a receipt's inventory is exactly what its
// capability hash covers.
func checkCapability(rc *receipts.Receipt) error {
	if inventory.Digest(rc.Inventory) != rc.CapabilityHash {
		return errors.New("its inventory does not match its capability hash")
	}
	return nil
}

// schemaReason says what an inventory of another schema means to the
// user; other errors are returned as they are.
func schemaReason(err error) error {
	if errors.Is(err, inventory.ErrSchema) {
		return errors.New("it was trusted by an older bundlectl")
	}
	return err
}

func hookEvents(hooks []inventory.Hook) []string {
	var evs []string
	for _, h := range hooks {
		if !slices.Contains(evs, h.Event) {
			evs = append(evs, h.Event)
		}
	}
	return evs
}

// admit indexes an active bundle's components.
func (r *Registry) admit(e *entry) {
	for kind, ds := range map[string][]inventory.Doc{"skill": e.inv.Skills, "command": e.inv.Commands, "agent": e.inv.Agents} {
		for _, d := range ds {
			r.docs[e.name+":"+d.Name] = &docRef{e: e, kind: kind, doc: d}
		}
	}
	for _, t := range e.inv.Tools {
		r.tools[ToolName(e.name, t.Name)] = &toolRef{e: e, tool: t}
	}
	for _, s := range e.inv.MCPServers {
		name := ServerName(e.name, s.Name)
		if _, dup := r.servers[name]; dup && len(s.Hosts) > 0 && !slices.Contains(s.Hosts, string(bundle.HostClaude)) {
			continue // one name described per host: the Claude Code one is bundlectl's
		}
		r.servers[name] = &serverRef{e: e, srv: s}
	}
	for _, l := range e.inv.LSPServers {
		r.lsps[ServerName(e.name, l.Name)] = &lspRef{e: e, srv: l}
	}
}

// ToolName is the name a tool is exposed under: plugin__<bundle>__<tool>.
func ToolName(bundleName, tool string) string { return "plugin__" + bundleName + "__" + tool }

// ServerName is the name an MCP or LSP server is exposed under:
// plugin-<len(bundle)>-<bundle>-<server>. The length makes the split
// unambiguous although both names may contain hyphens.
func ServerName(bundleName, server string) string {
	return fmt.Sprintf("plugin-%d-%s-%s", len(bundleName), bundleName, server)
}

// dataPath returns PLUGIN_DATA for a bundle id. It depends only on the
// id, so it survives updates of the bundle.
func dataPath(home, id string) string {
	return filepath.Join(home, "data", filepath.FromSlash(id))
}

// prepare makes the bundle's data directory and reads its configured
// options, once, at its first use: a bundle the process never uses costs
// nothing (a hook event no hook of it matches touches neither). The
// caller holds e.mu.
func (r *Registry) prepare(e *entry) error {
	if e.prepared {
		return nil
	}
	if err := makeDataDir(r.opts.Home, e.data); err != nil {
		return refuse(e.name, ErrNotActive, "bundlectl show "+bundle.ShellArg(e.name), "its data directory cannot be made: %v", err)
	}
	values := readOptions(r.opts.Home, e.id)
	e.options, e.settings = reviewedOptions(e, values)
	e.stored, e.declared = storedOptions(e, values)
	e.prepared = true
	return nil
}

// reviewedOptions keeps the stored values of the options the receipt's
// inventory declares: a value stored for an option only an update pending
// review declares, for one a later trusted version no longer declares, or
// for an earlier bundle that held the same id, reaches no process. An
// option the user has not set takes the default the review showed (a
// string, number or boolean). settings are those of them a Gemini CLI
// setting exports under its envVar, by that name.
func reviewedOptions(e *entry, values map[string]optvalue.Value) (options, settings map[string]string) {
	inv, err := e.inventory()
	if err != nil || len(inv.UserConfig) == 0 {
		return nil, nil
	}
	options = map[string]string{}
	for _, o := range inv.UserConfig {
		// As Claude Code passes a value: String(value), so a list (a
		// multiple option) is its values joined with ",", and a number
		// stored as "5.0" or "0x10" (by hand, or an earlier bundlectl) is
		// 5 or 16. A text Number() refuses goes as stored.
		stored, ok := values[o.Key]
		v := optvalue.ProcessText(o, stored)
		if !ok {
			v, ok = o.DefaultValue()
		}
		if ok {
			options[o.Key] = v
			if o.EnvVar != "" {
				if settings == nil {
					settings = map[string]string{}
				}
				settings[o.EnvVar] = v
			}
		}
	}
	return options, settings
}

// storedOptions are the options the receipt's inventory declares that
// the user stored a value for, and all it declares: Claude Code expands an
// exec-form hook's ${user_config.KEY} only from a stored value, never from
// the default the manifest declares (internal/agenttest
// TestClaudeHookOptionScopes).
func storedOptions(e *entry, values map[string]optvalue.Value) (stored, declared map[string]bool) {
	inv, err := e.inventory()
	if err != nil {
		return nil, nil
	}
	stored, declared = map[string]bool{}, map[string]bool{}
	for _, o := range inv.UserConfig {
		declared[o.Key] = true
		if _, ok := values[o.Key]; ok {
			stored[o.Key] = true
		}
	}
	return stored, declared
}

// makeDataDir creates dir, a bundle's PLUGIN_DATA below home, owner-only
// (0700) down from home, and refuses one that is not a directory.
func makeDataDir(home, dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for p := dir; p != home && len(p) > len(home); p = filepath.Dir(p) {
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if !fi.IsDir() || fi.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("plugin data directory %q is not a directory", p)
		}
		if fi.Mode().Perm() != 0o700 {
			if err := os.Chmod(p, 0o700); err != nil {
				return err
			}
		}
	}
	return nil
}

// Close releases the change notification. Checks made after Close (by a
// child still being supervised) fall back to fingerprint checks.
func (r *Registry) Close() error {
	r.watch.Swap(nil).close()
	return nil
}

// fileID identifies one version of a file: rename-based writes always
// change the inode, and every write changes ctime.
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

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Ready reports whether the bundle named name was loaded and passes its
// authority and integrity check now; if not, the error names the status
// and the fix.
func (r *Registry) Ready(name string) error {
	for _, e := range r.entries {
		if e.name == name {
			return r.authorize(e)
		}
	}
	return r.Loaded(name)
}

// Loaded reports whether the bundle named name was loaded, without
// checking it again (every use does that); if it was not, the error names
// its status and the fix.
func (r *Registry) Loaded(name string) error {
	for _, e := range r.entries {
		if e.name == name {
			return nil
		}
	}
	// A bundle of this name that is meant to run and cannot (Gone) is
	// named first: an untrusted bundle that took its name must not make
	// its guard's refusal look like the user's choice.
	inactive := slices.Clone(r.inactive)
	slices.SortStableFunc(inactive, func(a, b Inactive) int {
		switch {
		case a.Gone == b.Gone:
			return 0
		case a.Gone:
			return -1
		}
		return 1
	})
	for _, in := range inactive {
		if in.Name == name {
			reason := in.Says()
			fix := in.Fix
			if fix == "" {
				fix = "bundlectl show " + name
			}
			if in.Gone {
				// Not the user's choice: its guards block (ErrRemoved).
				return refuse(name, ErrRemoved, fix, "it is not active: %s", reason)
			}
			if in.receiptUnusable {
				return refuse(name, ErrReceiptUnusable, fix, "it is not active: %s", reason)
			}
			return refuse(name, ErrNotActive, fix, "it is not active: %s", reason)
		}
	}
	return &UnknownError{What: "bundle", Name: name}
}

// Workspace is the workspace the registry serves (Options.WorkspaceFrom
// chooses it).
func (r *Registry) Workspace() string { return r.opts.Workspace }

// Inactive returns the bundles the registry did not load. The result is a
// copy: changing it does not change what the registry blocks.
func (r *Registry) Inactive() []Inactive {
	out := slices.Clone(r.inactive)
	for i := range out {
		out[i].Reasons = slices.Clone(out[i].Reasons)
		out[i].Events = slices.Clone(out[i].Events)
	}
	return out
}

// ActiveBundle is one loaded bundle as a host adapter needs it: what was
// reviewed (the inventory), the snapshot it runs from, and the data and
// option values its processes get.
type ActiveBundle struct {
	Name      string
	ID        string
	Scope     bundle.Scope
	Token     receipts.Token
	Snapshot  string
	Data      string
	Inventory *inventory.Inventory
	// Off lists the components the user switched off.
	Off []state.Switch
	// Options are the values of the user options the receipt declares:
	// the configured one, else the default the review showed; an option
	// with neither is absent. A host view puts them where the host would
	// read them only for a remote MCP server (hosts.Bundle.RemoteServer).
	Options map[string]string
}

// Active returns the loaded bundles in precedence order, each re-checked
// (authority and snapshot) now; a bundle that fails its check is left out
// and its error returned in refused.
func (r *Registry) Active() (active []ActiveBundle, refused map[string]error) {
	refused = map[string]error{}
	for _, e := range r.entries {
		if err := r.authorize(e); err != nil {
			refused[e.name] = err
			continue
		}
		r.mu.Lock()
		rec, _ := r.state.Bundle(e.id)
		r.mu.Unlock()
		inv, _ := e.inventoryCopy() // parsed: authorize checked it
		options, _ := reviewedOptions(e, readOptions(r.opts.Home, e.id))
		active = append(active, ActiveBundle{
			Name: e.name, ID: e.id, Scope: e.scope, Token: e.rc.Token(), Snapshot: e.snapshot,
			Data: e.data, Inventory: inv, Off: rec.Off, Options: options,
		})
	}
	return active, refused
}
