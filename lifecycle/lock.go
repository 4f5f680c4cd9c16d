package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lockfile"
	"github.com/bundlectl/bundlectl/receipts"
	"github.com/bundlectl/bundlectl/sources"
	"github.com/bundlectl/bundlectl/state"
)

// LockOptions tune Lock.
type LockOptions struct {
	// Scope restricts the lockfile to one root ("" : user and workspace).
	Scope bundle.Scope
	// AllowUnpinned also locks bundles whose source has no pin (a local
	// directory): sync then copies whatever that path holds on the other
	// machine, and only the token check decides.
	AllowUnpinned bool
	// Drop names the entries of the lockfile being replaced that may be
	// dropped although their bundles are simply not installed here (a
	// bundle uninstalled on purpose). Without it such an entry makes
	// Lock refuse (*LockDropError): it may as well be a clone that was
	// never synced, and the entry the team's.
	Drop []string
}

// HomeMissingError is Lock's refusal in a home that does not exist (a
// mistyped --home or BUNDLECTL_HOME): nothing is trusted there, so the
// lockfile would be rewritten empty.
type HomeMissingError struct {
	Home, Lockfile string
	Entries        int // in the lockfile being replaced, of the roots locked
}

func (e *HomeMissingError) Error() string {
	lost := "nothing would be locked"
	switch {
	case e.Entries == 1:
		lost = "its 1 entry would be dropped"
	case e.Entries > 1:
		lost = fmt.Sprintf("its %d entries would be dropped", e.Entries)
	}
	return fmt.Sprintf("%s is not written: the home %s does not exist, so nothing is installed or trusted there and %s; give the right --home (or BUNDLECTL_HOME), or install or sync into this one first", bundle.Quote(e.Lockfile), bundle.Quote(e.Home), lost)
}

// LockDropError is Lock's refusal to drop entries of the lockfile being
// replaced whose bundles are not installed here and that opts.Drop does
// not name.
type LockDropError struct {
	Lockfile string
	Entries  []lockfile.Bundle
	// Unlockable: entries whose bundles are installed here but cannot be
	// locked (not trusted here, no source recorded by this home, ...),
	// each with the reason.
	Unlockable []Skipped
	// Command is the lock command that drops them on purpose.
	Command string
}

func entries(n int) string {
	if n == 1 {
		return "1 entry"
	}
	return fmt.Sprintf("%d entries", n)
}

func (e *LockDropError) Error() string {
	var why []string
	if len(e.Entries) > 0 {
		var names []string
		for _, b := range e.Entries {
			names = append(names, fmt.Sprintf("%s (%s)", bundle.Quote(b.Name), b.Scope))
		}
		why = append(why, fmt.Sprintf("%s for bundles not installed here: %s", entries(len(e.Entries)), strings.Join(names, ", ")))
	}
	if len(e.Unlockable) > 0 {
		var names []string
		for _, b := range e.Unlockable {
			names = append(names, fmt.Sprintf("%s (%s): %s", bundle.Quote(b.Name), b.Scope, b.Reason))
		}
		why = append(why, fmt.Sprintf("%s for bundles installed here that this home cannot lock: %s", entries(len(e.Unlockable)), strings.Join(names, "; ")))
	}
	return fmt.Sprintf("%s is not replaced: the new lockfile would drop %s; to keep them, sync them into this home (bundlectl sync --locked installs and trusts exactly the locked trees — not what you want for a bundle you uninstalled or revoked on purpose); to drop them on purpose, name each (%s)",
		bundle.Quote(e.Lockfile), strings.Join(why, ", and "), e.Command)
}

// Hint is the next step that loses nothing the user did not decide: sync
// installs and trusts what the lockfile holds when an entry's bundle is
// missing here or was placed by another home; when every entry is of a
// bundle this home installed and left untrusted or unlockable (a revoke,
// a decision of this home), sync would undo that, and the hint is the
// lock that drops them.
func (e *LockDropError) Hint() string {
	if len(e.Entries) > 0 {
		return "bundlectl sync --locked"
	}
	for _, u := range e.Unlockable {
		if !u.recorded {
			return "bundlectl sync --locked"
		}
	}
	return e.Command
}

// LockDropUnknownError: a name given to drop is not an entry of the
// lockfile being replaced whose bundle is missing here (a typo would
// otherwise pass for a drop).
type LockDropUnknownError struct {
	Lockfile string
	Names    []string // quoted
}

