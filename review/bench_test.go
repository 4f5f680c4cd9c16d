package review

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"golang.org/x/sys/unix"
)

// Benchmark trees are generated once into a cache directory
// ($BUNDLECTL_BENCH_DIR, default the user cache dir) and reused. By default
// they are small enough for -benchtime=1x in a test run; with
// BUNDLECTL_BENCH_BIG=1 they are the sizes of bench/hash.sh: 10,000 files
// of 1-8 KB in 4,000 directories, and 20 files of 20 MiB.

func benchFull() bool { return os.Getenv("BUNDLECTL_BENCH_BIG") == "1" }

var benchMu sync.Mutex

func benchTree(b *testing.B, name string, gen func(dir string) error) string {
	b.Helper()
	benchMu.Lock()
	defer benchMu.Unlock()
	base := os.Getenv("BUNDLECTL_BENCH_DIR")
	if base == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			c = os.TempDir()
		}
		base = filepath.Join(c, "bundlectl-bench")
	}
	dir := filepath.Join(base, name)
	if _, err := os.Stat(filepath.Join(base, name+".done")); err == nil {
		return dir
	}
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := gen(dir); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, name+".done"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

func genSmallTree(files, top, sub int) func(string) error {
	return func(dir string) error {
		rng := rand.New(rand.NewPCG(1, 2))
		buf := make([]byte, 8<<10)
		for i := range files {
			d := filepath.Join(dir, fmt.Sprintf("d%02d", i%top), fmt.Sprintf("s%03d", (i/top)%sub))
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
			n := 1024 + rng.IntN(7*1024+1)
			for j := range buf[:n] {
				buf[j] = byte(rng.Uint32())
			}
			if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%05d.txt", i)), buf[:n], 0o644); err != nil {
				return err
			}
		}
		return nil
	}
}

func genBigTree(files int, size int) func(string) error {
	return func(dir string) error {
		rng := rand.NewChaCha8([32]byte{2})
		buf := make([]byte, size)
		for i := range files {
			rng.Read(buf)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("big%02d.bin", i)), buf, 0o644); err != nil {
				return err
			}
		}
		return nil
	}
}

func benchHash(b *testing.B, dir string) {
	tree, rep := bundle.Walk(dir, bundle.Limits{})
	if rep.Rejected() {
		b.Fatal(rep.Err())
	}
	b.SetBytes(tree.Bytes)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := HashDir(dir, bundle.Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkContentHashSmall: walk and hash many small files.
func BenchmarkContentHashSmall(b *testing.B) {
	name, gen := "small-500", genSmallTree(500, 10, 20)
	if benchFull() {
		name, gen = "small-10000", genSmallTree(10000, 40, 100)
	}
	benchHash(b, benchTree(b, name, gen))
}

// BenchmarkContentHashBig: walk and hash a few large files.
func BenchmarkContentHashBig(b *testing.B) {
	name, gen := "big-4x4m", genBigTree(4, 4<<20)
	if benchFull() {
		name, gen = "big-20x20m", genBigTree(20, 20<<20)
	}
	benchHash(b, benchTree(b, name, gen))
}

// BenchmarkFileDigestBuffer hashes one 4 MiB file through the buffered
// path with each candidate buffer size (hashBufSize is chosen from it), and
// through the mapped path, which files of mmapMinSize and more take.
func BenchmarkFileDigestBuffer(b *testing.B) {
	dir := benchTree(b, "big-4x4m", genBigTree(4, 4<<20))
	tree, _ := bundle.Walk(dir, bundle.Limits{})
	e, _ := tree.Lookup("big00.bin")
	run := func(b *testing.B, w *fileHasher, hash func(*fileHasher, int, bundle.Entry) error) {
		b.SetBytes(e.Size)
		op := tree.NewOpener()
		defer op.Close()
		for b.Loop() {
			fd, _, err := op.OpenFD(e.Path)
			if err != nil {
				b.Fatal(err)
			}
			w.h.Reset()
			if err := hash(w, fd, e); err != nil {
				b.Fatal(err)
			}
			unix.Close(fd)
		}
	}
	for _, size := range []int{16 << 10, 64 << 10, 128 << 10, 256 << 10, 1 << 20} {
		b.Run(fmt.Sprintf("read-%dK", size>>10), func(b *testing.B) {
			run(b, newFileHasherSize(size), (*fileHasher).hashRead)
		})
	}
	b.Run("mapped", func(b *testing.B) { run(b, newFileHasher(), (*fileHasher).hashMapped) })
}
