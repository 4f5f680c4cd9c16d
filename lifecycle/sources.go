package lifecycle

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/receipts"
	"github.com/bundlectl/bundlectl/review"
	"github.com/bundlectl/bundlectl/sources"
	"github.com/bundlectl/bundlectl/state"
	"golang.org/x/sys/unix"
)

// Names under $BUNDLECTL_HOME (and <workspace>/.bundlectl) used by
// install, update, uninstall and sync.
const (
	// TmpDir holds fetches and trees on their way into or out of a root.
	TmpDir = "tmp"
	// FetchLockName is taken shared by every install, update, uninstall
	// and sync for as long as it has directories in TmpDir, and
	// exclusively (without waiting) by gc before it removes leftovers.
	FetchLockName = "fetch.lock"

	// stagePrefix: a fetched tree renamed to its bundle name to be
	// validated (<tmp>/.install-*/<name>), or an old tree on its way out.
	stagePrefix = ".install-"
)

// leftoverPrefixes are the entries of a tmp directory gc may remove when
// no install, update or sync is running.
var leftoverPrefixes = []string{sources.TempPrefix, sources.ScratchPrefix, stagePrefix}

// rootDir returns the root directory of scope.
func (m *Manager) rootDir(scope bundle.Scope) (string, error) {
	for _, r := range m.Roots.List() {
		if r.Scope == scope {
			return r.Path, nil
		}
	}
	switch scope {
	case bundle.ScopeWorkspace:
		return "", errors.New("no workspace: pass --workspace DIR")
	case bundle.ScopeUser:
		return "", errors.New("no bundlectl home")
	}
	return "", fmt.Errorf("bundles are installed in the user or the workspace root, not the %s root", scope)
}

// ensureRoot creates root (and, for the workspace, .bundlectl) when
// missing and refuses a root that is, or lies in, a symbolic link that
// bundlectl's own layout would not follow (discovery refuses to scan it).
func ensureRoot(root string, scope bundle.Scope) error {
	check := []string{root}
	if scope == bundle.ScopeWorkspace {
		check = []string{filepath.Dir(root), root}
	} else if err := os.MkdirAll(filepath.Dir(root), 0o700); err != nil {
		return err // the home
	}
	for _, p := range check {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			if err := os.Mkdir(p, 0o755); err == nil {
				madeShared(p)
			} else if !errors.Is(err, fs.ErrExist) {
				return err
			}
			fi, err = os.Lstat(p)
		}
		if err != nil {
			return err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			// A cloned repository can ship one, to redirect what
			// bundlectl places or removes.
			return &SourceError{Reason: bundle.Quote(p) + " is a symbolic link; bundlectl never follows links in its roots; remove the link (what it points to is not touched)",
				Fix: "rm -- " + bundle.ShellArg(p), Err: ErrRefused}
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s is not a directory", bundle.Quote(p))
		}
	}
	return nil
}

// madeShared gives the directory p, which this command just made, the
// mode docs/sources.md says (0755 whatever the umask, keeping a
// set-group-ID bit it inherited): other homes, maybe other users', look
// in it. It is opened without following a link, and changed only when it
// is this user's.
func madeShared(p string) {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) == nil && int(st.Uid) == os.Geteuid() {
		if want := uint32(st.Mode&unix.S_ISGID) | 0o755; uint32(st.Mode&0o7777) != want {
			_ = unix.Fchmod(fd, want)
		}
	}
}

// tmpFor returns the directory a tree bound for root is fetched or moved
// into: $BUNDLECTL_HOME/tmp when it is on root's file system, so that the
// final rename is one step; else this home's own directory in
// <root>/../tmp (<workspace>/.bundlectl/tmp/<home key>), which discovery
// never scans. The workspace's tmp is shared by every home that names
// the workspace, and each home's gc removes leftovers only in its own
// directory there, under its own fetch lock: another home's fetch in
// progress is never a leftover to it.
func (m *Manager) tmpFor(root string) string {
	home := filepath.Join(m.Roots.Home, TmpDir)
	var a, b unix.Stat_t
	if testOnlyWorkspaceTmp || unix.Stat(m.Roots.Home, &a) == nil && unix.Stat(filepath.Dir(root), &b) == nil && a.Dev != b.Dev {
		return m.workspaceTmp(root)
	}
	return home
}

