package lifecycle

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/state"
)

// UninstallOptions tune Uninstall.
type UninstallOptions struct {
	// Scope picks the root when bundles of the same name are in both
	// ("" : the winning one).
	Scope bundle.Scope
	// Force removes a bundle bundlectl did not install (no recorded
	// source): its directory may be the only copy.
	Force bool
}

// Uninstalled describes what Uninstall removed.
type Uninstalled struct {
	Name  string       `json:"name"`
	ID    string       `json:"id"`
	Scope bundle.Scope `json:"scope"`
	Path  string       `json:"path"`
	// Removed lists what was deleted: the source directory, the options
	// file; the snapshot stays until gc.
	Removed []string `json:"removed"`
	// Forgot: a state record (receipt, switches, source) was removed.
	Forgot bool `json:"forgot"`
	// Trusted: it held a receipt, so a snapshot of it stays in the store
	// until gc.
	Trusted bool `json:"trusted"`
	// SharedWith: the other bundlectl homes that installed or synced this
	// workspace bundle too; the tree was left in its root for them and
	// only this home's record forgotten.
	SharedWith []string `json:"shared_with,omitempty"`
	// SharedMarkers: the markers that named those homes (at most 16
	// read), and Planted how to remove them when they name no home that
	// uses this workspace: one committed to a repository may be planted.
	SharedMarkers []string `json:"shared_markers,omitempty"`
	Planted       string   `json:"-"`
}

// Uninstall moves the bundle's directory out of its root and forgets its
// state record (receipt, enabled bit, switches, source) in one step under
// the state lock, then deletes the directory and its options file. A
// running harness sees the bundle gone from its root (an authority change)
// and stops it; gc reclaims the snapshot. A bundle without a recorded
// source was placed by hand and is removed only with opts.Force. A name
// whose directory is already gone but whose state record remains is
// forgotten.
func (m *Manager) Uninstall(name string, opts UninstallOptions) (*Uninstalled, error) {
	b, err := m.findIn(name, opts.Scope)
	if errors.Is(err, ErrNotFound) {
		return m.forgetGone(name, opts.Scope, err)
	}
	if err != nil {
		return nil, err
	}
	if b.Scope != bundle.ScopeUser && b.Scope != bundle.ScopeWorkspace {
		return nil, &RefusedError{Bundle: name, Reason: fmt.Sprintf("is in the %s root, which bundlectl does not manage", b.Scope)}
	}
	root, err := m.rootDir(b.Scope)
	if err != nil {
		return nil, err
	}
	// The directory found, by identity, held open so that no directory
	// made meanwhile can take its inode number: what is moved out of the
	// root and deleted must be it. A user who may write the root could
	// otherwise rename another bundle's directory into its place.
	r, err := m.openRoot(root)
	if err != nil {
		return nil, err
	}
	start, unpin := pinEntry(r.fd, r.at(b.Name))
	r.close()
	defer unpin()
	s, err := m.LoadState()
	if err != nil {
		return nil, err
	}
	if rec, _ := s.Bundle(b.ID); len(rec.Source) == 0 && !opts.Force {
		return nil, &RefusedError{Bundle: name, Reason: "was not installed by bundlectl (no recorded source), so its directory " + bundle.Quote(b.Dir) + " may be the only copy; pass --force to delete it",
			Fix: "bundlectl uninstall --force --scope " + string(b.Scope) + " " + bundle.ShellArg(name)}
	}
	unlock, err := m.lockFetches()
	if err != nil {
		return nil, err
	}
	defer unlock()
	if b.Scope == bundle.ScopeWorkspace {
		// Exclusive from the markers' check to the tree's move: another
		// home's install must not recover and mark it in between.
		unlockWS, err := m.lockWorkspaceExclusive(root)
		if err != nil {
			return nil, err
		}
		defer unlockWS()
	}
	h, err := m.fetchHolder(root)
	if err != nil {
		return nil, err
	}
	keepHolder := false
	defer func() {
		if keepHolder {
			h.close() // holds the bundle's directory, named in the error
		} else {
			h.remove()
		}
	}()
	out := &Uninstalled{Name: b.Name, ID: b.ID, Scope: b.Scope, Path: b.Dir, Removed: []string{}}
	moved := h.at(b.Name)
	_, err = m.stateStore().Update(func(s *state.State) error {
		if b.Scope == bundle.ScopeWorkspace && !opts.Force {
			// Another home installed or synced it too: it is theirs as
			// much as this home's, so only this home's record goes.
			others, more, err := m.otherHomes(root, b.Name)
			if err != nil {
				return err // unknown: deleting could take another home's tree
			}
			if len(others) > 0 {
				rec, _ := s.Bundle(b.ID)
				changed, err := s.Forget(b.ID)
				if err != nil {
					return err
				}
				out.Forgot, out.Trusted = changed, rec.Receipt != nil
				for _, o := range others {
					out.SharedWith = append(out.SharedWith, o.Who)
					out.SharedMarkers = append(out.SharedMarkers, o.Marker)
				}
				out.Planted = strings.TrimPrefix(m.plantedNote(root, b.Name, others, more), "; ")
				return nil
			}
		}
		if testOnlyUninstallChecked != nil {
			testOnlyUninstallChecked()
		}
		// In the root held; takeIn checks that its path still leads
		// there.
		fi := h.root.entry(b.Name)
		if fi != nil && fi.dir && !fi.is(start) && h.root.check() == nil {
			return replacedWhileUninstalled(name)
		}
		if fi == nil || !fi.dir || !fi.is(start) {
			if err := h.root.check(); err != nil {
				return err // the root itself was swapped
			}
			again := "bundlectl uninstall --scope " + string(b.Scope) + " " + bundle.ShellArg(name)
			if opts.Force {
				again = "bundlectl uninstall --force --scope " + string(b.Scope) + " " + bundle.ShellArg(name)
			}
			return &RefusedError{Bundle: name, Reason: "its directory changed while it was being uninstalled; run the command again", Fix: again}
		}
		if err := h.takeIn(b.Name, b.Name); err != nil {
			return fmt.Errorf("cannot move %s out of its root: %w", bundle.Quote(b.Dir), err)
		}
		if !statEntry(h.fd, b.Name).is(start) {
			// Swapped in right before the move: put back (below).
			return replacedWhileUninstalled(name)
		}
		rec, _ := s.Bundle(b.ID)
		changed, err := s.Forget(b.ID)
		if err != nil {
			h.undoTakeIn(b.Name, b.Name)
			return err
		}
		out.Forgot, out.Trusted = changed, rec.Receipt != nil
		return nil
	})
	if err != nil {
		// The state still has the bundle (its write failed, or the move
		// never happened): put the directory back, or its guards would
		// block with a fix that cannot work.
		if h.has(b.Name) {
			if rerr := h.undoTakeIn(b.Name, b.Name); rerr != nil {
				keepHolder = true
				return nil, fmt.Errorf("%w; and the directory could not be put back (%v): it is at %s, move it back to %s", stateErr(err), rerr, bundle.Quote(moved), bundle.Quote(b.Dir))
			}
		}
		return nil, stateErr(err)
	}
	if b.Scope == bundle.ScopeWorkspace {
		// Every marker goes with the tree (with --force, other homes'
		// too: their records now read as gone); a shared tree keeps the
		// others'.
		m.unmarkHome(root, b.Name, out.SharedWith == nil)
	}
	if out.SharedWith == nil {
		out.Removed = append(out.Removed, b.Dir)
	}
	if p := m.configPath(b.ID); removeIfFile(p) {
		out.Removed = append(out.Removed, p)
	}
	return out, nil
}

