package review

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// A file the walk listed but the caller cannot open gets the command that
// makes it readable, the path whole and quoted; other failures get none.
func TestHashErrorHint(t *testing.T) {
	denied := &HashError{Path: "tools/my payload", Root: "/b/unr", Err: &os.PathError{Op: "open", Path: "x", Err: fs.ErrPermission}}
	if got, want := denied.Hint(), "chmod u+r '/b/unr/tools/my payload'"; got != want {
		t.Errorf("Hint() = %q, want %q", got, want)
	}
	if h := (&HashError{Path: "a", Root: "/b", Err: fs.ErrNotExist}).Hint(); h != "" {
		t.Errorf("a missing file hinted %q", h)
	}
	if h := (&HashError{Path: "a", Err: fs.ErrPermission}).Hint(); h != "" {
		t.Errorf("no root, hinted %q", h)
	}
}

// Only a file's owner can chmod it: another owner's file gets no chmod
// hint, which would fail as printed.
func TestHashErrorHintNotOwner(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "theirs")
	if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(p, os.Geteuid()+1, -1); err != nil {
		t.Skip("cannot give the file another owner:", err)
	}
	if h := (&HashError{Path: "theirs", Root: root, Err: fs.ErrPermission}).Hint(); h != "" {
		t.Errorf("another owner's file hinted %q", h)
	}
}
