package bundle

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// walkedTree builds a small tree and walks it.
func walkedTree(t *testing.T) (*Tree, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "b")
	mkfile(t, dir, "plugin.toml", "schema_version = 1\n", 0o644)
	mkfile(t, dir, "sub/data", "0123456789", 0o644)
	tree, rep := walkWithTimeout(t, dir, Limits{})
	if tree == nil || len(rep.Findings) != 0 {
		t.Fatalf("walk: %v", rep.Findings)
	}
	return tree, dir
}

func TestTreeReadFile(t *testing.T) {
	tree, _ := walkedTree(t)
	data, err := tree.ReadFile("sub/data", 100)
	if err != nil || string(data) != "0123456789" {
		t.Fatalf("ReadFile = %q, %v", data, err)
	}
	if _, err := tree.ReadFile("sub/data", 5); err == nil {
		t.Error("ReadFile over the limit succeeded")
	}
	for _, rel := range []string{"sub", "missing", "../b/sub/data"} {
		if _, err := tree.ReadFile(rel, 100); !errors.Is(err, ErrChanged) {
			t.Errorf("ReadFile(%q) = %v, want ErrChanged (not a walked file)", rel, err)
		}
	}
}

// TestTreeChangedAfterWalk changes a walked file in every way a later open
// must notice, and checks that Open and ReadFile refuse it with ErrChanged
// and never hang.
func TestTreeChangedAfterWalk(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, p string)
	}{
		{"replaced by rename", func(t *testing.T, p string) {
			must(t, os.WriteFile(p+".new", []byte("0123456789"), 0o644)) // same size and mode
			must(t, os.Rename(p+".new", p))
		}},
		{"appended", func(t *testing.T, p string) {
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
			must(t, err)
			f.WriteString("x")
			f.Close()
		}},
		{"truncated", func(t *testing.T, p string) { must(t, os.Truncate(p, 3)) }},
		{"chmod", func(t *testing.T, p string) { must(t, os.Chmod(p, 0o755)) }},
		{"removed", func(t *testing.T, p string) { must(t, os.Remove(p)) }},
		{"replaced by a symlink", func(t *testing.T, p string) {
			must(t, os.Remove(p))
			must(t, os.Symlink("/etc/passwd", p))
		}},
		{"replaced by a fifo", func(t *testing.T, p string) {
			must(t, os.Remove(p))
			must(t, unix.Mkfifo(p, 0o644))
		}},
		{"replaced by a directory", func(t *testing.T, p string) {
			must(t, os.Remove(p))
			must(t, os.Mkdir(p, 0o755))
		}},
		{"parent replaced by a symlink", func(t *testing.T, p string) {
			sub := filepath.Dir(p)
			must(t, os.Rename(sub, sub+".old"))
			must(t, os.Symlink(filepath.Base(sub)+".old", sub))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree, dir := walkedTree(t)
			tt.change(t, filepath.Join(dir, "sub", "data"))
			done := make(chan error, 2)
			go func() {
				f, _, err := tree.Open("sub/data")
				if err == nil {
					f.Close()
				}
				done <- err
				_, err = tree.ReadFile("sub/data", 100)
				done <- err
			}()
			for i := 0; i < 2; i++ {
				select {
				case err := <-done:
					if !errors.Is(err, ErrChanged) {
						t.Errorf("got %v, want ErrChanged", err)
					}
					var ce *ChangedError
					if !errors.As(err, &ce) || ce.Path != "sub/data" {
						t.Errorf("error %v does not name the path", err)
					}
				case <-time.After(hangGuard):
					t.Fatal("Open hung")
				}
			}
		})
	}
}

// TestRecheck detects an in-place rewrite that keeps inode, size and mode:
// only the times tell it apart.
func TestRecheck(t *testing.T) {
	tree, dir := walkedTree(t)
	f, e, err := tree.Open("sub/data")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := Recheck(f, e); err != nil {
		t.Fatalf("Recheck of an unchanged file: %v", err)
	}
	p := filepath.Join(dir, "sub", "data")
	must(t, os.WriteFile(p, []byte("9876543210"), 0o644))
	// Some filesystems have coarse timestamps; make the change visible.
	future := time.Now().Add(time.Hour)
	must(t, os.Chtimes(p, future, future))
	if err := Recheck(f, e); !errors.Is(err, ErrChanged) {
		t.Errorf("Recheck after a rewrite = %v, want ErrChanged", err)
	}
}

// TestTreeConcurrentUse opens files of one tree from many goroutines, as a
// harness does; run with -race.
func TestTreeConcurrentUse(t *testing.T) {
	tree, _ := walkedTree(t)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := tree.ReadFile("sub/data", 100); err != nil {
				t.Error(err)
			}
			tree.Lookup("plugin.toml")
		}()
	}
	wg.Wait()
}
