package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/receipts"
	"github.com/bundlectl/bundlectl/review"
	"github.com/bundlectl/bundlectl/sources"
	"github.com/bundlectl/bundlectl/state"
)

// UpdateOptions tune Update.
type UpdateOptions struct {
	// Timeout bounds each fetch (sources.DefaultTimeout when zero).
	Timeout time.Duration
	// Ref, when set, is the branch, tag or commit to follow from now on
	// instead of the recorded one (a git source or a git marketplace).
	Ref string
	// DiscardLocal replaces edits made in the bundle's directory since
	// bundlectl placed it; without it such a bundle is refused.
	DiscardLocal bool
	// Force updates a workspace bundle that other bundlectl homes use
	// too (their markers are there): the tree is replaced for them as
	// well. Without it such a bundle is refused.
	Force bool
}

// Updated describes one bundle Update fetched again. Its JSON form is one
// element of `bundlectl update --json` (docs/sources.md).
type Updated struct {
	Name string           `json:"name"`
	ID   string           `json:"id"`
	Path string           `json:"path"`
	From sources.Resolved `json:"from"`
	To   sources.Resolved `json:"to"`
	// Changed: the source directory was replaced by a different tree.
	Changed bool `json:"changed"`
	// Files compares the previous source tree with the new one.
	Files review.FileDiff `json:"files"`
	// Pending: the bundle is trusted and the new source is not what was
	// trusted: an update pending review (the snapshot keeps running).
	Pending bool `json:"update_pending"`
	// Trusted: the bundle holds a receipt.
	Trusted bool `json:"trusted"`
	// Replaced: the tree the fetch brought was put in place while this
	// update ran, by another home's update of the same workspace bundle
	// (or by hand): nothing was replaced here, and this home recorded it
	// as the tree placed from its source.
	Replaced bool `json:"replaced_meanwhile,omitempty"`
	// Completed: an earlier update of it was killed after it replaced the
	// directory and before it recorded the source; the tree in place was
	// that update's (no local edit), and this one recorded what it
	// fetched. From is the source that update placed.
	Completed bool `json:"completed_interrupted,omitempty"`
}

