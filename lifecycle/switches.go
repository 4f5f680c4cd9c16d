package lifecycle

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/inventory"
	"github.com/bundlectl/bundlectl/review"
	"github.com/bundlectl/bundlectl/state"
)

// SwitchResult is one component switched by SetSwitches.
type SwitchResult struct {
	Kind    string `json:"kind"`
	Name    string `json:"component"`
	Off     bool   `json:"off"`
	Changed bool   `json:"changed"`
}

// Components lists the switchable components of an inventory by switch
// kind: hooks by id, the others by name.
func Components(inv *inventory.Inventory) map[string][]string {
	out := map[string][]string{}
	for _, h := range inv.Hooks {
		out["hook"] = append(out["hook"], h.ID)
	}
	for _, s := range inv.MCPServers {
		out["mcp"] = append(out["mcp"], s.Name)
	}
	for _, s := range inv.LSPServers {
		out["lsp"] = append(out["lsp"], s.Name)
	}
	for _, t := range inv.Tools {
		out["tool"] = append(out["tool"], t.Name)
	}
	return out
}

// SetSwitches turns components of the bundle named name off (off true) or
// back on, without touching its trust or its enabled bit. Switching off
// needs the component to be in the bundle's reviewed inventory (the
// receipt's; the source's when the bundle is not trusted), so a typo is
// an error rather than a switch that does nothing; switching back on
// needs only the switch. All switches are applied in one state update,
// or none is.
func (m *Manager) SetSwitches(name string, sws []state.Switch, off bool) ([]SwitchResult, error) {
	b, err := m.Find(m.Discover(), name)
	if err != nil {
		return nil, err
	}
	s, err := m.LoadState()
	if err != nil {
		return nil, err
	}
	rec, _ := s.Bundle(b.ID)
	inv, from, err := m.reviewedInventory(b, rec)
	if err != nil {
		return nil, err
	}
	have := Components(inv)
	// Every name that is not there is named at once: a command line with
	// two typos is fixed in one go, not one run per typo.
	var missing []string
	seen := map[state.Switch]bool{}
	for _, sw := range sws {
		if slices.Contains(have[sw.Kind], sw.Name) || (!off && rec.IsOff(sw.Kind, sw.Name)) || seen[sw] {
			continue
		}
		seen[sw] = true
		list := "none"
		if len(have[sw.Kind]) > 0 {
			var q []string
			for _, n := range have[sw.Kind] {
				q = append(q, bundle.Quote(n))
			}
			list = strings.Join(q, ", ")
		}
		what := sw.Kind
		if sw.Kind == "mcp" || sw.Kind == "lsp" {
			what += " server"
		}
		missing = append(missing, fmt.Sprintf("no %s %s in %s (its %ss: %s)", what, bundle.Quote(sw.Name), from, what, list))
	}
	if len(missing) > 0 {
		reason := "has " + strings.Join(missing, "; ")
		if len(sws) > 1 {
			reason += "; nothing was switched"
		}
		return nil, &RefusedError{Bundle: name, Reason: reason,
			Fix: "bundlectl show " + bundle.ShellArg(name)}
	}
	out := make([]SwitchResult, len(sws))
	_, err = m.stateStore().Update(func(s *state.State) error {
		for i, sw := range sws {
			changed, err := s.SetSwitch(b.ID, sw.Kind, sw.Name, off)
			if err != nil {
				return err
			}
			out[i] = SwitchResult{Kind: sw.Kind, Name: sw.Name, Off: off, Changed: changed}
		}
		return nil
	})
	if err != nil {
		return nil, stateErr(err)
	}
	return out, nil
}

// reviewedInventory returns the receipt's inventory of a trusted bundle,
// else the inventory of its source, and says which.
func (m *Manager) reviewedInventory(b *bundle.Bundle, rec state.Record) (*inventory.Inventory, string, error) {
	if rec.Receipt != nil {
		inv, err := ReceiptInventory(rec.Receipt)
		if err != nil {
			return nil, "", &RefusedError{Bundle: b.Name, Reason: "its receipt cannot be used: " + err.Error(), Fix: "bundlectl review " + bundle.ShellArg(b.Name)}
		}
		return inv, "its reviewed inventory", nil
	}
	if b.Rejected() || b.Tree == nil {
		return nil, "", &RefusedError{Bundle: b.Name, Reason: "is invalid and not trusted, so it has no components to switch", Fix: "bundlectl validate " + bundle.ShellArg(b.Name)}
	}
	_, raw, err := review.CapabilityHash(b)
	if err != nil {
		return nil, "", err
	}
	inv, err := inventory.Parse(raw)
	if err != nil {
		return nil, "", err
	}
	return inv, "its source (it is not trusted yet)", nil
}

// StaleSwitches returns the switches of rec that name no component of inv
// (a hook that changed has a new id).
func StaleSwitches(rec state.Record, inv *inventory.Inventory) []state.Switch {
	have := Components(inv)
	var out []state.Switch
	for _, sw := range rec.Off {
		if !slices.Contains(have[sw.Kind], sw.Name) {
			out = append(out, sw)
		}
	}
	return out
}