func (e *LockDropUnknownError) Error() string {
	return fmt.Sprintf("--drop %s: %s holds no entry by that name for a bundle this home does not lock, so nothing is written (a bundle this home locks is left out by uninstalling or revoking it)", strings.Join(e.Names, ", "), bundle.Quote(e.Lockfile))
}

// LockedBundle is one bundle written to the lockfile (JSON: one element
// of `bundlectl lock --json`'s "bundles").
type LockedBundle struct {
	Name    string           `json:"name"`
	Scope   bundle.Scope     `json:"scope"`
	Source  sources.Resolved `json:"source"`
	Token   receipts.Token   `json:"token"`
	Enabled bool             `json:"enabled"`
	// Local: the source names a path on this machine (a local repository
	// or a file:// URL); another machine needs the same path.
	Local bool `json:"local,omitempty"`
}

// Skipped is a bundle Lock left out, and why.
type Skipped struct {
	Name   string       `json:"name"`
	Scope  bundle.Scope `json:"scope"`
	Reason string       `json:"reason"`
	// recorded: this home recorded the bundle's source (it installed it).
	recorded bool
}

// LockResult is what Lock wrote.
type LockResult struct {
	Path    string         `json:"path"`
	Bundles []LockedBundle `json:"bundles"`
	Skipped []Skipped      `json:"skipped"`
	Notes   []string       `json:"notes"`
}

// LockPath is the workspace's lockfile.
func (m *Manager) LockPath() (string, error) {
	if m.Roots.Workspace == "" {
		return "", errors.New("no workspace: pass --workspace DIR")
	}
	return filepath.Join(m.Roots.Workspace, lockfile.FileName), nil
}

// unpinned reports whether r's content is not pinned: a directory, or a
// marketplace plugin copied from a directory.
func unpinned(r sources.Resolved) bool {
	switch r.Kind {
	case sources.KindDir:
		return true
	case sources.KindMarketplace:
		return r.Commit == ""
	}
	return false
}

// local reports whether r names something on this machine.
func local(r sources.Resolved) bool {
	isLocal := func(url, path string) bool { return path != "" || strings.HasPrefix(strings.ToLower(url), "file:") }
	if m := r.Marketplace; m != nil && isLocal(m.URL, m.Path) {
		return true
	}
	return isLocal(r.URL, r.Path)
}