// Update fetches the recorded source of the bundle named name again
// (following the same ref: sources.Resolved.Request), validates it, and
// replaces the source directory with the new tree in one step
// (renameat2 RENAME_EXCHANGE on Linux), recording the new resolved
// source. It trusts nothing: a trusted bundle whose new source differs
// from its receipt is an update pending review, and its reviewed snapshot
// keeps running. A fetch that brings the same tree replaces nothing. Local
// edits to an installed bundle's directory are replaced with the rest.
func (m *Manager) Update(ctx context.Context, name string, opts UpdateOptions) (*Updated, error) {
	if ctx.Err() != nil {
		// Cancelled (a Ctrl-C) before this bundle was started: say so,
		// rather than fail a fetch that was never going to run.
		return nil, &SourceError{Bundle: name, Reason: "not updated, left as it was: " + context.Cause(ctx).Error(), Fix: "bundlectl update " + bundle.ShellArg(name), Err: ctx.Err()}
	}
	b, err := m.Find(m.Discover(), name)
	if err != nil {
		return nil, err
	}
	// The directory this update starts from, by identity: right before
	// the swap, and of what the swap moved out, it must still be this
	// one, also when its tree cannot be read to compare (nil). It is held
	// open, so that a directory made meanwhile cannot reuse its inode.
	// The workspace's root is held open: the pin is taken in it, not in
	// what its path leads to. (A bundle of another root is refused below,
	// once its source is known.)
	root, rootErr := m.rootDir(b.Scope)
	pinDir, pinName := unix.AT_FDCWD, b.Dir
	if rootErr == nil {
		r, err := m.openRoot(root)
		if err != nil {
			var se *SourceError
			if errors.As(err, &se) {
				se.Bundle = name
			}
			return nil, err
		}
		defer r.close()
		pinDir, pinName = r.fd, r.at(b.Name)
	}
	start, unpin := pinEntry(pinDir, pinName)
	defer unpin()
	s, err := m.LoadState()
	if err != nil {
		return nil, err
	}
	rec, _ := s.Bundle(b.ID)
	// placed is the record of the tree in place: rec, or, when an update
	// was killed between its swap and its record, the record it was
	// about to write (its note says which, and the tree's hash matches):
	// that tree is no local edit, and this update completes the record.
	placed, completing := m.unfinishedSwap(b, rec)
	from, err := RecordedSource(placed)
	if err != nil {
		return nil, &SourceError{Bundle: name, Reason: err.Error(), Fix: "bundlectl show " + bundle.ShellArg(name)}
	}
	if from == nil {
		return nil, &SourceError{Bundle: name, Reason: "was placed in its root by hand, not installed, so bundlectl has no source to fetch again; edit it in place and review it, or uninstall it and install it from its source",
			Fix: "bundlectl review " + bundle.ShellArg(name), Err: ErrRefused}
	}
	// An update killed between replacing the directory and recording its
	// source leaves the new tree under the old record: it looks edited, but
	// it is exactly what the fetch brings again, and replacing it discards
	// nothing. So the refusal waits until the fetched tree is known.
	var editErr error
	if !opts.DiscardLocal {
		editErr = m.checkLocalEdits(b, placed)
	}
	if rootErr != nil {
		return nil, rootErr
	}
	// A workspace bundle other homes use is refused only once the fetch
	// says the tree would change (under the workspace lock, below): an
	// update that brings the same tree is up to date for every home.
	shared := b.Scope == bundle.ScopeWorkspace
	unlock, err := m.lockFetches()
	if err != nil {
		return nil, err
	}
	defer unlock()
	q := from.Request()
	if opts.Ref != "" {
		if from.Kind == sources.KindDir || from.Kind == sources.KindArchive {
			return nil, &SourceError{Bundle: name, Reason: "--ref applies only to git sources; its source is " + from.String(),
				Fix: "bundlectl update " + bundle.ShellArg(name), Err: ErrRefused}
		}
		q.Ref = opts.Ref
	}
	h, err := m.fetchHolder(root)
	if err != nil {
		var se *SourceError
		if errors.As(err, &se) {
			se.Bundle = name
		}
		return nil, err
	}
	// A tree the update moved out and could not put back stays in the
	// holder, which is then kept: the error says where it is.
	keepHolder := false
	defer func() {
		if keepHolder {
			h.close()
		} else {
			h.remove()
		}
	}()
	res, err := h.fetch(func(parent string, held *os.Root) (*sources.Result, error) {
		return sources.Fetch(ctx, parent, q, sources.Options{Limits: m.Limits, Timeout: opts.Timeout, Name: b.Name, Parent: held, NoCopyHint: true})
	})
	if err != nil && errors.Is(err, sources.ErrNotFound) && (from.Kind == sources.KindDir || from.Kind == sources.KindArchive) {
		// The recorded local source moved or was deleted: say what
		// stays, and what to do.
		return nil, &SourceError{Bundle: name, Reason: err.Error() + "; the installed bundle is unchanged. Restore the source there, or install the bundle again from where it is now, once this one is gone (uninstall it first: bundlectl uninstall " + bundle.ShellArg(b.Name) + ")",
			Fix: "bundlectl show " + bundle.ShellArg(b.Name), Err: err}
	}
	if err != nil && errors.Is(err, sources.ErrCatalogueOwner) {
		return nil, ownerRefusedOnUpdate(name, rec.Receipt != nil, err)
	}
	if err != nil {
		var se *SourceError
		if errors.As(err, &se) && se.Bundle == "" {
			se.Bundle = name
		}
		return nil, sourceErr(name, err)
	}
	dir := h.at(res.Name)
	nb, err := validateFetched(dir, b.Scope, m.Limits, name)
	err = withValidateHint(err, res, name)
	if err != nil {
		return nil, err
	}
	if err := h.holds(res.Name, nb.Tree); err != nil {
		var se *SourceError
		if errors.As(err, &se) {
			se.Bundle = name
		}
		return nil, err // what was validated may not be what is held
	}
	if editErr != nil && !sameTree(b.Tree, nb.Tree) {
		return nil, m.editOrUpdatedMeanwhile(b, rec, editErr)
	}
	up := &Updated{Name: b.Name, ID: b.ID, Path: b.Dir, From: *from, To: res.Source, Trusted: rec.Receipt != nil, Completed: completing}
	files, err := m.diffInstalled(b, nb, rec, placed, opts.DiscardLocal)
	if err != nil {
		return nil, err
	}
	up.Files = files
	up.Changed = len(files.Added)+len(files.Removed)+len(files.Changed) > 0
	// Hash the new tree where it was loaded, before it moves.
	up.Pending = m.pendingAgainst(rec.Receipt, nb)
	if !up.Changed && reflect.DeepEqual(*from, res.Source) && editErr == nil && !completing {
		return up, nil
	}
	raw, err := sourceRecord(res.Source, nb.Tree)
	if err != nil {
		return nil, err
	}
	// seen is, for a workspace bundle, the content hash of the tree
	// compared under the workspace lock (nil when it cannot be hashed):
	// the tree the swap moves out must still have it.
	var seen *receipts.Digest
	if shared && testOnlyUpdateFetched != nil {
		testOnlyUpdateFetched()
	}
	if shared {
		// The tree is every home's: another home's install must not
		// find it in place and record it, nor its update swap in
		// another, between this check and the swap (installs and syncs
		// hold this lock shared, uninstalls and updates exclusively).
		unlockWS, err := m.lockWorkspaceExclusive(root)
		if err != nil {
			return nil, err
		}
		defer unlockWS()
		if testOnlyUpdateLocked != nil {
			testOnlyUpdateLocked()
		}
		// Another home's update may have replaced the tree since it was
		// loaded (two homes updating at once, each with --force): what
		// is in place now decides whether anything is to be replaced.
		cur := bundle.Load(b.Dir, b.Scope, m.Limits)
		if cur.Tree != nil {
			if d, err := review.ContentHash(cur.Tree); err == nil {
				seen = &d
			}
		}
		switch now := !sameTree(cur.Tree, nb.Tree); {
		case up.Changed && !now:
			// Exactly this tree is in place already: nothing to
			// replace, and no edit to lose.
			if files, err := review.DiffTrees(cur.Tree, nb.Tree); err == nil {
				up.Files = files
			}
			up.Changed = false
			up.Replaced = true
		case !up.Changed && now:
			return nil, &SourceError{Bundle: name, Reason: "its tree was replaced while it was being updated" + m.byOtherHomes(root, b.Name) + ", and it is no longer what its source brings; nothing was changed: run the command again to see what would be replaced",
				Fix: "bundlectl update " + bundle.ShellArg(name), Err: ErrRefused}
		case now && !sameTree(cur.Tree, b.Tree) && !(b.Tree == nil && cur.Tree == nil):
			// Neither the tree this update saw nor the one it brings:
			// another home's update (from another source) placed it, or
			// it was edited, since. --discard-local and a record with no
			// placed tree's hash skip the edit check below, and would
			// delete a tree nobody here has seen. When neither tree can
			// be read (both nil), the directory's identity tells them
			// apart, right before the swap (below).
			return nil, &SourceError{Bundle: name, Reason: "its directory " + bundle.Quote(b.Dir) + " changed while it was being updated" + m.byOtherHomes(root, b.Name) + ", and it is neither the tree this update started from nor the one it fetched; nothing was replaced: run bundlectl update " + bundle.ShellArg(name) + " to see what is in place now and what an update would replace",
				Fix: "bundlectl update " + bundle.ShellArg(name), Err: ErrRefused}
		}
		if up.Changed && !opts.Force {
			if err := m.refuseSharedUpdate(root, b.Name); err != nil {
				return nil, err
			}
		}
	}
	swapped := false
	_, err = m.stateStore().Update(func(s *state.State) error {
		if cur, _ := s.Bundle(b.ID); string(cur.Source) != string(rec.Source) {
			return updatedMeanwhile(name, cur)
		}
		if up.Changed {
			if testOnlyUpdateSwap != nil {
				testOnlyUpdateSwap("checking")
			}
			// In the root held; exchange checks that its path still
			// leads there.
			fi := h.root.entry(b.Name)
			if !fi.is(start) {
				if err := h.root.check(); err != nil {
					var se *SourceError
					if errors.As(err, &se) {
						se.Bundle = name
					}
					return err // the root itself was swapped
				}
			}
			if fi == nil || !fi.dir {
				return &SourceError{Bundle: name, Reason: "its directory is gone or replaced; it was not updated", Fix: "bundlectl list"}
			}
			if !fi.is(start) {
				// Another directory was put in its place: its tree
				// may be one nobody here has seen (when neither can be
				// read, the trees compared above are both nil).
				return replacedMeanwhile(name, b.Dir)
			}
			cur := bundle.Load(b.Dir, b.Scope, m.Limits)
			if !opts.DiscardLocal {
				// Again, right before the swap: the fetch can take
				// minutes, and an edit made meanwhile would be deleted
				// with the old tree.
				if err := m.checkLocalEdits(cur, placed); err != nil {
					return err
				}
			}
			// The tree's hash, taken where it is: once exchanged, it is
			// compared with what was moved out.
			var want *receipts.Digest
			if cur.Tree != nil {
				d, err := review.ContentHash(cur.Tree)
				switch {
				case err == nil:
					want = &d
				case errors.Is(err, bundle.ErrChanged):
					return changingMeanwhile(name, b.Dir, "changed while it was checked right before the swap")
				}
				// Otherwise (a file it cannot read) only its identity
				// can be compared, as for a tree that cannot be read.
			}
			if shared && ((want == nil) != (seen == nil) || want != nil && *want != *seen) {
				// Edited since the comparison under the workspace
				// lock: --discard-local discards only what was seen.
				return changingMeanwhile(name, b.Dir, "changed while it was being updated, after it was compared with the tree fetched")
			}
			// Noted before the swap: killed between it and the state
			// write, this update leaves a tree the next one can tell
			// from a local edit.
			if err := m.noteSwap(s, b.ID, rec.Source, raw); err != nil {
				return &SourceError{Bundle: name, Err: err, Fix: "ls -la -- " + bundle.ShellArg(m.Roots.Home),
					Reason: "cannot write " + bundle.Quote(m.swapIntentsPath()) + ", where an update notes what it is about to place before it replaces a bundle's directory (" + err.Error() + "); nothing was replaced"}
			}
			if testOnlyUpdateSwap != nil {
				testOnlyUpdateSwap("exchanging")
			}
			if err := h.exchange(res.Name, b.Name); err != nil {
				if aside := exchangeAside(res.Name); h.has(aside) {
					// Without renameat2, the tree in place was moved
					// aside and could not be moved back.
					keepHolder = true
					return fmt.Errorf("cannot replace %s: %w; the tree that was there could not be put back: it is at %s, move it back to %s", bundle.Quote(b.Dir), err, bundle.Quote(h.at(aside)), bundle.Quote(b.Dir))
				}
				return fmt.Errorf("cannot replace %s: %w", bundle.Quote(b.Dir), err)
			}
			swapped = true
			if testOnlyUpdateSwap != nil {
				testOnlyUpdateSwap("exchanged")
			}
			// What the exchange moved out is deleted with the holder: it
			// must be the directory, and the tree, just checked. An edit
			// made since (a process writing in it) is put back, with it.
			if why := movedOutAsChecked(dir, start, want, cur.Tree, m.Limits); why != "" {
				if err := h.undoExchange(res.Name, b.Name); err != nil {
					// It holds what changed: kept, never deleted with
					// the holder.
					keepHolder, swapped = true, false
					return fmt.Errorf("cannot put back %s, which %s: %w; it is at %s, move it back to %s", bundle.Quote(b.Dir), why, err, bundle.Quote(dir), bundle.Quote(b.Dir))
				}
				swapped = false
				return changingMeanwhile(name, b.Dir, why+"; it was put back as it was")
			}
		}
		if _, err := s.SetSource(b.ID, raw); err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		if swapped {
			// Put the old tree back: the state still records it.
			if rerr := h.undoExchange(res.Name, b.Name); rerr != nil {
				// The directory keeps the fetched tree, which the note
				// written before the swap lets the next update record:
				// moving the old tree "back" onto it would put it
				// inside, an edit the next update refuses.
				keepHolder = true
				return nil, unrestoredUpdate(name, b.Dir, dir, stateErr(err), rerr)
			}
		}
		return nil, stateErr(err)
	}
	if up.Changed || completing {
		m.dropFinishedSwap(b.ID)
	}
	return up, nil
}

// unrestoredUpdate is the failure of the update of the bundle name whose
// state write failed (err) after the fetched tree was swapped into its
// directory bDir, and whose putting back of the old tree, now at aside,
// failed too (rerr). The directory keeps the fetched tree, which the
// next update records (the tree is what the source brings, or the note
// written before the swap says so): moving the old tree "back" onto it
// would put it inside, an edit the next update refuses. The hint is the
// state error's own (what makes the state writable) or that update.
func unrestoredUpdate(name, bDir, aside string, err, rerr error) error {
	fix := "bundlectl update " + bundle.ShellArg(name)
	var h interface{ Hint() string }
	if errors.As(err, &h) && h.Hint() != "" {
		fix = h.Hint()
	}
	return &SourceError{Fix: fix, Err: err,
		Reason: fmt.Sprintf("%v; and the tree that was in place could not be put back (%v). %s holds the fetched tree, not recorded yet: nothing that runs changed (a trusted bundle keeps running its reviewed snapshot, and the fetched tree is an update pending review). Once the state can be written, bundlectl update %s records it; the tree that was in place is kept at %s until bundlectl gc removes it",
			err, rerr, bundle.Quote(bDir), bundle.ShellArg(name), bundle.Quote(aside))}
}

// ownerRefusedOnUpdate refuses the update of the bundle name from a Claude
// Code catalogue whose owner Claude Code refuses (err, from sources): the
// same rule as at install, as bundlectl fetches nothing from a marketplace
// the host will not add, also for a bundle an older bundlectl installed
// from it before the owner was checked. The message says so, and that the
// installed bundle is unchanged; the hint shows the catalogue (a local
// marketplace) or the recorded source (one fetched from elsewhere).
func ownerRefusedOnUpdate(name string, trusted bool, err error) error {
	fix := "bundlectl show " + bundle.ShellArg(name)
	unchanged := "not updated, and the installed bundle is unchanged"
	if trusted {
		unchanged += " (trusted, it keeps running its reviewed snapshot)"
	}
	var h interface{ Hint() string }
	if errors.As(err, &h) && h.Hint() != "" {
		fix = h.Hint()
	}
	return &SourceError{Bundle: name, Fix: fix, Err: errors.Join(err, ErrRefused),
		Reason: unchanged + ": " + err.Error() +
			". bundlectl fetches nothing from a catalogue Claude Code refuses, at update as at install: this bundle was installed by a bundlectl that did not check the owner yet, or the marketplace has dropped its owner since. It can be updated once the marketplace's catalogue names an owner (\"owner\": {\"name\": \"…\"}); tell the marketplace's maintainers, or add it yourself if the marketplace is yours"}
}

// refuseSharedUpdate refuses the update of the workspace bundle name
// when another home's marker says that home uses it too: the update
// replaces the tree for that home as well, which then has an update
// pending review it did not ask for.
func (m *Manager) refuseSharedUpdate(root, name string) error {
	others, more, err := m.otherHomes(root, name)
	if err != nil {
		return err // unknown: replacing could change another home's tree
	}
	if len(others) == 0 {
		return nil
	}
	return &SourceError{Bundle: name, Err: ErrRefused,
		Reason: "another bundlectl home uses this workspace bundle too (" + homesNames(others, more) + "), and an update replaces its tree for every home: each home that trusted it then has an update pending review it did not ask for. Update it when those homes agree" + m.plantedNote(root, name, others, more),
		Fix:    "bundlectl update --force " + bundle.ShellArg(name)}
}

// testOnlyUpdateLocked runs in Update once it holds the workspace lock
// exclusively, right before the swap; testOnlyUpdateFetched, for a
// workspace bundle, once the fetch is validated and compared, before the
// workspace lock is taken.
var testOnlyUpdateLocked, testOnlyUpdateFetched func()

// testOnlyUpdateSwap runs in Update under the state lock, with "checking"
// before the last checks of the directory in place, with "exchanging"
// between them and the exchange, and with "exchanged" right after it.
var testOnlyUpdateSwap func(at string)

// updatedMeanwhile refuses an update whose bundle's recorded source
// changed while it fetched, cur being the record now: another update (of
// this home) recorded a new one, and what is in place is that update's
// tree, or an uninstall removed it. Replacing it would be a guess.
func updatedMeanwhile(name string, cur state.Record) error {
	if len(cur.Source) == 0 {
		return &SourceError{Bundle: name, Reason: "it was uninstalled while it was being updated (its recorded source is gone); nothing was placed",
			Fix: "bundlectl list"}
	}
	return &SourceError{Bundle: name, Reason: "another update of it ran at the same time and recorded its source first; nothing was replaced: run the command again to see whether it is up to date",
		Fix: "bundlectl update " + bundle.ShellArg(name)}
}

// editOrUpdatedMeanwhile is editErr, the refusal of a tree that is not
// the one rec says was placed, unless rec is no longer what the state
// records: then another update replaced the tree and recorded it while
// this one fetched (updates fetch at the same time; they take the state
// lock only to swap), so the difference is no local edit, and the
// --discard-local editErr names would replace that update's tree. The
// state is read under its lock, so an update that has swapped but not
// yet recorded has finished.
func (m *Manager) editOrUpdatedMeanwhile(b *bundle.Bundle, rec state.Record, editErr error) error {
	var cur state.Record
	_, err := m.stateStore().Update(func(s *state.State) error {
		cur, _ = s.Bundle(b.ID)
		return nil // no transition: nothing is written
	})
	if err == nil && string(cur.Source) != string(rec.Source) {
		return updatedMeanwhile(b.Name, cur)
	}
	return editErr
}

// replacedMeanwhile refuses the swap when the directory in place is not
// the one the update started from.
func replacedMeanwhile(name, dir string) error {
	return &SourceError{Bundle: name, Reason: "its directory " + bundle.Quote(dir) + " was replaced by another directory while it was being updated, and this update has not seen what that one holds; nothing was replaced: run bundlectl update " + bundle.ShellArg(name) + " to see what is in place now and what an update would replace",
		Fix: "bundlectl update " + bundle.ShellArg(name), Err: ErrRefused}
}

// changingMeanwhile refuses the swap when the directory in place changed
// while it was being checked or replaced; why says how.
func changingMeanwhile(name, dir, why string) error {
	return &SourceError{Bundle: name, Reason: "its directory " + bundle.Quote(dir) + " " + why + " (is another process writing in it, or moving it?), and replacing it would delete what changed; nothing was replaced: run bundlectl update " + bundle.ShellArg(name) + " again once nothing writes in it",
		Fix: "bundlectl update " + bundle.ShellArg(name), Err: ErrRefused}
}

// movedOutAsChecked says what differs ("" when nothing) between dir, which
// the exchange moved out of the bundle's place, and what was checked
// there: the directory start, holding the tree checked, of content hash
// want (nil when its tree could not be hashed: its identity is all there
// is to compare) and with the same symbolic links left out of it (which
// the hash does not cover, and the edit check protects).
func movedOutAsChecked(dir string, start *entryID, want *receipts.Digest, checked *bundle.Tree, lim bundle.Limits) string {
	if !statEntry(unix.AT_FDCWD, dir).is(start) {
		return "was replaced by another directory right before the swap"
	}
	if want == nil {
		return ""
	}
	moved, _ := bundle.Walk(dir, lim)
	if moved == nil {
		return "changed right before the swap, after its last check"
	}
	if got, err := review.ContentHash(moved); err != nil || got != *want || !slices.Equal(moved.RefusedLinks, checked.RefusedLinks) {
		return "changed right before the swap, after its last check"
	}
	return ""
}

// sameTree reports whether the installed tree a has the content hash of
// the fetched tree b.
func sameTree(a, b *bundle.Tree) bool {
	if a == nil || b == nil {
		return false
	}
	ha, err := review.ContentHash(a)
	if err != nil {
		return false
	}
	hb, err := review.ContentHash(b)
	return err == nil && ha == hb
}

// diffInstalled compares the installed tree of b with the fetched nb. A
// file of the installed tree that changed while the fetch ran cannot be
// hashed as walked: that is a local edit, refused as one unless
// discardLocal, which compares against the tree as it is now. rec is the
// state's record of b, placed the record of the tree in place (rec, or
// an unfinished swap's: unfinishedSwap).
func (m *Manager) diffInstalled(b, nb *bundle.Bundle, rec, placed state.Record, discardLocal bool) (review.FileDiff, error) {
	old := b.Tree
	if old == nil || b.Rejected() {
		// The old tree is invalid: everything new is new.
		old = &bundle.Tree{}
	}
	files, err := review.DiffTrees(old, nb.Tree)
	if err == nil || !errors.Is(err, bundle.ErrChanged) || old != b.Tree {
		return files, err
	}
	cur := bundle.Load(b.Dir, b.Scope, m.Limits)
	if !discardLocal {
		if lerr := m.checkLocalEdits(cur, placed); lerr != nil {
			return review.FileDiff{}, m.editOrUpdatedMeanwhile(b, rec, lerr)
		}
		return review.FileDiff{}, changingMeanwhile(b.Name, b.Dir, "changed while it was compared with the fetched tree")
	}
	if cur.Tree == nil || cur.Rejected() {
		return review.DiffTrees(&bundle.Tree{}, nb.Tree)
	}
	files, err = review.DiffTrees(cur.Tree, nb.Tree)
	if errors.Is(err, bundle.ErrChanged) {
		// Still changing: a process keeps writing in it. A refusal with
		// its command, not the walker's error.
		return review.FileDiff{}, changingMeanwhile(b.Name, b.Dir, "kept changing while it was compared with the fetched tree")
	}
	return files, err
}

// checkLocalEdits refuses to replace a directory whose tree is not the one
// bundlectl placed there: the edits would be lost. A record without the
// placed tree's hash (an install by an older bundlectl) cannot tell, and
// passes.
func (m *Manager) checkLocalEdits(b *bundle.Bundle, rec state.Record) error {
	sr, err := decodeSourceRecord(rec)
	if err != nil || sr.Tree == "" {
		return nil
	}
	fix := "bundlectl update --discard-local " + bundle.ShellArg(b.Name)
	if b.Tree == nil {
		return &SourceError{Bundle: b.Name, Reason: "its directory cannot be read to check for local edits, so it was not replaced; copy what you need out of " + bundle.Quote(b.Dir) + " first", Fix: fix, Err: ErrRefused}
	}
	cur, err := review.ContentHash(b.Tree)
	if err != nil {
		return &SourceError{Bundle: b.Name, Reason: "its directory cannot be read to check for local edits (" + err.Error() + "), so it was not replaced", Fix: fix, Err: ErrRefused}
	}
	if cur.String() == sr.Tree {
		// A link leading out of the bundle is not in the tree or its
		// hash, and install never places one: one there now was added
		// by hand, and replacing the directory would discard it.
		for _, f := range b.Report.Findings {
			if f.Rule == "tree.symlink" && f.Path != "" && f.Path != "." {
				return &SourceError{Bundle: b.Name, Reason: "its directory " + bundle.Quote(b.Dir) + " has a symbolic link " + bundle.Quote(f.Path) + " that bundlectl did not place, and an update would discard it; copy what you need out of it first", Fix: fix, Err: ErrRefused}
			}
		}
		return nil
	}
	if b.Scope == bundle.ScopeWorkspace {
		if root, err := m.rootDir(b.Scope); err == nil {
			others, more, err := m.otherHomes(root, b.Name)
			var me *MarkersError
			if errors.As(err, &me) {
				return m.editedOrSharedUnknown(b, sr.Tree, me)
			}
			if len(others) > 0 {
				// An update by a home that shares the tree replaces it for
				// this one too, and is no local edit to protect.
				return &SourceError{Bundle: b.Name, Reason: "its directory " + bundle.Quote(b.Dir) + " is not the tree this home placed" + m.localEdits(sr.Tree, b.Tree) + ": another bundlectl home that uses this workspace bundle too (" + homesNames(others, more) + ") has updated it since, or it was edited by hand, and this update would replace it; if that home updated it, review what it placed (bundlectl review " + bundle.ShellArg(b.Name) + ") and trust it, or replace it with what this home's source brings (bundlectl update --force --discard-local " + bundle.ShellArg(b.Name) + "); if it was edited by hand, copy what you need out of it first",
					Fix: "bundlectl review " + bundle.ShellArg(b.Name), Err: ErrRefused}
			}
		}
	}
	return &SourceError{Bundle: b.Name, Reason: "its directory " + bundle.Quote(b.Dir) + " was edited since bundlectl placed it" + m.localEdits(sr.Tree, b.Tree) + ", and an update would discard the edits; copy what you need out of it first", Fix: fix, Err: ErrRefused}
}

// editedOrSharedUnknown refuses to replace the workspace bundle b whose
// tree is not the one this home placed (whose hash is placed) when the
// homes' markers cannot be read (me): whether another home updated it or
// it was edited by hand cannot be told, and the message says so rather
// than call it an edit, whose fix (--discard-local) the markers would
// refuse next.
func (m *Manager) editedOrSharedUnknown(b *bundle.Bundle, placed string, me *MarkersError) error {
	return &SourceError{Bundle: b.Name, Err: me, Fix: me.Hint(),
		Reason: "its directory " + bundle.Quote(b.Dir) + " is not the tree this home placed" + m.localEdits(placed, b.Tree) + ": it was edited by hand, or another bundlectl home that uses this workspace bundle too has updated it, and which cannot be told, as " + me.unreadable() + "; nothing was changed. Look at what is there: move it aside (mv -- " + bundle.ShellArg(me.Path) + " " + bundle.ShellArg(me.Path+".moved") + ") if it is not bundlectl's and run the command again; if no other home uses the bundle, copy what you need out of its directory and replace it (bundlectl update --force --discard-local " + bundle.ShellArg(b.Name) + ")"}
}

// byOtherHomes names, for a message, the other homes that use the
// workspace bundle name and so may have replaced its tree ("" when none),
// or says they cannot be known when the markers cannot be read.
func (m *Manager) byOtherHomes(root, name string) string {
	others, more, err := m.otherHomes(root, name)
	var me *MarkersError
	if errors.As(err, &me) {
		return " (whether by the update of another bundlectl home that uses it too is unknown: " + me.unreadable() + ")"
	}
	if len(others) == 0 {
		return ""
	}
	return " (by the update of another bundlectl home that uses it too: " + homesNames(others, more) + "?)"
}

// localEdits names the entries of cur that differ from the tree bundlectl
// placed, whose content hash is placed, when the store still holds a
// snapshot of it (the placed tree was trusted as it was); otherwise it
// says they cannot be named.
func (m *Manager) localEdits(placed string, cur *bundle.Tree) string {
	const none = " (the placed tree was never trusted, so no copy of it is kept to name the edited files)"
	d, err := receipts.Parse(placed)
	if err != nil {
		return none
	}
	snap, rep := bundle.Walk(m.snapshots().Path(d), m.Limits)
	if snap == nil || len(rep.Errors()) > 0 {
		return none
	}
	diff, err := review.DiffTrees(snap, cur)
	if err != nil {
		return none
	}
	var names []string
	for _, g := range []struct {
		how string
		fs  []review.FileChange
	}{{"changed", diff.Changed}, {"added", diff.Added}, {"removed", diff.Removed}} {
		for _, f := range g.fs {
			names = append(names, g.how+" "+bundle.Quote(f.Path))
		}
	}
	if len(names) == 0 {
		return ""
	}
	const most = 10
	if len(names) > most {
		names = append(names[:most], fmt.Sprintf("and %d more", len(names)-most))
	}
	return " (" + strings.Join(names, ", ") + ")"
}

// pendingAgainst reports whether the tree nb differs from the receipt rc
// (false when there is no receipt).
func (m *Manager) pendingAgainst(rc *receipts.Receipt, nb *bundle.Bundle) bool {
	if rc == nil {
		return false
	}
	h, err := Compute(nb)
	return err != nil || h.Content != rc.ContentHash || h.Capability != rc.CapabilityHash
}

// UpdateAll updates every discovered, unshadowed bundle that has a
// recorded source. Each bundle is updated on its own: a failure is
// reported with its name and the others go on; once ctx is cancelled,
// each of the others is reported as not updated without being started.
func (m *Manager) UpdateAll(ctx context.Context, opts UpdateOptions) ([]*Updated, []error, error) {
	s, err := m.LoadState()
	if err != nil {
		return nil, nil, err
	}
	var names []string
	for _, b := range m.Discover().Bundles {
		if rec, ok := s.Bundle(b.ID); ok && len(rec.Source) > 0 && b.ShadowedBy == "" {
			names = append(names, b.Name)
		}
	}
	var out []*Updated
	var errs []error
	for _, n := range names {
		up, err := m.Update(ctx, n, opts)
		if err != nil {
			if errors.Is(err, ErrStateUnusable) {
				return out, errs, err
			}
			errs = append(errs, err)
			continue
		}
		out = append(out, up)
	}
	return out, errs, nil
}
