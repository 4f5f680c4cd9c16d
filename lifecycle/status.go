package lifecycle

import (
	"fmt"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
)

// Status words, in the order DESIGN.md §8 applies them: the first that
// applies is the bundle's status.
const (
	StatusShadowed  = "shadowed"
	StatusInvalid   = "invalid"
	StatusBlocked   = "blocked"
	StatusUntrusted = "untrusted"
	StatusDrifted   = "drifted"
	StatusTrusted   = "trusted"
	StatusEnabled   = "enabled"
	StatusActive    = "active"
)

// Status is the evaluated standing of one bundle. Active is true only when
// the bundle is enabled, trusted for its current content and capability
// hashes, valid, applicable to this host and free of inactive declarations.
type Status struct {
	Word    string   `json:"status"`
	Valid   bool     `json:"valid"`
	Trusted bool     `json:"trusted"`
	Enabled bool     `json:"enabled"`
	Active  bool     `json:"active"`
	Reasons []string `json:"reasons"`
	// Hint is the command that moves the bundle forward, if any.
	Hint string `json:"hint,omitempty"`
}

// inactiveSurfaces names each inactive declaration for messages.
func inactiveSurfaces(b *bundle.Bundle) string {
	var s []string
	for _, in := range b.Inactive {
		if in.Name != "" {
			s = append(s, fmt.Sprintf("%s %s", in.Surface, bundle.Quote(in.Name)))
		} else {
			s = append(s, in.Surface)
		}
	}
	return strings.Join(s, ", ")
}

// preTrust evaluates the words that do not depend on state: shadowed,
// invalid and blocked. It returns false when none applies.
func preTrust(b *bundle.Bundle, st *Status) bool {
	st.Valid = !b.Rejected()
	switch {
	case b.ShadowedBy != "":
		st.Word = StatusShadowed
		st.Reasons = append(st.Reasons, fmt.Sprintf("shadowed by %s, which has the same name and an earlier root", b.ShadowedBy))
		return true
	case b.Rejected():
		st.Word = StatusInvalid
		for _, f := range b.Report.Errors() {
			if f.Severity == bundle.Error {
				st.Reasons = append(st.Reasons, f.String())
			}
		}
		st.Hint = "bundlectl validate " + b.Name
		return true
	case b.Blocked():
		st.Word = StatusBlocked
		st.Reasons = append(st.Reasons, "declares inactive surfaces that bundlectl cannot enable: "+inactiveSurfaces(b))
		return true
	}
	return false
}
