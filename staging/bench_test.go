package staging

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
)

// benchTree builds, once per benchmark, 1,000 files of 1–8 KiB in 100
// directories and one 16 MiB file.
func benchTree(b *testing.B) string {
	src := b.TempDir()
	files := map[string]string{"big.bin": strings.Repeat("bundlectl", 16<<20/9)}
	for i := range 1000 {
		files[fmt.Sprintf("d%02d/s%d/f%04d", i%10, i%100/10, i)] = strings.Repeat(fmt.Sprintf("%07d\n", i), 128+i%896)
	}
	writeTree(b, src, files)
	return src
}

// BenchmarkStage compares the two ways Stage can make a copy durable: one
// syncfs(2) for the whole tree, or an fsync of every file and directory.
// Each iteration stages into a fresh store; the stores are removed only
// after the timer stopped.
func BenchmarkStage(b *testing.B) {
	src := benchTree(b)
	tree := walk(b, src)
	want := referenceHash(b, src)
	for _, mode := range []string{"syncfs", "fsync"} {
		b.Run(mode, func(b *testing.B) {
			if mode == "syncfs" && !syncfsWorks {
				b.Skip("no syncfs here")
			}
			old := fsyncEach
			fsyncEach = mode == "fsync"
			defer func() { fsyncEach = old }()
			base := b.TempDir()
			b.SetBytes(tree.Bytes)
			n := 0
			for b.Loop() {
				n++
				s := &Store{Dir: filepath.Join(base, fmt.Sprint(n), "store")}
				if _, err := s.Stage(tree, want, bundle.Limits{}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			for i := 1; i <= n; i++ {
				removeTree(filepath.Join(base, fmt.Sprint(i)))
			}
			os.RemoveAll(base)
		})
	}
}

// BenchmarkVerify is the full re-hash that Stage's reuse and the harness
// rely on.
func BenchmarkVerify(b *testing.B) {
	src := benchTree(b)
	s := &Store{Dir: filepath.Join(b.TempDir(), "store")}
	want := referenceHash(b, src)
	if _, err := s.Stage(walk(b, src), want, bundle.Limits{}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(walk(b, src).Bytes)
	for b.Loop() {
		if err := s.Verify(want); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	removeTree(s.Dir)
}