// findIn finds the bundle named name, in scope when given.
func (m *Manager) findIn(name string, scope bundle.Scope) (*bundle.Bundle, error) {
	d := bundle.DiscoverNamed(m.Roots, m.Limits, []string{name})
	nf := &NotFoundError{Name: name, Scope: scope}
	for _, b := range d.Lookup(name) {
		if scope == "" || b.Scope == scope {
			return b, nil
		}
		if nf.Elsewhere == "" {
			nf.Elsewhere = b.Scope // the wrong --scope: say which root has it
		}
	}
	return nil, nf
}

// forgetGone forgets the state records of a bundle whose directory is
// gone from its root: uninstall of what was removed by hand.
func (m *Manager) forgetGone(name string, scope bundle.Scope, notFound error) (*Uninstalled, error) {
	var ids []string
	var where []bundle.Root
	for _, r := range m.Roots.List() {
		if (scope != "" && r.Scope != scope) || (r.Scope != bundle.ScopeUser && r.Scope != bundle.ScopeWorkspace) {
			continue
		}
		id, dir, err := canonicalID(r.Scope, r.Path, name)
		if err != nil {
			// The root itself is gone: compute the id from the path as given.
			dir = filepath.Join(r.Path, name)
			id = bundle.Identity(r.Scope, dir, name)
		}
		ids = append(ids, id)
		where = append(where, bundle.Root{Scope: r.Scope, Path: dir})
	}
	var out *Uninstalled
	_, err := m.updateRecorded(func(s *state.State) error {
		for i, id := range ids {
			if _, ok := s.Bundle(id); !ok {
				continue
			}
			if _, err := s.Forget(id); err != nil {
				return err
			}
			out = &Uninstalled{Name: name, ID: id, Scope: where[i].Scope, Path: where[i].Path, Removed: []string{}, Forgot: true}
			return nil
		}
		return nil
	})
	if err != nil {
		return nil, stateErr(err)
	}
	if out == nil {
		return nil, notFound
	}
	if p := m.configPath(out.ID); removeIfFile(p) {
		out.Removed = append(out.Removed, p)
	}
	return out, nil
}

func removeIfFile(p string) bool {
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	return os.Remove(p) == nil
}

// configPath is where the user options of the bundle id are stored:
// $BUNDLECTL_HOME/config/<id with "/" replaced by "_">.json.
func (m *Manager) configPath(id string) string {
	return filepath.Join(m.Roots.Home, "config", strings.ReplaceAll(id, "/", "_")+".json")
}

// replacedWhileUninstalled refuses to remove a directory put in the
// place of the bundle's after it was found: it may be another bundle's
// (renamed there by a user who may write the root), which running the
// same uninstall again would delete; show says what is there now.
func replacedWhileUninstalled(name string) error {
	return &RefusedError{Bundle: name, Reason: "its directory was replaced by another directory while it was being uninstalled, which may be another bundle's; nothing was removed: see what is in its place before running uninstall again",
		Fix: "bundlectl show " + bundle.Operands(name)}
}

// testOnlyUninstallChecked runs in Uninstall between its check of the
// other homes' markers and its move of the tree out of the root.
var testOnlyUninstallChecked func()