// workspaceTmp is this home's directory in the workspace's tmp.
func (m *Manager) workspaceTmp(root string) string {
	return filepath.Join(filepath.Dir(root), TmpDir, m.homeKey())
}

// testOnlyWorkspaceTmp makes tmpFor answer as for a home on another file
// system than the workspace.
var testOnlyWorkspaceTmp bool

// testOnlyFetchLockWait is how long lockFetches waits (tests shorten it).
var testOnlyFetchLockWait = state.LockWait

// FetchLockError reports that the fetch lock was not taken within the
// bounded wait; it matches state.ErrLocked and ErrStateUnusable (exit 4,
// as a busy state lock).
type FetchLockError struct {
	Path   string
	Waited time.Duration
	// Workspace: the lock is the workspace's .bundlectl, which the
	// commands of every home that names the workspace take.
	Workspace bool
}

func (e *FetchLockError) Error() string {
	if e.Workspace {
		return fmt.Sprintf("workspace lock %s is held by another process (waited %s): an install, sync or update in this workspace or an uninstall from it, by this or another bundlectl home, is running or stopped; run this command again when it has finished", bundle.Quote(e.Path), e.Waited)
	}
	return fmt.Sprintf("fetch lock %s is held by another process (waited %s): a bundlectl gc removing what a killed install left, or one that is stopped; run this command again when it has finished", bundle.Quote(e.Path), e.Waited)
}

func (e *FetchLockError) Unwrap() []error { return []error{state.ErrLocked, ErrStateUnusable} }

// lockFetches takes the fetch lock shared (waiting for a gc to finish),
// waiting at most testOnlyFetchLockWait, as the state lock does: a gc
// that is stopped (Ctrl-Z) holds it, and a wait in flock(2) would hang the
// command, deaf to Ctrl-C and SIGTERM, which only cancel the context.
func (m *Manager) lockFetches() (unlock func(), err error) {
	return m.lockFetchesFresh(nil)
}

// lockFetchesFresh is lockFetches for a command that removes what it made
// when it fails: it adds the home to fresh when it makes it — also when a
// failed command's cleanup removed the home after this one looked for it
// (missingDirs) and before it locked, so that it is made again here.
func (m *Manager) lockFetchesFresh(fresh *[]string) (unlock func(), err error) {
	path := filepath.Join(m.Roots.Home, FetchLockName)
	for attempt := 0; ; attempt++ {
		_, lerr := os.Lstat(m.Roots.Home)
		if err := os.MkdirAll(m.Roots.Home, 0o700); err != nil {
			return nil, err
		}
		if errors.Is(lerr, fs.ErrNotExist) {
			addFresh(fresh, m.Roots.Home)
		}
		fl, err := openFetchLock(path)
		if errors.Is(err, fs.ErrNotExist) && attempt < fetchLockAttempts {
			continue // a failed first command removed the fresh home meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("cannot take the fetch lock %s: %w", bundle.Quote(path), err)
		}
		if testOnlyFetchLockOpened != nil {
			testOnlyFetchLockOpened()
		}
		waited, err := state.WaitLock(fl, true, testOnlyFetchLockWait)
		if waited {
			return nil, &FetchLockError{Path: path, Waited: testOnlyFetchLockWait}
		}
		if err != nil {
			fl.Unlock()
			return nil, fmt.Errorf("cannot take the fetch lock %s: %w", bundle.Quote(path), err)
		}
		if !fl.linked() {
			// A failed first command unlinked the file between our open
			// and our lock (removeFresh): this lock excludes nobody.
			fl.Unlock()
			if attempt < fetchLockAttempts {
				continue
			}
			return nil, fmt.Errorf("cannot take the fetch lock %s: it was removed and created again %d times while this command waited; run this command again", bundle.Quote(path), attempt+1)
		}
		return func() { fl.Unlock() }, nil
	}
}

// fetchLockAttempts bounds the retries of lockFetches: each needs another
// command to have removed the lock file in between.
const fetchLockAttempts = 100

// testOnlyFetchLockOpened runs in lockFetches between opening the fetch
// lock file and locking it.
var testOnlyFetchLockOpened func()

// fileLock is a flock(2) on a file opened apart from locking it, so that
// what is locked can be compared with what is at the path (linked).
type fileLock struct {
	path string
	f    *os.File
}

