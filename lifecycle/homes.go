package lifecycle

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/state"
	"golang.org/x/sys/unix"
)

// A workspace root is shared by every bundlectl home that names the
// workspace (two users, a CI home and a dev home), but each home records
// only its own installs. So that one home's uninstall never deletes a
// tree another home installed or recorded (sync, or an install that found
// the tree in place), install and sync leave a marker per home and bundle:
// <workspace>/.bundlectl/homes/<name>/<home key>, holding the home's path.
// Uninstall deletes the tree only when no other home's marker is there.

// HomesDir is the directory of the workspace's .bundlectl that holds the
// markers.
const HomesDir = "homes"

// homeKey names this home's markers: 12 hex digits of the SHA-256 of its
// absolute, clean path.
func (m *Manager) homeKey() string {
	p, err := filepath.Abs(m.Roots.Home)
	if err != nil {
		p = m.Roots.Home
	}
	sum := sha256.Sum256([]byte(filepath.Clean(p)))
	return hex.EncodeToString(sum[:6])
}

func homesDir(root, name string) string {
	return filepath.Join(filepath.Dir(root), HomesDir, name)
}

// markHome records, before the tree is placed or its source recorded,
// that this home uses the workspace bundle name; undo removes a marker it
// created, for a command that then fails. A kill after the marker
// and before the state write leaves a marker no record backs: it keeps
// another home's uninstall from deleting the tree (the safe side), and
// this home's next install, sync or uninstall of the name replaces or
// removes it.
func (m *Manager) markHome(root, name string) (undo func(), err error) {
	// undo is never nil, even with an error: callers assign it before
	// they look at the error, and call it when the command fails.
	dir := homesDir(root, name)
	p := filepath.Join(dir, m.homeKey())
	home, _ := filepath.Abs(m.Roots.Home)
	for attempt := 0; ; attempt++ {
		raced := false
		for _, d := range []string{filepath.Dir(dir), dir} {
			err := os.Mkdir(d, 0o755)
			if errors.Is(err, fs.ErrNotExist) && attempt < 3 {
				raced = true // another home's unmarkHome removed the parent meanwhile
				break
			}
			if err != nil && !errors.Is(err, fs.ErrExist) {
				return func() {}, fmt.Errorf("cannot record this home's use of %s in %s: %w", bundle.Quote(name), bundle.Quote(d), err)
			}
			if fi, err := os.Lstat(d); err == nil && !fi.IsDir() {
				return func() {}, &SourceError{Reason: fmt.Sprintf("cannot record this home's use of %s: %s is not a directory (a symbolic link?); move it aside", bundle.Quote(name), bundle.Quote(d)),
					Fix: "mv -- " + bundle.ShellArg(d) + " " + bundle.ShellArg(d+".moved"), Err: ErrRefused}
			}
		}
		if raced {
			continue
		}
		_, had := os.Lstat(p)
		f, err := os.OpenFile(p, os.O_CREATE|os.O_TRUNC|os.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o644)
		if errors.Is(err, fs.ErrNotExist) && attempt < 3 {
			continue // another home's uninstall removed the empty directory meanwhile
		}
		if err != nil {
			return func() {}, fmt.Errorf("cannot record this home's use of %s in %s: %w", bundle.Quote(name), bundle.Quote(p), err)
		}
		_, err = f.WriteString(home + "\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		undo = func() {}
		if had != nil { // new: a command that fails takes it back
			undo = func() { m.unmarkHome(root, name, false) }
		}
		return undo, err
	}
}

// otherHome is another home's marker of a workspace bundle: Who is the
// home's path as the marker holds it, or the marker's own path when the
// marker does not hold a path bundlectl would have written there (an
// absolute, clean path of at most maxMarkerPath bytes, plain text, whose
// key is the marker's name): a marker committed to a repository may be
// planted, and its text is not printed.
type otherHome struct {
	Who, Marker string
}

// maxMarkerPath bounds the home path a marker's text is shown as.
const maxMarkerPath = 512

// maxOtherHomes bounds how many other homes' markers are read and named.
const maxOtherHomes = 16

// otherHomes returns the homes, other than this one, whose markers say
// they use the workspace bundle name, sorted, at most maxOtherHomes, and
// how many more markers there are.
func (m *Manager) otherHomes(root, name string) (out []otherHome, more int) {
	dir := homesDir(root, name)
	if !markerDir(dir) {
		return nil, 0
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, 0
	}
	own := m.homeKey()
	for _, e := range ents {
		if e.Name() == own {
			continue
		}
		if len(out) == maxOtherHomes {
			more++
			continue
		}
		p := filepath.Join(dir, e.Name())
		out = append(out, otherHome{Who: markerHome(p, e.Name()), Marker: p})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Who < out[j].Who })
	return out, more
}

