package sources

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Without /proc mounted (a container, a chroot) git cannot be started in
// the scratch directory by its descriptor. A fetch whose directories no
// other user may write starts git there by its path, since nobody else
// can swap them; one below a directory others may write is refused with
// an error that names the directory and a hint that works as printed.
// (Before, every git fetch failed with a raw "chdir /proc/self/fd/N: no
// such file or directory".) With /proc, the shared directory is no
// obstacle: git is started through the descriptor.
func TestGitFetchWithoutProc(t *testing.T) {
	r := pluginRepo(t)
	r.commit("one")
	fetch := func(t *testing.T, shared bool) (*Result, string, error) {
		dir := t.TempDir()
		if shared {
			dir = filepath.Join(dir, "shared")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, 0o777); err != nil {
				t.Fatal(err)
			}
		}
		parent := filepath.Join(dir, "tmp")
		res, err := Fetch(context.Background(), parent, Request{Source: r.url()}, Options{})
		if l := leftovers(t, parent); err != nil && len(l) != 0 {
			t.Errorf("the failed fetch left %v in %s", l, parent)
		}
		return res, dir, err
	}
	t.Run("proc", func(t *testing.T) {
		if _, _, err := fetch(t, true); err != nil {
			t.Fatalf("with /proc, a fetch below a shared directory failed: %v", err)
		}
	})
	old := procSelfFD
	procSelfFD = "/nonexistent-proc/self/fd/"
	defer func() { procSelfFD = old }()
	t.Run("private", func(t *testing.T) {
		res, _, err := fetch(t, false)
		if err != nil {
			t.Fatalf("without /proc, a fetch into a private directory failed: %v", err)
		}
		if _, err := os.Stat(filepath.Join(res.Dir, ".claude-plugin/plugin.json")); err != nil {
			t.Errorf("the tree was not fetched: %v", err)
		}
	})
	t.Run("shared", func(t *testing.T) {
		_, dir, err := fetch(t, true)
		if err == nil {
			t.Fatal("without /proc, a fetch below a directory every user may write succeeded")
		}
		if !errors.Is(err, ErrRefused) {
			t.Errorf("error %v does not wrap ErrRefused", err)
		}
		for _, want := range []string{"/proc/self/fd is not available (is /proc mounted?), so git cannot be started there by its descriptor; by its path it cannot either, as", dir, "may be written by other users (mode 777)"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not contain %q", err, want)
			}
		}
		var se *Error
		if !errors.As(err, &se) || se.Fix != "chmod go-w -- "+dir {
			t.Errorf("hint = %q; want chmod go-w -- %s", se.Fix, dir)
		}
	})
}