func openFetchLock(path string) (*fileLock, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, err
	}
	return &fileLock{path: path, f: f}, nil
}

func (l *fileLock) Lock() error  { return unix.Flock(int(l.f.Fd()), unix.LOCK_EX) }
func (l *fileLock) RLock() error { return unix.Flock(int(l.f.Fd()), unix.LOCK_SH) }

// Unlock releases the lock by closing the file.
func (l *fileLock) Unlock() error { return l.f.Close() }

// linked reports whether the locked file is still the one at its path.
// removeFresh unlinks a fresh home's fetch lock while holding it
// exclusively; a command that opened the file before that and locked it
// after holds a lock on an unlinked file, which excludes nobody, and must
// take the lock again.
func (l *fileLock) linked() bool {
	held, err := l.f.Stat()
	if err != nil {
		return false
	}
	now, err := os.Lstat(l.path)
	return err == nil && os.SameFile(held, now)
}

// removeFetchLeftovers removes what a killed install, update, uninstall
// or sync left in the tmp directories, when none is running (the fetch
// lock is free). gc calls it under the state lock.
func (m *Manager) removeFetchLeftovers() (removed []string, busy bool) {
	if _, err := os.Stat(m.Roots.Home); err != nil {
		return nil, false
	}
	fl, err := openFetchLock(filepath.Join(m.Roots.Home, FetchLockName))
	if err != nil {
		return nil, true
	}
	defer fl.Unlock()
	if unix.Flock(int(fl.f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil || !fl.linked() {
		// Held, or unlinked under us: an install may hold the new one.
		return nil, true
	}
	removed = removeLeftovers(filepath.Join(m.Roots.Home, TmpDir))
	if ws, err := m.rootDir(bundle.ScopeWorkspace); err == nil {
		// This home's directory in the workspace's tmp: no other home
		// fetches there, and no command of this home runs.
		own := m.workspaceTmp(ws)
		if realDir(filepath.Dir(filepath.Dir(own))) && realDir(filepath.Dir(own)) {
			removed = append(removed, removeLeftovers(own)...)
			if os.Remove(own) == nil { // only when empty
				removed = append(removed, own)
			}
		}
		// Leftovers in the shared tmp itself, of a bundlectl that
		// fetched there without a directory per home: removed only while
		// no command of any home holds the workspace lock.
		if dot := filepath.Dir(ws); realDir(dot) {
			if wl := lockWorkspaceDirExclusive(dot); wl != nil {
				removed = append(removed, removeLeftovers(filepath.Join(dot, TmpDir))...)
				wl.Unlock()
			}
		}
	}
	// What a failed first install or sync made and could not remove
	// (another command held the locks then) and no later failed command
	// has removed: an empty workspace .bundlectl or root.
	removed = append(removed, m.reclaimFresh(nil, fl)...)
	return removed, false
}

// removeLeftovers removes the entries of the tmp directory dir that are
// what a killed command left (leftoverPrefixes). A link (a workspace can
// hold one) would make gc delete what it names: dir must be a directory
// of this user, and its parent a directory.
func removeLeftovers(dir string) (removed []string) {
	if !ownRealDir(dir) || !realDir(filepath.Dir(dir)) {
		return nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	for _, e := range ents {
		for _, p := range leftoverPrefixes {
			if strings.HasPrefix(e.Name(), p) {
				full := filepath.Join(dir, e.Name())
				if removeAll(full) == nil {
					removed = append(removed, full)
				}
				break
			}
		}
	}
	return removed
}

// removeAll removes a tree, making read-only directories writable first
// (a fetched tree is writable, but be robust).
func removeAll(p string) error {
	if err := os.RemoveAll(p); err == nil {
		return nil
	}
	filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(q, 0o700)
		}
		return nil
	})
	return os.RemoveAll(p)
}

// RecordedSource decodes the source state records for a bundle (nil when
// it was placed by hand).
func RecordedSource(rec state.Record) (*sources.Resolved, error) {
	if len(rec.Source) == 0 {
		return nil, nil
	}
	r, err := decodeSourceRecord(rec)
	if err != nil {
		return nil, err
	}
	return &r.Resolved, nil
}

// sourceRec is what state records about an install: the sources.Resolved
// JSON and the content hash of the tree bundlectl placed (docs/sources.md),
// so that an update can tell local edits it would otherwise discard.
type sourceRec struct {
	sources.Resolved
	Tree string `json:"tree,omitempty"`
}