// markerHome is the home path the marker p (named key) holds, when it is
// one bundlectl would have written there; else p itself.
func markerHome(p, key string) string {
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxMarkerPath+1 {
		return p
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return p
	}
	h := strings.TrimSuffix(string(b), "\n")
	if h == "" || len(h) > maxMarkerPath || !filepath.IsAbs(h) || filepath.Clean(h) != h || bundle.EscapePath(h) != h {
		return p
	}
	sum := sha256.Sum256([]byte(h))
	if hex.EncodeToString(sum[:6]) != key {
		return p
	}
	return h
}

// homesNames is the other homes as a list for a message.
func homesNames(others []otherHome, more int) string {
	q := make([]string, len(others))
	for i, o := range others {
		q[i] = bundle.Quote(o.Who)
	}
	if more > 0 {
		q = append(q, fmt.Sprintf("and %d more", more))
	}
	return strings.Join(q, ", ")
}

// plantedNote tells how to remove the markers of others when they name no
// home that uses the workspace: the workspace is a repository, and a
// marker committed to it keeps the tree for a home that is not there.
// Marker names that are not plain text are not printed in a command.
func (m *Manager) plantedNote(root, name string, others []otherHome, more int) string {
	if len(others) == 0 {
		return ""
	}
	how := ""
	var rm []string
	for _, o := range others {
		if bundle.EscapePath(o.Marker) != o.Marker {
			rm = nil
			break
		}
		rm = append(rm, bundle.ShellArg(o.Marker))
	}
	if more == 0 && rm != nil {
		how = "rm -- " + strings.Join(rm, " ")
	} else {
		how = "remove every file but " + bundle.Quote(m.homeKey()) + " (this home's) in " + bundle.Quote(homesDir(root, name))
	}
	return "; those homes are named by markers in the workspace, and one committed to a repository may be planted: if no such home uses this workspace, remove the marker (" + how + ")"
}

