package review

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/receipts"
	"github.com/rogpeppe/go-internal/txtar"
)

const propertyTree = `
-- :mode --
0755 bin/run
-- plugin.json --
{"name": "p"}
-- bin/run --
#!/bin/sh
-- README.md --
# p
-- skills/s/SKILL.md --
---
name: s
description: d
---
`

// newTree materializes propertyTree in a fresh directory and returns it.
func newTree(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "p")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	materialize(t, dir, txtar.Parse([]byte(propertyTree)))
	return dir
}

func mustHash(t *testing.T, dir string) receipts.Digest {
	t.Helper()
	d, _, err := HashDir(dir, bundle.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestContentHashProperties(t *testing.T) {
	changes := []struct {
		name    string
		edit    func(t *testing.T, dir string)
		changes bool
	}{
		{"chmod +x", func(t *testing.T, dir string) { chmod(t, filepath.Join(dir, "README.md"), 0o755) }, true},
		{"chmod g+x only", func(t *testing.T, dir string) { chmod(t, filepath.Join(dir, "README.md"), 0o654) }, true},
		{"chmod -x", func(t *testing.T, dir string) { chmod(t, filepath.Join(dir, "bin/run"), 0o644) }, true},
		{"added empty dir", func(t *testing.T, dir string) { mkdir(t, filepath.Join(dir, "empty")) }, true},
		{"added empty file", func(t *testing.T, dir string) { write(t, filepath.Join(dir, "empty"), "") }, true},
		{"renamed file", func(t *testing.T, dir string) {
			rename(t, filepath.Join(dir, "README.md"), filepath.Join(dir, "README.txt"))
		}, true},
		{"renamed dir", func(t *testing.T, dir string) {
			rename(t, filepath.Join(dir, "skills/s"), filepath.Join(dir, "skills/t"))
		}, true},
		{"moved file", func(t *testing.T, dir string) {
			rename(t, filepath.Join(dir, "README.md"), filepath.Join(dir, "bin/README.md"))
		}, true},
		{"one byte", func(t *testing.T, dir string) { write(t, filepath.Join(dir, "README.md"), "# q\n") }, true},
		{"appended byte", func(t *testing.T, dir string) { write(t, filepath.Join(dir, "README.md"), "# p\n\n") }, true},
		{"removed file", func(t *testing.T, dir string) { remove(t, filepath.Join(dir, "README.md")) }, true},
		{"mtime", func(t *testing.T, dir string) {
			old := time.Unix(1e9, 0)
			for _, p := range []string{"README.md", "bin", "bin/run", "."} {
				if err := os.Chtimes(filepath.Join(dir, p), old, old); err != nil {
					t.Fatal(err)
				}
			}
		}, false},
		{"0644 to 0640", func(t *testing.T, dir string) { chmod(t, filepath.Join(dir, "README.md"), 0o640) }, false},
		{"0644 to 0600", func(t *testing.T, dir string) { chmod(t, filepath.Join(dir, "README.md"), 0o600) }, false},
		{"0755 to 0711", func(t *testing.T, dir string) { chmod(t, filepath.Join(dir, "bin/run"), 0o711) }, false},
		{"dir 0755 to 0700", func(t *testing.T, dir string) { chmod(t, filepath.Join(dir, "bin"), 0o700) }, false},
		{"rewritten same bytes", func(t *testing.T, dir string) { write(t, filepath.Join(dir, "README.md"), "# p\n") }, false},
	}
	for _, c := range changes {
		t.Run(c.name, func(t *testing.T) {
			dir := newTree(t)
			before := mustHash(t, dir)
			c.edit(t, dir)
			after := mustHash(t, dir)
			if (before != after) != c.changes {
				t.Errorf("hash changed = %v, want %v", before != after, c.changes)
			}
		})
	}
}

func TestContentHashOwner(t *testing.T) {
	dir := newTree(t)
	before := mustHash(t, dir)
	// Only root can give a file away; as another user, change the group
	// to another of our own groups if there is one.
	uid, gid := 12345, 12345
	if os.Geteuid() != 0 {
		groups, _ := os.Getgroups()
		if len(groups) < 2 {
			t.Skip("not root and in fewer than two groups: cannot change owner or group")
		}
		uid, gid = -1, groups[1]
	}
	for _, p := range []string{"README.md", "bin", "bin/run", "."} {
		if err := os.Lchown(filepath.Join(dir, p), uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	if after := mustHash(t, dir); after != before {
		t.Errorf("changing owner changed the hash: %s != %s", after, before)
	}
}

func TestContentHashSameTreeTwoPaths(t *testing.T) {
	a, b := newTree(t), newTree(t)
	if a == b {
		t.Fatal("same directory")
	}
	if ha, hb := mustHash(t, a), mustHash(t, b); ha != hb {
		t.Errorf("%s at %s, %s at %s", ha, a, hb, b)
	}
	// The hash does not depend on the bundle directory's own name either.
	c := filepath.Join(filepath.Dir(b), "other-name")
	rename(t, b, c)
	if hc := mustHash(t, c); hc != mustHash(t, a) {
		t.Errorf("renaming the root changed the hash")
	}
}

func TestContentHashDeterministicAcrossWorkers(t *testing.T) {
	dir := newTree(t)
	for i := range 50 {
		write(t, filepath.Join(dir, "many", string(rune('a'+i%26))+string(rune('a'+i/26))), string(make([]byte, i*1000)))
	}
	want := naiveTreeHash(t, dir)
	for range 5 {
		if got := mustHash(t, dir); got.String() != want {
			t.Fatalf("got %s, want %s", got, want)
		}
	}
}

func TestContentHashRefusesBadWalk(t *testing.T) {
	dir := newTree(t)
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := HashDir(dir, bundle.Limits{})
	var te *TreeError
	if !errors.As(err, &te) || !errors.Is(err, ErrTreeInvalid) {
		t.Fatalf("got %v, want a TreeError", err)
	}
	if len(te.Findings) == 0 || te.Findings[0].Rule != "tree.special" {
		t.Errorf("findings %v", te.Findings)
	}

	b := &bundle.Bundle{Dir: dir}
	if _, err := Hash(b); !errors.Is(err, ErrTreeInvalid) {
		t.Errorf("Hash of a bundle without a tree: %v", err)
	}
	tree, _ := bundle.Walk(newTree(t), bundle.Limits{})
	b = &bundle.Bundle{Dir: tree.Root, Tree: tree}
	b.Report.Errorf("plugin.json", "manifest.x", "bad")
	if _, err := Hash(b); !errors.Is(err, ErrTreeInvalid) {
		t.Errorf("Hash of a rejected bundle: %v", err)
	}
	b.Report = bundle.Report{}
	if _, err := Hash(b); err != nil {
		t.Errorf("Hash of a clean bundle: %v", err)
	}
}

// hangGuard bounds a hash that does not return at all (a file swapped for
// a FIFO must not block it); it bounds a hang, never a speed.
const hangGuard = 5 * time.Minute

// TestContentHashChangedAfterWalk changes the tree between the walk and
// the hash: every change to a walked file is refused with ErrChanged.
func TestContentHashChangedAfterWalk(t *testing.T) {
	cases := []struct {
		name string
		edit func(t *testing.T, p string)
	}{
		{"same size rewrite", func(t *testing.T, p string) {
			// Make sure the new mtime differs even on a coarse clock.
			write(t, p, "# P\n")
			future := time.Now().Add(time.Hour)
			os.Chtimes(p, future, future)
		}},
		{"grown", func(t *testing.T, p string) { write(t, p, "# p and more\n") }},
		{"truncated", func(t *testing.T, p string) { write(t, p, "") }},
		{"chmod", func(t *testing.T, p string) { chmod(t, p, 0o600) }},
		{"removed", func(t *testing.T, p string) { remove(t, p) }},
		{"replaced by rename", func(t *testing.T, p string) {
			write(t, p+".new", "# p\n")
			rename(t, p+".new", p)
		}},
		{"replaced by symlink", func(t *testing.T, p string) {
			remove(t, p)
			if err := os.Symlink("plugin.json", p); err != nil {
				t.Fatal(err)
			}
		}},
		{"replaced by fifo", func(t *testing.T, p string) {
			remove(t, p)
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"replaced by dir", func(t *testing.T, p string) {
			remove(t, p)
			mkdir(t, p)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := newTree(t)
			tree, rep := bundle.Walk(dir, bundle.Limits{})
			if rep.Rejected() {
				t.Fatal(rep.Err())
			}
			c.edit(t, filepath.Join(dir, "README.md"))
			done := make(chan error, 1)
			go func() { _, err := ContentHash(tree); done <- err }()
			select {
			case err := <-done:
				if !errors.Is(err, bundle.ErrChanged) {
					t.Fatalf("got %v, want ErrChanged", err)
				}
				var he *HashError
				if !errors.As(err, &he) || he.Path != "README.md" {
					t.Errorf("error %v does not name README.md", err)
				}
			case <-time.After(hangGuard):
				t.Fatal("hash hung")
			}
		})
	}
}

// TestContentHashChangedWhileRead modifies a file after its content was
// read and before it is re-checked.
func TestContentHashChangedWhileRead(t *testing.T) {
	dir := newTree(t)
	tree, _ := bundle.Walk(dir, bundle.Limits{})
	testOnlyAfterRead = func(rel string) {
		if rel == "README.md" {
			f, err := os.OpenFile(filepath.Join(dir, rel), os.O_WRONLY, 0)
			if err != nil {
				t.Error(err)
				return
			}
			f.WriteAt([]byte("#"), 2) // same size, new content
			f.Close()
			future := time.Now().Add(time.Hour) // beat a coarse clock
			os.Chtimes(filepath.Join(dir, rel), future, future)
		}
	}
	defer func() { testOnlyAfterRead = nil }()
	if _, err := ContentHash(tree); !errors.Is(err, bundle.ErrChanged) {
		t.Fatalf("got %v, want ErrChanged", err)
	}
}

// TestContentHashConcurrentWriter rewrites a file continuously while the
// tree is walked and hashed: every result is either refused with
// ErrChanged or the hash of one state the tree really was in.
func TestContentHashConcurrentWriter(t *testing.T) {
	dir := newTree(t)
	p := filepath.Join(dir, "README.md")
	states := map[receipts.Digest]string{}
	for _, s := range []string{"", "AAAAAAAA", "BBBBBBBB"} {
		write(t, p, s)
		states[mustHash(t, dir)] = s
	}
	stop := make(chan struct{})
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			s := "AAAAAAAA"
			if i%2 == 1 {
				s = "BBBBBBBB"
			}
			os.WriteFile(p, []byte(s), 0o644)
		}
	}()
	// A fixed number of rounds, not as many as fit in a second: on a busy
	// machine the test takes longer and proves as much.
	var refused, hashed int
	for range 1000 {
		d, _, err := HashDir(dir, bundle.Limits{})
		switch {
		case errors.Is(err, bundle.ErrChanged):
			refused++
		case err != nil:
			t.Fatalf("unexpected error: %v", err)
		default:
			if _, ok := states[d]; !ok {
				t.Fatalf("hash %s is of no state the tree was in", d)
			}
			hashed++
		}
	}
	close(stop)
	<-writerDone
	t.Logf("%d refused, %d hashed", refused, hashed)
}

func chmod(t *testing.T, p string, m os.FileMode) {
	t.Helper()
	if err := os.Chmod(p, m); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	mkdir(t, filepath.Dir(p))
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func rename(t *testing.T, a, b string) {
	t.Helper()
	if err := os.Rename(a, b); err != nil {
		t.Fatal(err)
	}
}

func remove(t *testing.T, p string) {
	t.Helper()
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
}

// TestContentHashLargeFiles covers the buffered path over several reads
// and the mapped path, against the naive implementation.
func TestContentHashLargeFiles(t *testing.T) {
	dir := newTree(t)
	for name, size := range map[string]int{"buffered": 3*hashBufSize + 17, "mapped": mmapMinSize + 4097, "exact": mmapMinSize} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i * 7)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := mustHash(t, dir).String(), naiveTreeHash(t, dir); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestContentHashTruncatedWhileMapped truncates a mapped file before it is
// read: the access faults, and the fault must become ErrChanged, not a
// crash. The same for the buffered path.
func TestContentHashTruncatedBeforeRead(t *testing.T) {
	for name, size := range map[string]int{"mapped": 2 * mmapMinSize, "buffered": 2 * hashBufSize} {
		t.Run(name, func(t *testing.T) {
			dir := newTree(t)
			p := filepath.Join(dir, "big")
			if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
				t.Fatal(err)
			}
			tree, _ := bundle.Walk(dir, bundle.Limits{})
			testOnlyBeforeRead = func(rel string) {
				if rel == "big" {
					if err := os.Truncate(p, 100); err != nil {
						t.Error(err)
					}
				}
			}
			defer func() { testOnlyBeforeRead = nil }()
			_, err := ContentHash(tree)
			if !errors.Is(err, bundle.ErrChanged) || !strings.Contains(err.Error(), "big: truncated") {
				t.Fatalf("got %v, want ErrChanged for a truncated file", err)
			}
		})
	}
}

// TestContentHashParentReplaced replaces a directory on the path of a
// file after the walk: by a symlink to the moved original, and by a new
// directory holding a hard link to the very same file inode. Both are
// refused: every directory on the way must be the walked one.
func TestContentHashParentReplaced(t *testing.T) {
	cases := map[string]func(t *testing.T, dir string){
		"symlink": func(t *testing.T, dir string) {
			rename(t, filepath.Join(dir, "skills/s"), filepath.Join(dir, "skills/moved"))
			if err := os.Symlink("moved", filepath.Join(dir, "skills/s")); err != nil {
				t.Fatal(err)
			}
		},
		"new dir, same file inode": func(t *testing.T, dir string) {
			rename(t, filepath.Join(dir, "skills/s"), filepath.Join(dir, "skills/moved"))
			mkdir(t, filepath.Join(dir, "skills/s"))
			if err := os.Link(filepath.Join(dir, "skills/moved/SKILL.md"), filepath.Join(dir, "skills/s/SKILL.md")); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, edit := range cases {
		t.Run(name, func(t *testing.T) {
			dir := newTree(t)
			tree, _ := bundle.Walk(dir, bundle.Limits{})
			edit(t, dir)
			_, err := ContentHash(tree)
			var he *HashError
			if !errors.Is(err, bundle.ErrChanged) || !errors.As(err, &he) || !strings.HasPrefix(he.Path, "skills/s") {
				t.Fatalf("got %v, want ErrChanged for skills/s", err)
			}
		})
	}
}
