//go:build !linux

package staging

import (
	"errors"

	"github.com/bundlectl/bundlectl/bundle"
)

// Without openat2 every file goes through bundle.Tree.Open and os.Root.
func haveOpenat2() bool { return false }

func openWalkedFast(int, bundle.Entry) (int, error)   { return -1, errors.ErrUnsupported }
func recheckFast(int, bundle.Entry) error             { return errors.ErrUnsupported }
func createFast(int, string, uint32) (int, error)     { return -1, errors.ErrUnsupported }
func mkdirFast(int, string) error                     { return errors.ErrUnsupported }
func sealFast(int, string) error                      { return errors.ErrUnsupported }
func symlinkFast(int, string, string) (string, error) { return "", errors.ErrUnsupported }
