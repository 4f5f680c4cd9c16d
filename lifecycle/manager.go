package lifecycle

import (
	"path/filepath"

	"github.com/bundlectl/bundlectl/bundle"
)

// Manager runs the lifecycle operations for one bundlectl home and one set
// of roots.
type Manager struct {
	Roots  bundle.Roots
	Limits bundle.Limits
	serial bool // walk snapshots on the calling goroutine (evaluateAll's workers)
}

// New returns a manager over roots; roots.Home is $BUNDLECTL_HOME.
func New(roots bundle.Roots, lim bundle.Limits) *Manager {
	return &Manager{Roots: roots, Limits: lim}
}

// Discover scans every root.
func (m *Manager) Discover() *bundle.Discovery { return bundle.Discover(m.Roots, m.Limits) }

// Find returns the winning bundle named name.
func (m *Manager) Find(d *bundle.Discovery, name string) (*bundle.Bundle, error) {
	bs := d.Lookup(name)
	if len(bs) == 0 {
		return nil, &NotFoundError{Name: name}
	}
	return bs[0], nil
}

// LoadDir loads a bundle from an explicit directory, for authors checking
// a bundle anywhere. It is never trusted.
func (m *Manager) LoadDir(dir string) *bundle.Bundle {
	return bundle.Load(filepath.Clean(dir), bundle.ScopeDir, m.Limits)
}