// Lock writes <workspace>/bundlectl.lock: every trusted, unshadowed bundle
// of the user and workspace roots that has a recorded source and whose
// source is exactly what was trusted, with its resolved source, its token
// and its enabled bit. A bundle with an update pending review keeps the
// entry the existing lockfile has for it when that entry's token is still
// the receipt's (the reviewed source has not changed). Every other bundle
// is skipped with the reason: not trusted, placed by hand (no source), an
// update pending review, a tampered snapshot, or an unpinned directory
// source (unless opts.AllowUnpinned). An existing lockfile that cannot be
// read is not replaced. Nothing is written in a home that does not exist
// (*HomeMissingError), nor when an entry of the lockfile being replaced is
// for a bundle not installed here and opts.Drop does not name it
// (*LockDropError: a clone never synced looks the same as a bundle
// uninstalled on purpose); a name in opts.Drop that is no such entry is
// *LockDropUnknownError.
func (m *Manager) Lock(opts LockOptions) (*LockResult, error) {
	path, err := m.LockPath()
	if err != nil {
		return nil, err
	}
	_, herr := os.Lstat(m.Roots.Home)
	s, err := m.LoadState()
	if err != nil {
		return nil, err
	}
	// The lockfile being replaced: an entry whose token is still the
	// receipt's survives an update pending review.
	prev := &lockfile.File{}
	if _, err := os.Lstat(path); err == nil {
		if prev, err = lockfile.Read(path); err != nil {
			return nil, fmt.Errorf("the existing lockfile cannot be read, so it is not replaced: %w", err)
		}
	}
	if errors.Is(herr, fs.ErrNotExist) {
		// A mistyped home: what it would write is empty, and a team's
		// lockfile would lose every entry.
		n := 0
		for _, b := range prev.Bundles {
			if opts.Scope == "" || b.Scope == opts.Scope {
				n++
			}
		}
		return nil, &HomeMissingError{Home: m.Roots.Home, Lockfile: path, Entries: n}
	}
	out := &LockResult{Path: path, Bundles: []LockedBundle{}, Skipped: []Skipped{}, Notes: []string{}}
	f := &lockfile.File{}
	for _, b := range m.Discover().Bundles {
		if b.Scope != bundle.ScopeUser && b.Scope != bundle.ScopeWorkspace || opts.Scope != "" && b.Scope != opts.Scope {
			continue
		}
		rec, _ := s.Bundle(b.ID)
		skip := func(why string) {
			out.Skipped = append(out.Skipped, Skipped{Name: b.Name, Scope: b.Scope, Reason: why, recorded: len(rec.Source) > 0})
		}
		if b.ShadowedBy != "" {
			skip("shadowed by " + b.ShadowedBy)
			continue
		}
		if rec.Receipt == nil {
			skip(notTrusted)
			continue
		}
		src, err := RecordedSource(rec)
		if err != nil {
			skip(err.Error())
			continue
		}
		if src == nil {
			skip(handPlaced)
			continue
		}
		if unpinned(*src) && !opts.AllowUnpinned {
			skip("its source is a directory, which has no pin (" + src.String() + "); " + unpinnedFix)
			continue
		}
		if err := m.CheckSnapshot(rec.Receipt.ContentHash); err != nil {
			skip("its snapshot failed its integrity check: " + err.Error())
			continue
		}
		lb := lockfile.Bundle{Name: b.Name, Scope: b.Scope, Source: *src, Token: rec.Receipt.Token(), Enabled: rec.Enabled}
		if h, err := m.SourceHashes(b); err != nil || h.Token() != rec.Receipt.Token() {
			// The recorded source is the update, not what was trusted.
			old, ok := prev.Lookup(b.Name)
			if !ok || old.Scope != b.Scope || old.Token != rec.Receipt.Token() {
				skip("update pending review: its source is not what was trusted; review and trust it first")
				continue
			}
			lb.Source = old.Source
			out.Notes = append(out.Notes, fmt.Sprintf("%s has an update pending review: its entry is kept as it was locked", bundle.Quote(b.Name)))
		} else if sr, err := decodeSourceRecord(rec); err == nil && sr.Tree != "" && sr.Tree != rec.Receipt.ContentHash.String() {
			// What was trusted is an edit of what was installed: the
			// source cannot give it back, and sync would refuse it.
			skip("edited in its root after it was installed, and trusted as edited: its source does not reproduce what was trusted; put the edits in its source, then update and trust it (bundlectl update --discard-local " + b.Name + ")")
			continue
		}
		f.Bundles = append(f.Bundles, lb)
		out.Bundles = append(out.Bundles, LockedBundle{Name: lb.Name, Scope: lb.Scope, Source: lb.Source, Token: lb.Token, Enabled: lb.Enabled, Local: local(*src)})
	}
	// The lockfile being replaced may name bundles this machine does not
	// have: none is dropped without a word, and --scope leaves the other
	// root's entries as they were.
	named := map[string]bool{}
	for _, lb := range out.Bundles {
		named[string(lb.Scope)+"/"+lb.Name] = true
	}
	skipped := map[string]int{}
	for i, sk := range out.Skipped {
		skipped[string(sk.Scope)+"/"+sk.Name] = i
	}
	drop := map[string]bool{}
	for _, n := range opts.Drop {
		drop[n] = true
	}
	var missing []lockfile.Bundle
	var unlockable []Skipped
	for _, old := range prev.Bundles {
		key := string(old.Scope) + "/" + old.Name
		sk, isSkipped := skipped[key]
		switch {
		case named[key]:
		case isSkipped && drop[old.Name]:
			// Installed here but not lockable (not trusted here, ...):
			// dropped as asked, and said so.
			delete(drop, old.Name)
			out.Skipped[sk].Reason += "; its entry in the lockfile being replaced is dropped, as --drop asked"
		case isSkipped:
			// Installed here, but this home cannot lock it: a revoke
			// here, or a tree another home synced and this one never
			// trusted. The team's entry is not dropped without a word.
			unlockable = append(unlockable, out.Skipped[sk])
		case opts.Scope != "" && old.Scope != opts.Scope:
			f.Bundles = append(f.Bundles, old)
			out.Bundles = append(out.Bundles, LockedBundle{Name: old.Name, Scope: old.Scope, Source: old.Source, Token: old.Token, Enabled: old.Enabled, Local: local(old.Source)})
			out.Notes = append(out.Notes, fmt.Sprintf("%s (%s) is kept as it was locked: --scope %s leaves the other root's entries alone", bundle.Quote(old.Name), old.Scope, opts.Scope))
		case drop[old.Name]:
			// Dropped as asked: an entry the user uninstalled on
			// purpose (a bundle found to be malicious) must not come
			// back to every teammate through sync.
			delete(drop, old.Name)
			out.Skipped = append(out.Skipped, Skipped{Name: old.Name, Scope: old.Scope, Reason: "in the lockfile being replaced, but not installed in the " + string(old.Scope) + " root here: its entry is dropped, as --drop asked"})
		default:
			// Not installed here: uninstalled on purpose, or a clone
			// never synced — the state cannot tell, so only the user
			// may drop it.
			missing = append(missing, old)
		}
	}
	if len(missing) > 0 || len(unlockable) > 0 {
		cmd := "bundlectl lock"
		if opts.Scope != "" {
			cmd += " --scope " + string(opts.Scope)
		}
		if opts.AllowUnpinned {
			cmd += " --allow-unpinned"
		}
		for _, n := range opts.Drop {
			cmd += " --drop " + bundle.ShellArg(n)
		}
		for _, b := range missing {
			cmd += " --drop " + bundle.ShellArg(b.Name)
		}
		for _, b := range unlockable {
			cmd += " --drop " + bundle.ShellArg(b.Name)
		}
		return nil, &LockDropError{Lockfile: path, Entries: missing, Unlockable: unlockable, Command: cmd}
	}
	if len(drop) > 0 {
		var names []string
		for _, n := range opts.Drop {
			if drop[n] {
				names = append(names, bundle.Quote(n))
			}
		}
		return nil, &LockDropUnknownError{Lockfile: path, Names: names}
	}
	if len(f.Bundles) == 0 && len(opts.Drop) == 0 {
		// A lockfile of no bundle syncs nothing and reads as if the work
		// were done; only dropping the last entries on purpose writes one.
		return nil, &LockEmptyError{Lockfile: path, Skipped: out.Skipped, Scope: opts.Scope}
	}
	if err := lockfile.Write(path, f); err != nil {
		return nil, err
	}
	return out, nil
}

