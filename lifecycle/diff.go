package lifecycle

import (
	"fmt"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/inventory"
	"github.com/bundlectl/bundlectl/review"
	"github.com/bundlectl/bundlectl/state"
)

// DiffSinceTrust compares b's source with what its receipt trusted: the
// files against the receipt's snapshot (which must still hash to the
// receipt's content hash), the capabilities against the receipt's
// inventory. It returns nil when b holds no receipt. What cannot be
// compared is said in the diff's Problems, never guessed.
func (m *Manager) DiffSinceTrust(b *bundle.Bundle, s *state.State) *review.Diff {
	rec, _ := s.Bundle(b.ID)
	rc := rec.Receipt
	if rc == nil {
		return nil
	}
	d := review.NewDiff(rc)
	if b.Rejected() || b.Tree == nil {
		d.Problems = append(d.Problems, "the source is invalid now, so it cannot be compared; the reviewed snapshot keeps running (why: bundlectl validate "+bundle.ShellArg(b.Name)+")")
		return d
	}
	fd, err := review.DiffFiles(m.snapshots().Path(rc.ContentHash), rc.ContentHash, b.Tree, m.Limits)
	if err != nil {
		d.Problems = append(d.Problems, "files: "+err.Error())
	} else {
		d.Files, d.FilesCompared = fd, true
	}
	oldInv, err := ReceiptInventory(rc)
	if err != nil {
		d.Problems = append(d.Problems, "capabilities: the receipt's inventory cannot be compared: "+err.Error())
		return d
	}
	_, raw, err := review.CapabilityHash(b)
	if err != nil {
		d.Problems = append(d.Problems, "capabilities: "+err.Error())
		return d
	}
	cur, err := inventory.Parse(raw)
	if err != nil {
		d.Problems = append(d.Problems, "capabilities: "+err.Error())
		return d
	}
	d.Capabilities, d.CapabilitiesCompared = review.DiffInventories(oldInv, cur), true
	d.Notes = append(d.Notes, switchNotes(rec, d)...)
	return d
}

// switchNotes warns about switches a change leaves behind: a hook that was
// switched off and changed has a new id, and a new hook is not off.
func switchNotes(rec state.Record, d *review.Diff) []string {
	var notes []string
	for _, c := range d.Capabilities.Changed {
		if c.Kind == "hook" && c.Was != "" && rec.IsOff("hook", c.Was) && !rec.IsOff("hook", c.Name) {
			notes = append(notes, fmt.Sprintf("hook %s is switched off, and it changed: its new id is %s, which trusting the change leaves on (to keep it off, once the change is trusted: bundlectl disable %s --hook %s)", c.Was, c.Name, bundle.ShellArg(rec.ID[lastSlash(rec.ID)+1:]), c.Name))
		}
	}
	for _, c := range d.Capabilities.Removed {
		if kind := switchKind(c.Kind); kind != "" && rec.IsOff(kind, c.Name) {
			notes = append(notes, fmt.Sprintf("the switched-off %s %s is gone; its switch no longer matters", kind, bundle.Quote(c.Name)))
		}
	}
	return dedupe(notes)
}

// switchKind maps a capability-diff kind to the switch kind that names it
// ("" when components of that kind cannot be switched).
func switchKind(diffKind string) string {
	switch diffKind {
	case "hook", "tool":
		return diffKind
	case "mcp_server":
		return "mcp"
	case "lsp_server":
		return "lsp"
	}
	return ""
}

func lastSlash(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return i
		}
	}
	return -1
}

func dedupe(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
