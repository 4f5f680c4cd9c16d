package lifecycle

import "strings"

// PendingUpdate is a bundle whose source no longer matches its receipt:
// what runs is still its reviewed snapshot, and an update awaits review.
type PendingUpdate struct {
	Name          string   `json:"name"`
	ID            string   `json:"id"`
	UpdatePending bool     `json:"update_pending"` // always true, as in list --json
	Reasons       []string `json:"reasons"`        // the reasons that say so ("update pending review: …")
	Hint          string   `json:"hint"`           // the command that reviews it
}

// UpdatesPending checks the sources of the bundles whose ids are given as
// List does (fingerprints, re-hashing only what changed) and returns those
// with an update pending review, in List's order; never nil. It is for a
// command that shows what a registry loaded: the runtime itself never
// reads a source.
func (m *Manager) UpdatesPending(ids []string) ([]PendingUpdate, error) {
	out := []PendingUpdate{}
	if len(ids) == 0 {
		return out, nil
	}
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	d, sts, _, err := m.List()
	if err != nil {
		return nil, err
	}
	for i, st := range sts {
		b := d.Bundles[i]
		if !st.UpdatePending || !want[b.ID] {
			continue
		}
		var why []string
		for _, r := range st.Reasons {
			if strings.HasPrefix(r, "update pending review: ") {
				why = append(why, r)
			}
		}
		out = append(out, PendingUpdate{Name: b.Name, ID: b.ID, UpdatePending: true, Reasons: why, Hint: st.Hint})
	}
	return out, nil
}
