package harness

import (
	"encoding/json"
	"maps"
	"slices"

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
		inv, err := e.inventoryCopy()
		if err != nil {
			// What it guards is still known: its hooks block their events.
			inv = &inventory.Inventory{Schema: inventory.Schema, Name: e.name, Hooks: cloneHooks(e.hooks)}
		}
		options, _ := reviewedOptions(e, readOptions(r.opts.Home, e.id))
		out = append(out, ActiveBundle{
			Name: e.name, ID: e.id, Scope: e.scope, Token: e.rc.Token(), Snapshot: e.snapshot,
			Data: e.data, Inventory: inv, Off: off, Options: options,
		})
	}
	return out
}

// cloneHooks copies hooks deeply enough that no change to the copy
// reaches the registry's own.
func cloneHooks(hooks []inventory.Hook) []inventory.Hook {
	out := slices.Clone(hooks)
	for i := range out {
		h := &out[i]
		h.Args = slices.Clone(h.Args)
		h.Headers = maps.Clone(h.Headers)
		h.AllowedEnvVars = slices.Clone(h.AllowedEnvVars)
		h.Env = maps.Clone(h.Env)
		if h.Other != nil {
			other := make(map[string]json.RawMessage, len(h.Other))
			for k, v := range h.Other {
				other[k] = slices.Clone(v)
			}
			h.Other = other
		}
		h.Hosts = slices.Clone(h.Hosts)
		h.HostVariables = slices.Clone(h.HostVariables)
	}
	return out
}