// notTrusted is the reason Lock skips a bundle with no receipt.
const notTrusted = "not trusted"

// handPlaced is the reason Lock skips a bundle this home has no source
// recorded for: one copied into its root by hand, or installed by another
// home.
const handPlaced = "placed in its root by hand: no recorded source to lock (install it with bundlectl install)"

// unpinnedFix ends the reason Lock skips a trusted bundle from a directory.
const unpinnedFix = "lock a git or archive source, or pass --allow-unpinned"

// LockEmptyError is Lock's refusal to write a lockfile that would hold no
// bundle: nothing is installed, or nothing installed can be locked (not
// trusted, no recorded source, ...). Skipped says why for each bundle.
type LockEmptyError struct {
	Lockfile string
	Skipped  []Skipped
	Scope    bundle.Scope // the --scope given, if any
}

func (e *LockEmptyError) Error() string {
	where := "the user and workspace roots"
	if e.Scope != "" {
		where = "the " + string(e.Scope) + " root"
	}
	if len(e.Skipped) == 0 {
		return fmt.Sprintf("%s is not written: nothing is installed in %s, so it would lock no bundle; install and trust a bundle first", bundle.Quote(e.Lockfile), where)
	}
	var why []string
	for _, s := range e.Skipped {
		why = append(why, fmt.Sprintf("%s (%s): %s", bundle.Quote(s.Name), s.Scope, s.Reason))
	}
	return fmt.Sprintf("%s is not written: no bundle in %s can be locked, so it would lock none: %s", bundle.Quote(e.Lockfile), where, strings.Join(why, "; "))
}

// Hint reviews the first bundle that is not trusted and whose source this
// home recorded (trusting it makes it lockable), else locks the trusted
// bundles from a directory with --allow-unpinned, else, where this home
// recorded no source for a bundle (placed by hand, or installed by another
// home), shows how to install one from its source (no review or trust makes
// such a bundle lockable), or lists what is installed.
func (e *LockEmptyError) Hint() string {
	for _, s := range e.Skipped {
		if s.Reason == notTrusted && s.recorded {
			return "bundlectl review " + bundle.Operands(s.Name)
		}
	}
	for _, s := range e.Skipped {
		if strings.HasSuffix(s.Reason, unpinnedFix) {
			cmd := "bundlectl lock"
			if e.Scope != "" {
				cmd += " --scope " + string(e.Scope)
			}
			return cmd + " --allow-unpinned"
		}
	}
	for _, s := range e.Skipped {
		// Neither review nor trust gives such a bundle a source to lock.
		if s.Reason == handPlaced || s.Reason == notTrusted && !s.recorded {
			return "bundlectl install --help"
		}
	}
	return "bundlectl list"
}

