package staging

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"golang.org/x/sys/unix"
)

// Stage checks the source between the walk and the copy in layers: the
// identity of every directory, a no-follow open of every file, the
// identity of the opened file, a re-check after reading it, and the digest
// of the bytes written. The tests in swap_test.go hold them together; each
// test here swaps the source so that exactly one layer can see the swap,
// and fails when only that layer is removed (docs/protections.md says how
// each was checked).

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// stageRefused stages tree and requires ErrChanged naming rel, with reason
// among its words, and an empty store.
func stageRefused(t *testing.T, tree *bundle.Tree, src string, rel, reason string) {
	t.Helper()
	s := newStore(t)
	_, err := s.Stage(tree, referenceHash(t, src), bundle.Limits{})
	var ce *bundle.ChangedError
	if !errors.Is(err, bundle.ErrChanged) || !errors.As(err, &ce) || ce.Path != rel {
		t.Fatalf("Stage: %v, want ErrChanged naming %s", err, rel)
	}
	if !strings.Contains(ce.Reason, reason) {
		t.Errorf("Stage refused %s because %q, want %q", rel, ce.Reason, reason)
	}
	assertNothingStaged(t, s)
}

// TestStageNoFollowOpenAlone replaces a path element, after the directory
// check passed, by a symbolic link to the very directory or file the walk
// saw. Every inode, size, mode and time the other layers compare is the
// walked one, and so are the bytes: only the no-follow open refuses the
// link (a link in the middle of the path needs RESOLVE_NO_SYMLINKS, or
// O_NOFOLLOW on each element; a link at the end is refused by either).
func TestStageNoFollowOpenAlone(t *testing.T) {
	for _, where := range []string{"middle", "last"} {
		t.Run(where, func(t *testing.T) {
			bothPaths(t, func(t *testing.T) {
				src := t.TempDir()
				writeTree(t, src, sampleTree())
				tree := walk(t, src)
				hook(t, &testOnlyAfterDirs, func() {
					// Renaming a directory moves neither the inode nor the
					// ctime of the files inside it.
					a := filepath.Join(src, "skills", "a")
					mustDo(t, os.Rename(a, a+".walked"))
					if where == "middle" {
						mustDo(t, os.Symlink("a.walked", a))
					} else {
						mustDo(t, os.Mkdir(a, 0o755))
						mustDo(t, os.Symlink("../a.walked/SKILL.md", filepath.Join(a, "SKILL.md")))
					}
				})
				stageRefused(t, tree, src, "skills/a/SKILL.md", "")
			})
		})
	}
}

// TestStageFileIdentityAlone replaces a walked file, after the directories
// were checked and before it is opened, by another file with no link on
// the way: a regular file of the same size and mode, or a FIFO holding
// bytes. The re-check after reading would refuse the regular file too,
// but only after its bytes were read; the check of the opened file against
// the walk refuses both before a byte is read.
func TestStageFileIdentityAlone(t *testing.T) {
	t.Run("regular", func(t *testing.T) {
		bothPaths(t, func(t *testing.T) {
			src := t.TempDir()
			writeTree(t, src, sampleTree())
			tree := walk(t, src)
			const rel = "skills/a/SKILL.md"
			var mu sync.Mutex
			var opened []string
			hook(t, &testOnlyAfterOpen, func(rel string) {
				mu.Lock()
				opened = append(opened, rel)
				mu.Unlock()
			})
			hook(t, &testOnlyAfterDirs, func() {
				p := filepath.Join(src, rel)
				fi, err := os.Stat(p)
				mustDo(t, err)
				other := p + ".other"
				mustDo(t, os.WriteFile(other, []byte(strings.Repeat("X", int(fi.Size()))), 0o644))
				mustDo(t, os.Chmod(other, fi.Mode().Perm()))
				mustDo(t, os.Rename(other, p))
			})
			stageRefused(t, tree, src, rel, "replaced")
			for _, r := range opened {
				if r == rel {
					t.Fatalf("the replacing file of %s passed the open and was about to be read", rel)
				}
			}
		})
	})
	t.Run("fifo", func(t *testing.T) {
		bothPaths(t, func(t *testing.T) {
			src := t.TempDir()
			writeTree(t, src, sampleTree())
			tree := walk(t, src)
			const rel = "skills/a/SKILL.md"
			const held = "bytes waiting in the pipe"
			var fifo *os.File
			hook(t, &testOnlyAfterDirs, func() {
				p := filepath.Join(src, rel)
				mustDo(t, os.Remove(p))
				mustDo(t, unix.Mkfifo(p, 0o644))
				// Both ends in one descriptor: no open blocks, and what
				// this test wrote stays readable until someone reads it.
				f, err := os.OpenFile(p, os.O_RDWR, 0)
				mustDo(t, err)
				fifo = f
				_, err = f.WriteString(held)
				mustDo(t, err)
			})
			stageRefused(t, tree, src, rel, "")
			defer fifo.Close()
			mustDo(t, unix.SetNonblock(int(fifo.Fd()), true))
			buf := make([]byte, 64)
			n, _ := unix.Read(int(fifo.Fd()), buf)
			if got := string(buf[:max(n, 0)]); got != held {
				t.Fatalf("the FIFO holds %q, want %q: Stage read from it", got, held)
			}
		})
	})
}

// TestStageDirIdentityAlone replaces walked directories before the copy by
// new directories holding the very entries the walk saw (moved, which
// keeps their inodes and times), or, for an empty directory, by a new
// empty one. No path has a link, every file is the walked inode with the
// walked bytes: only the check of each directory against the walk
// refuses it.
func TestStageDirIdentityAlone(t *testing.T) {
	for _, tt := range []struct {
		name, dir string
		swap      func(t *testing.T, src string)
	}{
		{"on a file's path", "skills", func(t *testing.T, src string) {
			d := filepath.Join(src, "skills")
			mustDo(t, os.Rename(d, d+".walked"))
			mustDo(t, os.Mkdir(d, 0o755))
			for _, sub := range []string{"a", "b"} {
				mustDo(t, os.Rename(filepath.Join(d+".walked", sub), filepath.Join(d, sub)))
			}
			mustDo(t, os.Remove(d+".walked"))
		}},
		{"empty", "empty", func(t *testing.T, src string) {
			d := filepath.Join(src, "empty")
			mustDo(t, os.Rename(d, d+".walked"))
			mustDo(t, os.Mkdir(d, 0o755))
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bothPaths(t, func(t *testing.T) {
				src := t.TempDir()
				writeTree(t, src, sampleTree())
				tree := walk(t, src)
				hook(t, &testOnlyBeforeCopy, func() { tt.swap(t, src) })
				stageRefused(t, tree, src, tt.dir, "directory replaced")
			})
		})
	}
}
