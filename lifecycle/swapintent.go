package lifecycle

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/renameio/v2"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/review"
	"github.com/bundlectl/bundlectl/state"
)

// SwapIntentsName is the file, in the home, where an update notes, under
// the state lock and right before it swaps a bundle's directory, the
// source record it is about to write. An update killed between the swap
// and the state write leaves the new tree under the old record, which
// looks like a local edit; with this note the next update recognises the
// tree as the one the killed update placed (its content hash is the noted
// record's tree), completes that update's record, and refuses only what
// is neither: a real edit still needs --discard-local.
const SwapIntentsName = "update-intents.json"

// swapIntent is one bundle's note: the source record the state held when
// the swap began (Before) and the one written once it is done (After).
type swapIntent struct {
	Before json.RawMessage `json:"before"`
	After  json.RawMessage `json:"after"`
}

func (m *Manager) swapIntentsPath() string { return filepath.Join(m.Roots.Home, SwapIntentsName) }

// readSwapIntents returns the notes by bundle id. A file that is missing,
// not a regular file, or malformed holds none: without a note an update
// falls back to refusing the tree as an edit, which loses nothing.
func (m *Manager) readSwapIntents() map[string]swapIntent {
	p := m.swapIntentsPath()
	if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
		return map[string]swapIntent{}
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return map[string]swapIntent{}
	}
	out := map[string]swapIntent{}
	if json.Unmarshal(data, &out) != nil {
		return map[string]swapIntent{}
	}
	return out
}

// writeSwapIntents replaces the file with notes (removing it when there
// are none), synced with its directory: the note must be on disk before
// the swap it describes. Its temporary file is made in the home, never in
// $TMPDIR (renameio's default when it is on the home's file system), where
// one a killed write left would stay forever: gc looks for it beside the
// note (removeSwapIntentTemps). Owner-only, whatever the mode of the file
// it replaces.
func (m *Manager) writeSwapIntents(notes map[string]swapIntent) error {
	p := m.swapIntentsPath()
	if len(notes) == 0 {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	data, err := json.Marshal(notes)
	if err != nil {
		return err
	}
	if err := writeFileInHome(p, append(data, '\n')); err != nil {
		return err
	}
	d, err := os.Open(m.Roots.Home)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// writeFileInHome replaces the file p with data by atomic rename, its
// temporary file beside it, mode 0600.
func writeFileInHome(p string, data []byte) error {
	t, err := renameio.NewPendingFile(p, renameio.WithTempDir(filepath.Dir(p)), renameio.WithStaticPermissions(0o600))
	if err != nil {
		return err
	}
	defer t.Cleanup()
	if _, err := t.Write(data); err != nil {
		return err
	}
	return t.CloseAtomicallyReplace()
}

// noteSwap records, under the state lock (s is the state it holds), that
// the bundle id's directory is about to be swapped for the tree of the
// source record after, its record now being before. Notes of other
// bundles whose record has moved on since (their update finished) are
// dropped.
func (m *Manager) noteSwap(s *state.State, id string, before, after json.RawMessage) error {
	notes := m.readSwapIntents()
	for other, n := range notes {
		if cur, _ := s.Bundle(other); !sameJSON(cur.Source, n.Before) {
			delete(notes, other)
		}
	}
	notes[id] = swapIntent{Before: before, After: after}
	return m.writeSwapIntents(notes)
}

// dropFinishedSwap removes, under the state lock, the note of the bundle
// id once its record is no longer the one the note started from (the
// update recorded its source). A note whose update was killed stays.
func (m *Manager) dropFinishedSwap(id string) {
	m.stateStore().Update(func(s *state.State) error {
		notes := m.readSwapIntents()
		n, ok := notes[id]
		if !ok {
			return nil
		}
		if cur, _ := s.Bundle(id); sameJSON(cur.Source, n.Before) {
			return nil
		}
		delete(notes, id)
		m.writeSwapIntents(notes)
		return nil // no transition: the state is not written
	})
}

// unfinishedSwap returns the record of the tree an update placed in b's
// directory and was killed before recording: there is a note whose
// record before the swap is rec's, and the tree in place has the content
// hash the note's record after it names. Otherwise ok is false, and rec
// is the record of the tree placed.
func (m *Manager) unfinishedSwap(b *bundle.Bundle, rec state.Record) (placed state.Record, ok bool) {
	n, found := m.readSwapIntents()[b.ID]
	if !found || len(rec.Source) == 0 || !sameJSON(n.Before, rec.Source) || b.Tree == nil {
		return rec, false
	}
	after := rec
	after.Source = n.After
	sr, err := decodeSourceRecord(after)
	if err != nil || sr.Tree == "" {
		return rec, false
	}
	if h, err := review.ContentHash(b.Tree); err != nil || h.String() != sr.Tree {
		return rec, false
	}
	return after, true
}

// sameJSON reports whether a and b are the same JSON text but for
// insignificant space (a record is compacted when it is written, and the
// state file may have been laid out by hand).
func sameJSON(a, b json.RawMessage) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// removeSwapIntentTemps removes what a writeSwapIntents killed before its
// rename leaves in the home (".update-intents.json<digits>", renameio's
// temporary file). gc calls it under the state lock, which every writer
// of the notes holds, so none is in progress.
func (m *Manager) removeSwapIntentTemps() []string {
	ents, err := os.ReadDir(m.Roots.Home)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range ents {
		digits, ok := strings.CutPrefix(e.Name(), "."+SwapIntentsName)
		if !ok || digits == "" || strings.Trim(digits, "0123456789") != "" || !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(m.Roots.Home, e.Name())
		if os.Remove(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed
}