// SyncOptions tune SyncLocked.
type SyncOptions struct {
	// Timeout bounds each fetch (sources.DefaultTimeout when zero).
	Timeout time.Duration
}

// SyncedBundle is one bundle SyncLocked installed or found in place.
type SyncedBundle struct {
	Name  string         `json:"name"`
	Scope bundle.Scope   `json:"scope"`
	ID    string         `json:"id"`
	Path  string         `json:"path"`
	Token receipts.Token `json:"token"`
	// Action: "installed" (fetched and placed), or "present" (already in
	// its root with exactly the locked token).
	Action  string `json:"action"`
	Trusted bool   `json:"trusted"` // trusted by this sync (false: it already was)
	Enabled bool   `json:"enabled"`
}

// SyncProblem names a locked bundle that could not be synced.
type SyncProblem struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
	// Mismatch: what was fetched (or is installed) is not what the
	// lockfile pins, or breaks a rule; otherwise the fetch failed.
	Mismatch bool `json:"mismatch"`
	// Err is the failure itself (a *sources.Error for a fetch), for a
	// caller that branches on it; Reason is its text.
	Err error `json:"-"`
}

// SyncResult is the outcome of SyncLocked.
type SyncResult struct {
	Lockfile string         `json:"lockfile"`
	Bundles  []SyncedBundle `json:"bundles"`
	Problems []SyncProblem  `json:"problems"`
}

// SyncError reports a sync that trusted nothing.
type SyncError struct{ Problems []SyncProblem }

func (e *SyncError) Error() string {
	var names []string
	for _, p := range e.Problems {
		names = append(names, bundle.Quote(p.Name))
	}
	return fmt.Sprintf("nothing was installed or trusted: %d bundle(s) of the lockfile could not be synced exactly: %s", len(e.Problems), strings.Join(names, ", "))
}

// Unwrap makes a sync with any mismatch a refusal (exit 3).
func (e *SyncError) Unwrap() error {
	for _, p := range e.Problems {
		if p.Mismatch {
			return ErrRefused
		}
	}
	return nil
}

// testOnlyAfterStaging, when set, runs between staging the snapshots and
// the state update that places the trees.
var testOnlyAfterStaging func()

type syncItem struct {
	lb      lockfile.Bundle
	root    string
	holder  *tmpHolder // where the fetched tree is (nil when present)
	dir     string     // its name in holder ("" when present)
	present *bundle.Bundle
	tree    *bundle.Tree // the fetched tree, checked against the token
}

