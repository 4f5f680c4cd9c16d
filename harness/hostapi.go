package harness

import (
	"github.com/bundlectl/bundlectl/inventory"
	"github.com/bundlectl/bundlectl/state"
)

// Bundles returns every loaded bundle in precedence order as Active
// describes it, without checking it again. A host adapter uses it for the
// bundles Active refused: their receipts still say which hooks guard which
// events, and those guards must block rather than vanish (a guard never
// fails open).
func (r *Registry) Bundles() []ActiveBundle {
	out := make([]ActiveBundle, 0, len(r.entries))
	for _, e := range r.entries {
		r.mu.Lock()
		var off []state.Switch
		if r.state != nil {
			rec, _ := r.state.Bundle(e.id)
			off = rec.Off
		}
		r.mu.Unlock()
		inv, err := e.inventory()
		if err != nil {
			// What it guards is still known: its hooks block their events.
			inv = &inventory.Inventory{Schema: inventory.Schema, Name: e.name, Hooks: e.hooks}
		}
		out = append(out, ActiveBundle{
			Name: e.name, ID: e.id, Scope: e.scope, Token: e.rc.Token(), Snapshot: e.snapshot,
			Data: e.data, Inventory: inv, Off: off,
		})
	}
	return out
}
