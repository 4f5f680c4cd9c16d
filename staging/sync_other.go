//go:build !linux

package staging

import "errors"

// syncfsWorks is false where syncfs(2) does not exist: every file and
// directory is fsynced instead.
const syncfsWorks = false

func syncFS(string) error { return errors.ErrUnsupported }
