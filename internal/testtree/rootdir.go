//go:build unix

package testtree

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// RootOwnedDir makes a directory that a program checking a system file's
// safety as Gemini CLI does would read from: it and every directory above
// it owned by root and writable by no one else. The temporary directory
// (/tmp, mode 1777) is not one, so it is made in the home directory and
// removed when the test ends; the test is skipped when the home does not
// qualify or the test does not run as root.
func RootOwnedDir(t testing.TB) string {
	t.Helper()
	home, err := os.UserHomeDir()
	if os.Geteuid() != 0 || err != nil {
		t.Skip("needs root and a root-owned home directory")
	}
	for d := home; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			t.Skip(err)
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || st.Uid != 0 || fi.Mode().Perm()&0o022 != 0 {
			t.Skipf("%s is not owned by root or is writable by others", d)
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	dir, err := os.MkdirTemp(home, "bundlectl-test-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
