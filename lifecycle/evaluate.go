package lifecycle

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/state"
)

// LoadState reads the state file (read-only).
func (m *Manager) LoadState() (*state.State, error) {
	s, err := m.stateStore().Load()
	return s, stateErr(err)
}

// Evaluate computes the status of b against the state s. It re-hashes the
// source of a trusted bundle and verifies its snapshot in full.
func (m *Manager) Evaluate(b *bundle.Bundle, s *state.State) Status {
	st := Status{Reasons: []string{}}
	if preTrust(b, &st) {
		return st
	}
	rec, _ := s.Bundle(b.ID)
	st.Enabled = rec.Enabled
	rc := rec.Receipt
	if rc == nil {
		st.Word = StatusUntrusted
		st.Reasons = append(st.Reasons, "not trusted: review it, then trust the exact token the review prints")
		if rec.Enabled {
			st.Reasons = append(st.Reasons, "enabled, but inactive until it is trusted again")
		}
		st.Hint = "bundlectl review " + b.Name
		return st
	}
	h, err := Compute(b)
	switch {
	case err != nil:
		st.Word = StatusDrifted
		st.Reasons = append(st.Reasons, "the source cannot be hashed: "+err.Error())
	case h.Content != rc.ContentHash && h.Capability != rc.CapabilityHash:
		st.Word = StatusDrifted
		st.Reasons = append(st.Reasons, "the source's content and capabilities changed since it was trusted")
	case h.Content != rc.ContentHash:
		st.Word = StatusDrifted
		st.Reasons = append(st.Reasons, "the source's content changed since it was trusted")
	case h.Capability != rc.CapabilityHash:
		st.Word = StatusDrifted
		st.Reasons = append(st.Reasons, "the source's capabilities changed since it was trusted")
	}
	if st.Word == "" {
		if err := m.snapshots().Verify(rc.ContentHash); err != nil {
			st.Word = StatusDrifted
			st.Reasons = append(st.Reasons, "the snapshot no longer matches its receipt: "+err.Error())
		}
	}
	if st.Word == StatusDrifted {
		st.Hint = "bundlectl review " + b.Name
		return st
	}
	st.Trusted = true
	if !rec.Enabled {
		st.Word = StatusTrusted
		st.Reasons = append(st.Reasons, "trusted, not enabled")
		st.Hint = "bundlectl enable " + b.Name
		return st
	}
	if why := Applies(b.When); why != "" {
		st.Word = StatusEnabled
		st.Reasons = append(st.Reasons, "enabled and trusted, but "+why)
		return st
	}
	st.Word = StatusActive
	st.Active = true
	return st
}

// HostOS is this host's name in the `when.os` vocabulary.
func HostOS() string {
	if runtime.GOOS == "darwin" {
		return "macos"
	}
	return runtime.GOOS
}

// Applies returns "" when the `when` conditions hold on this host, or the
// reason they do not.
func Applies(w bundle.When) string {
	if len(w.OS) > 0 && !slices.Contains(w.OS, HostOS()) {
		return "it applies only to " + strings.Join(w.OS, ", ") + ", not " + HostOS()
	}
	for _, bin := range w.Binaries {
		if !onPath(bin) {
			return "it needs " + bundle.Quote(bin) + " on PATH"
		}
	}
	return ""
}

func onPath(name string) bool {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return true
		}
	}
	return false
}
