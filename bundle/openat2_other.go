//go:build !linux

package bundle

import "errors"

func haveOpenat2() bool { return false }

func openBeneath(int, string) (int, error) { return -1, errors.ErrUnsupported }
