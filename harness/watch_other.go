//go:build !linux

package harness

import (
	"errors"

	"github.com/bundlectl/bundlectl/bundle"
)

type watcher struct{}

var errNoWatch = errors.New("change notification unavailable")

func newWatcher() (*watcher, error)                                  { return nil, errNoWatch }
func (w *watcher) watchTree(int, string, *bundle.Tree) (bool, error) { return false, errNoWatch }
func (w *watcher) changed(int) bool                                  { return true }
func (w *watcher) clean(int)                                         {}
func (w *watcher) close()                                            {}
