package lifecycle

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
)

// Status words (docs/design.md): the first that applies is the bundle's
// status. An update pending review is not a status of its own: a trusted
// bundle whose source changed keeps its status (and, if active, keeps
// running its reviewed snapshot) with UpdatePending set.
const (
	StatusShadowed  = "shadowed"  // an earlier root has a bundle of the same name
	StatusInvalid   = "invalid"   // untrusted, and its source breaks a rule that rejects it
	StatusBlocked   = "blocked"   // declares a surface bundlectl does not run
	StatusUntrusted = "untrusted" // no receipt
	StatusTampered  = "tampered"  // trusted, but its snapshot fails its integrity check
	StatusTrusted   = "trusted"   // trusted, not enabled
	StatusEnabled   = "enabled"   // enabled and trusted, but inactive (not applicable here, or an unusable receipt)
	StatusActive    = "active"
	// StatusGone: the state trusts it, but its directory is no longer in
	// its root (deleted or moved outside bundlectl). Listed last; when it
	// is also enabled its guards block their events.
	StatusGone = "gone"
)

// Status is the evaluated standing of one bundle. Active is true only when
// the bundle is enabled, holds a usable receipt, is not shadowed, applies
// to this host and its snapshot is intact.
type Status struct {
	Word    string `json:"status"`
	Valid   bool   `json:"valid"`
	Trusted bool   `json:"trusted"`
	Enabled bool   `json:"enabled"`
	Active  bool   `json:"active"`
	// UpdatePending: the source no longer matches the receipt; the
	// reviewed snapshot keeps running until the update is reviewed.
	UpdatePending bool     `json:"update_pending"`
	Reasons       []string `json:"reasons"`
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
	st.Valid = b.Valid()
	switch {
	case b.ShadowedBy != "":
		st.Word = StatusShadowed
		st.Reasons = append(st.Reasons, fmt.Sprintf("shadowed by %s, which has the same name and an earlier root", b.ShadowedBy))
		return true
	case b.Rejected():
		// A skipped component does not make the bundle invalid: the rest
		// of it loads and can be trusted, the skipped part never runs.
		st.Word = StatusInvalid
		// The findings that reject the bundle first: list shows the first
		// reason, and a skipped component is not why it is invalid.
		for _, rejecting := range []bool{true, false} {
			for _, f := range b.Report.Errors() {
				if (f.Severity == bundle.Error) == rejecting {
					st.Reasons = append(st.Reasons, f.String())
				}
			}
		}
		st.Hint = "bundlectl validate " + bundle.Operands(b.Name)
		return true
	case b.Blocked():
		st.Word = StatusBlocked
		st.Reasons = append(st.Reasons, "declares inactive surfaces that bundlectl cannot enable: "+inactiveSurfaces(b))
		return true
	}
	return false
}

// NotTrusted is the reason and the fix for a bundle with no receipt: review
// it and trust the token, unless its name (its directory's) is one trust
// refuses, when the fix is to rename the directory first.
func NotTrusted(name, dir string) (reason, hint string) {
	if bundle.ValidBundleName(name) {
		return "not trusted: review it, then trust the exact token the review prints", "bundlectl review " + bundle.ShellArg(name)
	}
	reason = "not trusted, and cannot be under this name (" + bundle.BundleNameRule + "): rename its directory"
	if s := freeName(filepath.Dir(dir), bundle.SuggestBundleName(name)); s != "" {
		return reason + ", e.g. to " + bundle.Quote(s), "mv -- " + bundle.ShellArg(dir) + " " + bundle.ShellArg(filepath.Join(filepath.Dir(dir), s))
	}
	return reason, "bundlectl validate " + bundle.ShellArg(dir)
}

// freeName is s, or s with a numeric suffix, such that nothing named so
// exists in root: mv onto an existing directory would move the bundle into
// it (another bundle's directory) rather than rename it. "" if none is.
func freeName(root, s string) string {
	if s == "" {
		return ""
	}
	for i := 1; i <= 9; i++ {
		c := s
		if i > 1 {
			c = strings.TrimRight(s[:min(len(s), 62)], "-.") + "-" + strconv.Itoa(i)
		}
		if !bundle.ValidBundleName(c) {
			continue
		}
		if _, err := os.Lstat(filepath.Join(root, c)); errors.Is(err, fs.ErrNotExist) {
			return c
		}
	}
	return ""
}