func decodeSourceRecord(rec state.Record) (sourceRec, error) {
	var r sourceRec
	dec := json.NewDecoder(strings.NewReader(string(rec.Source)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return r, fmt.Errorf("the recorded source of %s cannot be read: %v", bundle.Quote(rec.ID), err)
	}
	if err := r.Validate(); err != nil {
		return r, fmt.Errorf("the recorded source of %s is malformed: %v", bundle.Quote(rec.ID), err)
	}
	if r.Tree != "" {
		if _, err := receipts.Parse(r.Tree); err != nil {
			return r, fmt.Errorf("the recorded source of %s is malformed: tree: %v", bundle.Quote(rec.ID), err)
		}
	}
	return r, nil
}

// sourceRecord is what install records in state for a source and the
// tree it placed.
func sourceRecord(r sources.Resolved, t *bundle.Tree) (json.RawMessage, error) {
	if t == nil {
		return nil, errors.New("its tree cannot be read where it was placed")
	}
	h, err := review.ContentHash(t)
	if err != nil {
		return nil, err
	}
	return json.Marshal(sourceRec{Resolved: r, Tree: h.String()})
}

// taken reports whether root holds an entry whose name collides with name
// (Unicode NFC and case folding, as sources.CollisionKey) and returns it.
func taken(root, name string) (string, bool) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return "", false
	}
	key := sources.CollisionKey(name)
	for _, e := range ents {
		if sources.CollisionKey(e.Name()) == key {
			return e.Name(), true
		}
	}
	return "", false
}

// canonicalID returns the id a bundle at root/name has: discovery's
// identity of its canonical path.
func canonicalID(scope bundle.Scope, root, name string) (string, string, error) {
	r, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", "", err
	}
	dir := filepath.Join(r, name)
	return bundle.Identity(scope, dir, name), dir, nil
}

// renameNoReplace and exchange are renameNoReplaceAt and exchangeAt of
// paths.
func renameNoReplace(from, to string) error {
	return renameNoReplaceAt(unix.AT_FDCWD, from, unix.AT_FDCWD, to)
}

func exchange(a, b string) error { return exchangeAt(unix.AT_FDCWD, a, unix.AT_FDCWD, b) }

func renameNoReplaceAtFallback(fromfd int, from string, tofd int, to string) error {
	var st unix.Stat_t
	if unix.Fstatat(tofd, to, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: fs.ErrExist}
	}
	return linkError("rename", from, to, unix.Renameat(fromfd, from, tofd, to))
}

// exchangeAside is the name, next to a, under which exchangeAtFallback
// keeps b's entry between its renames: where it stays when neither the
// exchange nor putting it back can be completed.
func exchangeAside(a string) string { return a + ".swap" }

func exchangeAtFallback(afd int, a string, bfd int, b string) error {
	tmp := exchangeAside(a)
	if err := unix.Renameat(bfd, b, afd, tmp); err != nil {
		return linkError("rename", b, tmp, err)
	}
	if err := unix.Renameat(afd, a, bfd, b); err != nil {
		unix.Renameat(afd, tmp, bfd, b)
		return linkError("rename", a, b, err)
	}
	return linkError("rename", tmp, a, unix.Renameat(afd, tmp, afd, a))
}

// linkError is err (nil or an errno) of the rename of from to to as
// os.Rename words it.
func linkError(op, from, to string, err error) error {
	if err == nil {
		return nil
	}
	return &os.LinkError{Op: op, Old: from, New: to, Err: err}
}

// SourceError is a failure to install, update or sync a bundle from its
// source: the fetch failed, the fetched tree is invalid, the name is
// taken. Hint is the command that helps, if any.
type SourceError struct {
	Bundle string
	Reason string
	Fix    string
	Err    error
}

func (e *SourceError) Error() string {
	if e.Bundle == "" {
		return e.Reason
	}
	return bundle.Quote(e.Bundle) + ": " + e.Reason
}
func (e *SourceError) Unwrap() error { return e.Err }
func (e *SourceError) Hint() string  { return e.Fix }

