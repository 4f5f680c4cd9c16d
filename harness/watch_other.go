//go:build !linux

package harness

import (
	"errors"
	"sync/atomic"

	"github.com/bundlectl/bundlectl/bundle"
)

type watcher struct{}

var errNoWatch = errors.New("change notification unavailable")

func newWatcher() (*watcher, error)                                  { return nil, errNoWatch }
func (w *watcher) watchTree(int, string, *bundle.Tree) (bool, error) { return false, errNoWatch }

// generation is never called (there is no watcher here); if it were, it
// would report a change every time.
func (w *watcher) generation(int) uint64 { return unseen.Add(1) }

var unseen atomic.Uint64

func (w *watcher) close() {}