// unmarkHome removes this home's marker for name (every home's, when all
// is set: the tree is deleted), and the name's directory once empty.
// So does the homes directory (markHome makes both again when another
// home removes them between its steps).
func (m *Manager) unmarkHome(root, name string, all bool) {
	dir := homesDir(root, name)
	if !markerDir(dir) {
		return // nothing through a link: it is no marker of a home
	}
	if all {
		if ents, err := os.ReadDir(dir); err == nil {
			for _, e := range ents {
				_ = os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	} else {
		_ = os.Remove(filepath.Join(dir, m.homeKey()))
	}
	_ = os.Remove(dir) // only when empty: another home's marker keeps it
	_ = os.Remove(filepath.Dir(dir))
}

// markerDir reports whether dir, a name's marker directory, and the
// homes directory above it are real directories (realDir): the workspace
// is a repository anyone may have written, and reading or removing
// markers through a link there would take another directory's files for
// homes, or remove them.
func markerDir(dir string) bool {
	return realDir(filepath.Dir(dir)) && realDir(dir)
}

// pruneMarkers removes this home's markers in the workspace that no state
// record with a source backs: what an install or sync killed between its
// marker and its state write left, which would keep the tree from every
// other home's uninstall until --force. gc calls it under this home's
// state lock, the lock every install and sync of this home marks under,
// so none is between its marker and its state write. A marker taken for
// one with a record is wrong only in the safe direction: that home's
// record then reads as gone (its guards block), nothing runs unreviewed.
func (m *Manager) pruneMarkers(s *state.State) (removed []string) {
	root, err := m.rootDir(bundle.ScopeWorkspace)
	if err != nil {
		return nil
	}
	homes := filepath.Join(filepath.Dir(root), HomesDir)
	if !realDir(filepath.Dir(root)) || !realDir(homes) {
		return nil // a link would make gc remove what it names
	}
	ents, err := os.ReadDir(homes)
	if err != nil {
		return nil
	}
	key := m.homeKey()
	for _, e := range ents {
		name := e.Name()
		p := filepath.Join(homes, name, key)
		if !realDir(filepath.Join(homes, name)) {
			continue
		}
		if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		id, _, err := canonicalID(bundle.ScopeWorkspace, root, name)
		if err != nil {
			id = bundle.Identity(bundle.ScopeWorkspace, filepath.Join(root, name), name)
		}
		if rec, _ := s.Bundle(id); len(rec.Source) > 0 {
			continue
		}
		m.unmarkHome(root, name, false)
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			removed = append(removed, p)
		}
	}
	return removed
}

// realDir reports whether p is a directory and not a symbolic link (of
// any owner: a workspace may be shared by users).
func realDir(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.IsDir()
}

// lockWorkspaceDir takes a shared flock on the workspace's .bundlectl
// directory (made when missing), for a command of any home that is about
// to create or use the workspace root or its tmp. The fetch lock is per
// home and so excludes nothing another home does: a failed first install
// of home A removed the .bundlectl/bundles it had made while home B was
// between making sure of it and renaming its tree in. removeFresh removes
// workspace directories only while it holds this lock exclusively; like
// the fetch lock, a lock on a directory unlinked meanwhile is taken
// again. The wait is bounded as every lock's is.
func (m *Manager) lockWorkspaceDir(root string, fresh *[]string) (unlock func(), err error) {
	return m.lockWorkspace(root, true, fresh)
}

// lockWorkspaceExclusive takes the same lock exclusively (waiting, as
// lockWorkspaceDir does), for a workspace uninstall: it reads the other
// homes' markers and then deletes the tree, and no home's install may
// recover the tree and mark it in between (installs and syncs hold the
// lock shared from before they look at the root until their state write).
func (m *Manager) lockWorkspaceExclusive(root string) (unlock func(), err error) {
	return m.lockWorkspace(root, false, nil)
}

// lockWorkspace adds .bundlectl to fresh when it makes it (see
// lockFetchesFresh).
func (m *Manager) lockWorkspace(root string, shared bool, fresh *[]string) (unlock func(), err error) {
	dot := filepath.Dir(root)
	for attempt := 0; ; attempt++ {
		if err := os.Mkdir(dot, 0o755); err == nil {
			addFresh(fresh, dot)
		} else if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if fi, err := os.Lstat(dot); err == nil && !fi.IsDir() {
			if fi.Mode()&os.ModeSymlink != 0 {
				return nil, fmt.Errorf("%s is a symbolic link; bundlectl never follows links in its roots", bundle.Quote(dot))
			}
			return nil, fmt.Errorf("%s is not a directory", bundle.Quote(dot))
		}
		f, err := os.OpenFile(dot, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
		if errors.Is(err, fs.ErrNotExist) && attempt < fetchLockAttempts {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("cannot use %s: %w", bundle.Quote(dot), err)
		}
		fl := &fileLock{path: dot, f: f}
		waited, err := state.WaitLock(fl, shared, testOnlyFetchLockWait)
		if waited {
			return nil, &FetchLockError{Path: dot, Waited: testOnlyFetchLockWait, Workspace: true}
		}
		if err != nil {
			fl.Unlock()
			return nil, fmt.Errorf("cannot lock %s: %w", bundle.Quote(dot), err)
		}
		if !fl.linked() {
			fl.Unlock() // another home's removeFresh removed it meanwhile
			if attempt < fetchLockAttempts {
				continue
			}
			return nil, fmt.Errorf("cannot lock %s: it was removed and created again %d times while this command waited; run this command again", bundle.Quote(dot), attempt+1)
		}
		return func() { fl.Unlock() }, nil
	}
}

// lockWorkspaceDirExclusive takes the workspace's .bundlectl lock
// exclusively without waiting, for removeFresh: nil when a command of
// any home holds it, or when it is not there.
func lockWorkspaceDirExclusive(dot string) *fileLock {
	f, err := os.OpenFile(dot, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	fl := &fileLock{path: dot, f: f}
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil || !fl.linked() {
		fl.Unlock()
		return nil
	}
	return fl
}