// SyncLocked installs exactly the bundles of the lockfile at path and
// trusts each only if the token recomputed from what was fetched equals
// the locked one; it enables those locked enabled. It is all or nothing:
// first every bundle is fetched at its pins (sources.FetchLocked) and
// checked — a fetch that fails, a tree that breaks a rule, a token that
// differs, a name held by other content — and any problem discards
// everything, trusts nothing and names each bundle (a *SyncError). Then
// every fetched bundle's snapshot is staged, and in one update under the
// state lock every fetched tree is renamed into its root, its source
// recorded, its token checked once more and its receipt recorded; an
// error there moves every tree back out. A bundle already installed with exactly the locked token is kept
// (and trusted, if it was not; given the lockfile's source, if it has
// none — what a sync killed before its state write leaves). A failed sync
// removes again the home and roots it created (removeFresh).
func (m *Manager) SyncLocked(ctx context.Context, path string, opts SyncOptions) (_ *SyncResult, err error) {
	lf, err := lockfile.Read(path)
	if err != nil {
		return nil, err
	}
	out := &SyncResult{Lockfile: path, Bundles: []SyncedBundle{}, Problems: []SyncProblem{}}
	if len(lf.Bundles) == 0 {
		// Nothing to do: no home is created for it.
		return out, nil
	}
	// What a failed sync created (the home, a root, a workspace's
	// .bundlectl) is removed again, as for a failed install; the defer
	// runs after the fetch lock is released.
	fresh := missingDirs(m.Roots.Home)
	for _, sc := range []bundle.Scope{bundle.ScopeUser, bundle.ScopeWorkspace} {
		if r, rerr := m.rootDir(sc); rerr == nil {
			fresh = append(fresh, missingDirs(filepath.Dir(r), r)...)
		}
	}
	defer func() {
		if err != nil {
			m.removeFresh(fresh)
		}
	}()
	unlock, err := m.lockFetchesFresh(&fresh)
	if err != nil {
		return nil, err
	}
	defer unlock()
	for _, lb := range lf.Bundles {
		if lb.Scope != bundle.ScopeWorkspace {
			continue
		}
		if r, rerr := m.rootDir(bundle.ScopeWorkspace); rerr == nil {
			unlockWS, err := m.lockWorkspaceDir(r, &fresh)
			if err != nil {
				return nil, err
			}
			defer unlockWS()
		}
		break
	}
	defer func() {
		if err != nil {
			m.noteFresh(fresh) // while the locks are held, as Install does
		} else {
			m.clearFresh(fresh)
		}
	}()
	var items []*syncItem
	var holders []*tmpHolder
	defer func() {
		for _, h := range holders {
			h.remove()
		}
	}()
	problem := func(name string, mismatch bool, format string, args ...any) {
		out.Problems = append(out.Problems, SyncProblem{Name: name, Mismatch: mismatch, Reason: fmt.Sprintf(format, args...)})
	}
	for _, lb := range lf.Bundles {
		root, err := m.rootDir(lb.Scope)
		if err == nil {
			addFresh(&fresh, missingDirs(root)...) // as Install: removed since it was looked for
			err = ensureRoot(root, lb.Scope)
			m.noteFresh(fresh) // before anything goes in, as Install
		}
		if err != nil {
			problem(lb.Name, false, "%v", err)
			continue
		}
		if c := m.nameClash(lb.Scope, root, lb.Name); c != nil {
			have, inRoot := taken(root, lb.Name)
			if !inRoot || have != lb.Name {
				// The install-side reason offers --name, which a lockfile
				// entry cannot take: its name is part of what is locked.
				if by, ok := m.shadowedBy(lb.Scope, lb.Name); ok && !inRoot {
					problem(lb.Name, true, "the %s root's bundle %s would shadow it, so it could never become active; uninstall that one (bundlectl uninstall --scope %s %s), or take this entry out of the lockfile", by.Scope, bundle.Quote(by.Name), by.Scope, bundle.ShellArg(by.Name))
				} else {
					problem(lb.Name, true, "the %s root holds %s, which collides with it (names are compared under Unicode normalisation and case folding); uninstall that one (bundlectl uninstall --scope %s %s), or take this entry out of the lockfile", lb.Scope, bundle.Quote(have), lb.Scope, bundle.ShellArg(have))
				}
				continue
			}
			if by, ok := m.shadowedBy(lb.Scope, lb.Name); ok {
				// As trust and enable refuse it: it could never run.
				problem(lb.Name, true, "is installed in the %s root, but the %s root's bundle %s shadows it, so it could never become active; uninstall that one, or lock what is active", lb.Scope, by.Scope, bundle.Quote(by.Name))
				continue
			}
			b := bundle.Load(filepath.Join(root, have), lb.Scope, m.Limits)
			h, err := Compute(b)
			refused := refusalOf(b)
			switch {
			case err != nil:
				problem(lb.Name, true, "is already installed in the %s root and is invalid: %v", lb.Scope, err)
			case h.Token() != lb.Token:
				problem(lb.Name, true, "is already installed in the %s root with other content (%s), not the locked one; uninstall it, or lock what is installed", lb.Scope, halves(lb.Token, h))
			case refused != "":
				problem(lb.Name, true, "%s", refused)
			default:
				items = append(items, &syncItem{lb: lb, root: root, present: b})
			}
			continue
		}
		th, err := m.fetchHolder(root)
		if err != nil {
			problem(lb.Name, false, "%v", err)
			out.Problems[len(out.Problems)-1].Err = err
			continue
		}
		holders = append(holders, th)
		res, err := th.fetch(func(parent string, held *os.Root) (*sources.Result, error) {
			return sources.FetchLocked(ctx, parent, lb.Source, sources.Options{Limits: m.Limits, Timeout: opts.Timeout, Name: lb.Name, Parent: held, NoCopyHint: true})
		})
		if err != nil {
			problem(lb.Name, errors.Is(err, sources.ErrPinMismatch) || errors.Is(err, sources.ErrRefused), "%v", err)
			out.Problems[len(out.Problems)-1].Err = err
			continue
		}
		fb, err := validateFetched(th.at(res.Name), lb.Scope, m.Limits, lb.Name)
		if err != nil {
			problem(lb.Name, true, "%v", err.(*SourceError).Reason)
			continue
		}
		if err := th.holds(res.Name, fb.Tree); err != nil {
			// What was validated may not be what is held.
			problem(lb.Name, false, "%v", err)
			out.Problems[len(out.Problems)-1].Err = err
			continue
		}
		h, err := Compute(fb)
		if err != nil {
			problem(lb.Name, true, "%v", err)
			continue
		}
		if h.Token() != lb.Token {
			problem(lb.Name, true, "the fetched bundle does not match the locked token: %s", halves(lb.Token, h))
			continue
		}
		if refused := refusalOf(fb); refused != "" {
			// A lockfile is not a way around what trust refuses.
			problem(lb.Name, true, "%s", refused)
			continue
		}
		items = append(items, &syncItem{lb: lb, root: root, holder: th, dir: res.Name, tree: fb.Tree})
	}
	if len(out.Problems) > 0 {
		return out, &SyncError{Problems: out.Problems}
	}
	// Stage every snapshot before the first tree is placed: copying is
	// the slow part, and a crash between placing a tree and writing the
	// state leaves the tree in its root with no record (docs/sources.md,
	// "What a crash can leave"). A snapshot staged for a sync that then
	// fails is content-addressed and trusted by nothing.
	for _, it := range items {
		if it.dir == "" {
			// Already in place: nothing is renamed for it, so a trust
			// it needs stages its snapshot under the state lock.
			continue
		}
		_, err := m.snapshots().Stage(it.tree, it.lb.Token.Content, m.Limits)
		if err == nil {
			_, err = m.snapshots().Check(it.lb.Token.Content, m.Cache())
		}
		if err != nil {
			problem(it.lb.Name, false, "cannot stage its snapshot: %v", err)
		}
	}
	if len(out.Problems) > 0 {
		return out, &SyncError{Problems: out.Problems}
	}
	if testOnlyAfterStaging != nil {
		testOnlyAfterStaging()
	}
	type placedDir struct {
		holder   *tmpHolder
		from, to string
	}
	var placed []placedDir
	var synced []SyncedBundle
	var undoMarks []func()
	_, err = m.stateStore().Update(func(s *state.State) error {
		synced = nil
		for _, it := range items {
			lb := it.lb
			final := filepath.Join(it.root, lb.Name)
			action := "present"
			fetched := it.dir != ""
			if lb.Scope == bundle.ScopeWorkspace {
				// This home now uses the workspace bundle, placed or
				// found: another home's uninstall leaves it.
				undo, err := m.markHome(it.root, lb.Name)
				if err != nil {
					return err
				}
				undoMarks = append(undoMarks, undo)
			}
			if fetched {
				if c := m.nameClash(lb.Scope, it.root, lb.Name); c != nil {
					// Another sync of the same lockfile placed it
					// since the check above: kept, as a sync run after
					// that one would keep it; the fetched tree is
					// deleted with the rest.
					if !m.holdsLocked(it.root, lb) {
						return c
					}
					fetched = false
				}
			}
			if fetched {
				if err := it.holder.place(it.dir, lb.Name); err != nil {
					return err
				}
				placed = append(placed, placedDir{it.holder, it.dir, lb.Name})
				action = "installed"
				// It is read back by path, below: that path must
				// still lead to the root it was placed in.
				if err := it.holder.root.check(); err != nil {
					return err
				}
			}
			b := bundle.Load(final, lb.Scope, m.Limits)
			if rec, _ := s.Bundle(b.ID); !fetched && len(rec.Source) == 0 {
				// A tree with the locked token but no source record: one
				// a sync placed before it was killed, or one placed by
				// hand. The lockfile's source reproduces it.
				raw, err := sourceRecord(lb.Source, b.Tree)
				if err != nil {
					return err
				}
				if _, err := s.SetSource(b.ID, raw); err != nil {
					return err
				}
			}
			if fetched {
				if _, ok := s.Bundle(b.ID); ok {
					if _, err := s.Forget(b.ID); err != nil {
						return err
					}
				}
				raw, err := sourceRecord(lb.Source, b.Tree)
				if err != nil {
					return err
				}
				if _, err := s.SetSource(b.ID, raw); err != nil {
					return err
				}
			}
			// The token is checked again where the tree now is.
			h, err := Compute(b)
			if err != nil {
				return &SyncError{Problems: []SyncProblem{{Name: lb.Name, Mismatch: true, Reason: err.Error()}}}
			}
			if h.Token() != lb.Token {
				return &SyncError{Problems: []SyncProblem{{Name: lb.Name, Mismatch: true, Reason: "changed while it was being installed: " + halves(lb.Token, h)}}}
			}
			sb := SyncedBundle{Name: lb.Name, Scope: lb.Scope, ID: b.ID, Path: b.Dir, Token: lb.Token, Action: action}
			rec, _ := s.Bundle(b.ID)
			if rec.Receipt == nil || rec.Receipt.Token() != lb.Token {
				if err := m.recordTrust(s, b, h); err != nil {
					return err
				}
				sb.Trusted = true
			}
			if lb.Enabled {
				if _, err := s.Enable(b.ID); err != nil {
					return err
				}
			}
			rec, _ = s.Bundle(b.ID)
			sb.Enabled = rec.Enabled
			synced = append(synced, sb)
		}
		return nil
	})
	if err != nil {
		for i := len(placed) - 1; i >= 0; i-- {
			p := placed[i]
			p.holder.undoPlace(p.from, p.to)
		}
		for _, undo := range undoMarks {
			undo()
		}
		var se *SyncError
		if errors.As(err, &se) {
			out.Problems = se.Problems
			return out, err
		}
		return nil, stateErr(err)
	}
	out.Bundles = append(out.Bundles, synced...)
	return out, nil
}