// ownRealDir reports whether p is a directory, not a symbolic link,
// owned by this user.
func ownRealDir(p string) bool {
	var st unix.Stat_t
	return unix.Lstat(p, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR && int(st.Uid) == os.Geteuid()
}

// missingDirs returns those of dirs that do not exist (the ones a command
// is about to create).
func missingDirs(dirs ...string) []string {
	var out []string
	for _, d := range dirs {
		if _, err := os.Lstat(d); errors.Is(err, fs.ErrNotExist) {
			out = append(out, d)
		}
	}
	return out
}

// Records a failed command leaves in a directory it made (the home, the
// workspace's .bundlectl), or in the directory that holds a root it made,
// for the next command that holds the locks exclusively: its own cleanup
// was skipped when another command held them (removeFresh).
const (
	// reclaimDirRecord: this directory was made by a command that
	// failed; it goes once nothing but bundlectl's empty scaffolding is
	// left in it.
	reclaimDirRecord = ".reclaim"
	// reclaimRootRecord: the root (bundles) in this directory was made
	// by a command that failed; it goes once empty.
	reclaimRootRecord = ".reclaim-root"
)

// noteFresh leaves the records of the directories a command made (fresh,
// from missingDirs) that are still there. Install and sync write them as
// soon as they have made the directories, before they put anything in
// them, so that what a SIGKILLed command made is reclaimed too (by the
// next failed command that holds the locks exclusively, or gc), and once
// more when they fail; clearFresh takes them back when the command
// succeeds. It runs while the command holds the fetch lock and, for the
// workspace, the workspace lock shared, so a command that later holds
// them exclusively sees every record, and none acts on a record while the
// command that wrote it runs.
func (m *Manager) noteFresh(fresh []string) { m.recordFresh(fresh, true) }

// clearFresh removes the records noteFresh wrote for fresh: the command
// succeeded, and what it made is in use.
func (m *Manager) clearFresh(fresh []string) { m.recordFresh(fresh, false) }

func (m *Manager) recordFresh(fresh []string, write bool) {
	if len(fresh) == 0 {
		return
	}
	touch := func(dir, name string) {
		if !ownRealDir(dir) {
			return
		}
		p := filepath.Join(dir, name)
		if !write {
			if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
				_ = os.Remove(p)
			}
			return
		}
		if f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600); err == nil {
			f.Close()
		}
	}
	for _, r := range m.Roots.List() {
		if r.Scope != bundle.ScopeUser && r.Scope != bundle.ScopeWorkspace {
			continue
		}
		dot := filepath.Dir(r.Path)
		switch {
		case slices.Contains(fresh, dot):
			touch(dot, reclaimDirRecord)
		case slices.Contains(fresh, r.Path) && ownRealDir(r.Path):
			touch(dot, reclaimRootRecord)
		}
	}
	if home := m.Roots.Home; slices.Contains(fresh, home) {
		touch(home, reclaimDirRecord)
	}
}

// addFresh adds dirs a command made to *fresh (when fresh is not nil).
func addFresh(fresh *[]string, dirs ...string) {
	if fresh == nil {
		return
	}
	for _, d := range dirs {
		if !slices.Contains(*fresh, d) {
			*fresh = append(*fresh, d)
		}
	}
}

