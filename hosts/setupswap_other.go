//go:build !linux

package hosts

import "os"

// replaceChecked puts pending in p's place with a plain rename: this
// system has no exchange of two names in one step here, so a write of
// the host's between writeConfig's re-read and the rename is not caught
// (docs/hosts.md says so).
func replaceChecked(pending, p string, _ []byte, _ bool) error {
	return os.Rename(pending, p)
}