// holdsLocked reports whether root holds lb's bundle under its own name,
// unshadowed, with exactly the locked token, and trust would not refuse
// it: what step 1 of SyncLocked keeps as present.
func (m *Manager) holdsLocked(root string, lb lockfile.Bundle) bool {
	if have, ok := taken(root, lb.Name); !ok || have != lb.Name {
		return false
	}
	if _, ok := m.shadowedBy(lb.Scope, lb.Name); ok {
		return false
	}
	b := bundle.Load(filepath.Join(root, lb.Name), lb.Scope, m.Limits)
	h, err := Compute(b)
	return err == nil && h.Token() == lb.Token && refusalOf(b) == ""
}

// recordTrust records b's receipt for its snapshot, inside a state update
// (as Trust does). A fetched bundle's snapshot was staged before the
// update, when no receipt named it: a gc in between may have removed it,
// so one that fails its check (or was never staged: a bundle already in
// place) is staged here, under the state lock gc takes too.
func (m *Manager) recordTrust(s *state.State, b *bundle.Bundle, h Hashes) error {
	if _, err := m.snapshots().Check(h.Content, m.Cache()); err != nil {
		if _, err := m.snapshots().Stage(b.Tree, h.Content, m.Limits); err != nil {
			return err
		}
		if _, err := m.snapshots().Check(h.Content, m.Cache()); err != nil {
			return err
		}
	}
	snap := m.snapshots().Path(h.Content)
	_, err := s.Trust(b.ID, receipts.Receipt{
		BundleID: b.ID, ContentHash: h.Content, CapabilityHash: h.Capability,
		Inventory: h.Inventory, Snapshot: snap, ReviewedAt: time.Now().UTC(),
	})
	return err
}

// halves says which half of a locked token differs from the hashes h.
func halves(want receipts.Token, h Hashes) string {
	switch {
	case want.Content != h.Content && want.Capability != h.Capability:
		return "both its content and its capabilities differ from the locked token"
	case want.Content != h.Content:
		return "its content differs from the locked token (the capabilities match)"
	case want.Capability != h.Capability:
		return "its capabilities differ from the locked token (the content matches)"
	}
	return "it matches"
}

// refusalOf is why trust would refuse b whatever the token, or "".
func refusalOf(b *bundle.Bundle) string {
	var re *RefusedError
	if errors.As(refuseUntrustable(b, "trusted"), &re) {
		return re.Reason
	}
	return ""
}
