package lifecycle

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestExchange: an update swaps the new tree in without a moment in which
// the bundle's directory is missing (a harness listing the root meanwhile
// would take the bundle for removed and stop it): both paths exist after
// the swap, holding each other's content.
func TestExchange(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "new"), filepath.Join(dir, "bundle")
	for p, body := range map[string]string{a: "new", b: "old"} {
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "f"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := exchange(a, b); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{a: "old", b: "new"} {
		got, err := os.ReadFile(filepath.Join(p, "f"))
		if err != nil || string(got) != want {
			t.Errorf("%s holds %q (%v), want %q", p, got, err, want)
		}
	}
}

// TestRenameNoReplace: install never replaces what is in a root, not even
// an empty directory (rename(2) would).
func TestRenameNoReplace(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.Mkdir(a, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := renameNoReplace(a, b); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("renameNoReplace onto an empty directory: %v, want ErrExist", err)
	}
	if _, err := os.Stat(a); err != nil {
		t.Fatal("the source moved")
	}
}

// The fallbacks off Linux (no renameat2), run here too: the exchange of
// an entry of a directory held open with a path, and the refusal to
// rename onto an existing entry.
func TestRenameFallbacksAt(t *testing.T) {
	dir := t.TempDir()
	held, other := filepath.Join(dir, "held"), filepath.Join(dir, "bundle")
	for p, body := range map[string]string{filepath.Join(held, "new"): "new", other: "old"} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "f"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fd, err := unix.Open(held, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if err := exchangeAtFallback(fd, "new", unix.AT_FDCWD, other); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{filepath.Join(held, "new"): "old", other: "new"} {
		got, err := os.ReadFile(filepath.Join(p, "f"))
		if err != nil || string(got) != want {
			t.Errorf("%s holds %q (%v), want %q", p, got, err, want)
		}
	}
	if err := renameNoReplaceAtFallback(fd, "new", unix.AT_FDCWD, other); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("renameNoReplaceAtFallback onto a directory: %v, want ErrExist", err)
	}
	if err := renameNoReplaceAtFallback(fd, "new", unix.AT_FDCWD, filepath.Join(dir, "placed")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "placed", "f")); err != nil {
		t.Fatal(err)
	}
}