// removeFresh removes again what a failed install or sync created (fresh,
// from missingDirs), and what earlier failed commands recorded they made
// (noteFresh): each directory only while it is empty but for an empty
// TmpDir, an empty HomesDir, an empty root, the records and, in the home,
// the fetch lock. It does so only while it holds the fetch lock
// exclusively, and not at all when another command holds it: every
// command that creates or uses a root or a TmpDir (install, sync,
// uninstall) does so under the fetch lock, so none is between creating
// such a directory and renaming into it while this runs. The workspace's
// directories are shared by homes, and are removed only while this holds
// the workspace lock exclusively too. The lock file is unlinked last; a
// command that opened it before and locks it after sees that it was
// unlinked (fileLock.linked) and takes the lock again, on a file at the
// path. A directory that holds anything else — another command's state, a
// tree — is left alone, and its records with it dropped.
func (m *Manager) removeFresh(fresh []string) {
	home := m.Roots.Home
	f, err := os.OpenFile(filepath.Join(home, FetchLockName), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	fl := &fileLock{path: f.Name(), f: f}
	defer fl.Unlock()
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil || !fl.linked() {
		return // another command is using the home: what it uses stays
	}
	if testOnlyRemovingFresh != nil {
		testOnlyRemovingFresh()
	}
	m.reclaimFresh(fresh, fl)
}

// reclaimFresh is removeFresh once it holds the fetch lock fl exclusively
// (gc calls it so, too). It returns the directories it removed.
func (m *Manager) reclaimFresh(fresh []string, fl *fileLock) (removed []string) {
	if ws, err := m.rootDir(bundle.ScopeWorkspace); err == nil {
		dot := filepath.Dir(ws)
		if wantsReclaim(dot, ws, fresh) {
			// Another home's command may be using the root this one made.
			if wl := lockWorkspaceDirExclusive(dot); wl != nil {
				removed = reclaimDir(dot, ws, fresh, nil)
				wl.Unlock()
			}
		}
	}
	user, err := m.rootDir(bundle.ScopeUser)
	if err != nil {
		return removed
	}
	return append(removed, reclaimDir(m.Roots.Home, user, fresh, fl)...)
}

func wantsReclaim(dir, root string, fresh []string) bool {
	if slices.Contains(fresh, dir) || slices.Contains(fresh, root) {
		return true
	}
	for _, r := range []string{reclaimDirRecord, reclaimRootRecord} {
		if _, err := os.Lstat(filepath.Join(dir, r)); err == nil {
			return true
		}
	}
	return false
}

// reclaimDir removes root and dir when this or an earlier failed command
// made them (fresh, or their records) and they hold nothing but empty
// scaffolding; the records go either way. fl is the home's fetch lock,
// held exclusively, when dir is the home: the lock file is unlinked last,
// still held.
func reclaimDir(dir, root string, fresh []string, fl *fileLock) (removed []string) {
	if !wantsReclaim(dir, root, fresh) || !ownRealDir(dir) {
		return nil
	}
	rec := func(name string) bool {
		fi, err := os.Lstat(filepath.Join(dir, name))
		return err == nil && fi.Mode().IsRegular()
	}
	rmdir := func(p string) {
		if os.Remove(p) == nil { // only when empty
			removed = append(removed, p)
		}
	}
	whole := slices.Contains(fresh, dir) || rec(reclaimDirRecord)
	if whole || slices.Contains(fresh, root) || rec(reclaimRootRecord) {
		rmdir(root)
	}
	_ = os.Remove(filepath.Join(dir, reclaimRootRecord))
	if !whole {
		return removed
	}
	if _, err := os.Lstat(root); err == nil {
		// In use: a tree, or another command's root. It stays.
		_ = os.Remove(filepath.Join(dir, reclaimDirRecord))
		return removed
	}
	tmp := filepath.Join(dir, TmpDir)
	if fl == nil && realDir(tmp) {
		// The workspace's tmp holds a directory per home (tmpFor);
		// those left empty go with it. No home fetches into one now:
		// installs and syncs hold the workspace lock this command
		// holds exclusively, and an update needs a tree in the root.
		if ents, err := os.ReadDir(tmp); err == nil {
			for _, e := range ents {
				if homeKeyName(e.Name()) {
					_ = os.Remove(filepath.Join(tmp, e.Name()))
				}
			}
		}
	}
	rmdir(tmp)
	rmdir(filepath.Join(dir, HomesDir)) // left empty by a marker taken back
	ents, err := os.ReadDir(dir)
	if err != nil {
		return removed
	}
	for _, e := range ents {
		if e.Name() != reclaimDirRecord && !(fl != nil && e.Name() == FetchLockName) {
			// In use: another command's state, a tree. It stays.
			_ = os.Remove(filepath.Join(dir, reclaimDirRecord))
			return removed
		}
	}
	if fl != nil {
		_ = os.Remove(fl.path)
	}
	_ = os.Remove(filepath.Join(dir, reclaimDirRecord))
	if fl != nil {
		fl.Unlock()
	}
	rmdir(dir)
	return removed
}

// homeKeyName reports whether name is a home key (homeKey): 12 lowercase
// hex digits.
func homeKeyName(name string) bool {
	if len(name) != 12 {
		return false
	}
	for _, c := range name {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// testOnlyInstallLocked runs in Install once it holds the fetch lock and
// has its root; testOnlyInstallFetched once the fetched tree is staged in
// the tmp directory; testOnlyRemovingFresh in removeFresh once it holds
// the fetch lock exclusively.
var testOnlyInstallLocked, testOnlyInstallFetched, testOnlyRemovingFresh func()
