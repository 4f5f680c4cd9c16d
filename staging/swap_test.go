package staging

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
)

// hook installs a test seam for the duration of one test.
func hook[T any](t *testing.T, v *T, fn T) {
	t.Helper()
	*v = fn
	t.Cleanup(func() { var zero T; *v = zero })
}

// bothPaths runs fn with openat2 and with the portable bundle.Tree.Open
// and os.Root path.
func bothPaths(t *testing.T, fn func(t *testing.T)) {
	t.Run("openat2", func(t *testing.T) {
		if !haveOpenat2() {
			t.Skip("no openat2 here")
		}
		fn(t)
	})
	t.Run("portable", func(t *testing.T) {
		hook(t, &testOnlyNoOpenat2, true)
		fn(t)
	})
}

// snapshotDir lists a directory's files and contents, to prove it did not
// change.
func snapshotDir(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		info, _ := d.Info()
		b.WriteString(p + " " + info.Mode().String() + "\n")
		if d.Type().IsRegular() {
			data, _ := os.ReadFile(p)
			b.Write(data)
		}
		return nil
	})
	return b.String()
}

func assertNothingStaged(t *testing.T, s *Store) {
	t.Helper()
	if names := storeNames(t, s); len(names) != 0 {
		t.Fatalf("store holds %q after a refused Stage", names)
	}
}

func TestStageRefusesFileSwappedForSymlink(t *testing.T) {
	bothPaths(t, func(t *testing.T) {
		src := t.TempDir()
		writeTree(t, src, sampleTree())
		tree := walk(t, src)
		want := referenceHash(t, src)
		s := newStore(t)
		var mu sync.Mutex
		var opened []string
		hook(t, &testOnlyAfterOpen, func(rel string) {
			mu.Lock()
			opened = append(opened, rel)
			mu.Unlock()
		})
		hook(t, &testOnlyBeforeCopy, func() {
			p := filepath.Join(src, "skills/a/SKILL.md")
			os.Remove(p)
			if err := os.Symlink("/etc/passwd", p); err != nil {
				t.Fatal(err)
			}
		})
		_, err := s.Stage(tree, want, bundle.Limits{})
		var ce *bundle.ChangedError
		if !errors.Is(err, bundle.ErrChanged) || !errors.As(err, &ce) || ce.Path != "skills/a/SKILL.md" {
			t.Fatalf("Stage after a swap: %v, want ErrChanged naming the file", err)
		}
		for _, rel := range opened {
			if rel == "skills/a/SKILL.md" {
				t.Fatalf("the swapped file was opened")
			}
		}
		assertNothingStaged(t, s)
	})
}

func TestStageRefusesDirSwappedForSymlink(t *testing.T) {
	// Before the copy the directory check refuses the swap; after the
	// directories were created, opening a file below the link does.
	for _, when := range []string{"before copy", "after dirs"} {
		t.Run(when, func(t *testing.T) { dirSwap(t, when) })
	}
}

func dirSwap(t *testing.T, when string) {
	bothPaths(t, func(t *testing.T) {
		src := t.TempDir()
		writeTree(t, src, sampleTree())
		tree := walk(t, src)
		want := referenceHash(t, src)
		// Outside: a directory with the same shape, whose content must be
		// neither read into the store nor changed.
		outside := t.TempDir()
		writeTree(t, outside, map[string]string{"a/SKILL.md": "outside", "b/SKILL.md": "outside"})
		before := snapshotDir(t, outside)
		s := newStore(t)
		seam := &testOnlyBeforeCopy
		if when == "after dirs" {
			seam = &testOnlyAfterDirs
		}
		hook(t, seam, func() {
			p := filepath.Join(src, "skills")
			if err := os.Rename(p, p+".old"); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, p); err != nil {
				t.Fatal(err)
			}
		})
		_, err := s.Stage(tree, want, bundle.Limits{})
		var ce *bundle.ChangedError
		if !errors.Is(err, bundle.ErrChanged) || !errors.As(err, &ce) || !strings.HasPrefix(ce.Path, "skills") {
			t.Fatalf("Stage after a directory swap: %v, want ErrChanged naming skills", err)
		}
		t.Logf("refused: %v", err)
		if after := snapshotDir(t, outside); after != before {
			t.Fatalf("the outside directory changed:\n%s\nwas\n%s", after, before)
		}
		assertNothingStaged(t, s)
	})
}

func TestStageRefusesFileGrownBeyondLimit(t *testing.T) {
	lim := bundle.Limits{MaxFileBytes: 1000}
	for _, when := range []string{"before open", "while copying"} {
		t.Run(when, func(t *testing.T) {
			src := t.TempDir()
			writeTree(t, src, map[string]string{"big": strings.Repeat("a", 900), "small": "s"})
			tree, rep := bundle.Walk(src, lim)
			if rep.Err() != nil {
				t.Fatal(rep.Err())
			}
			want := referenceHash(t, src)
			grow := func() {
				f, err := os.OpenFile(filepath.Join(src, "big"), os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.Write([]byte(strings.Repeat("b", 5000)))
				f.Close()
			}
			if when == "before open" {
				hook(t, &testOnlyBeforeCopy, grow)
			} else {
				hook(t, &testOnlyAfterOpen, func(rel string) {
					if rel == "big" {
						grow()
					}
				})
			}
			s := newStore(t)
			_, err := s.Stage(tree, want, lim)
			var ce *bundle.ChangedError
			if !errors.As(err, &ce) || ce.Path != "big" {
				t.Fatalf("Stage of a grown file: %v, want ErrChanged naming big", err)
			}
			assertNothingStaged(t, s)
		})
	}
}

func TestStageRefusesFileModifiedInPlace(t *testing.T) {
	bothPaths(t, func(t *testing.T) {
		src := t.TempDir()
		writeTree(t, src, map[string]string{"f": "aaaa"})
		tree := walk(t, src)
		want := referenceHash(t, src)
		hook(t, &testOnlyAfterOpen, func(string) {
			// Same size, so only the recheck after reading can see it.
			os.WriteFile(filepath.Join(src, "f"), []byte("bbbb"), 0o644)
		})
		s := newStore(t)
		_, err := s.Stage(tree, want, bundle.Limits{})
		if !errors.Is(err, bundle.ErrChanged) {
			t.Fatalf("Stage of a file modified while copied: %v", err)
		}
		assertNothingStaged(t, s)
	})
}
